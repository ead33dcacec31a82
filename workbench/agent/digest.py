"""The bounded, failing-first account of one iteration, for a coding agent: `workbench run --brief` prints
its text, the MCP `run` tool returns it as structured content plus that text.

A result document sized for programs (`run --json`: every result with its full actual and expected) floods
an agent's context at 200 rows. This one is bounded whatever the project: at most `MAX_ROWS` failing rows,
each with its failing evaluators and the format's compact account of the failure (`Digests.digest`), the
text at most about `TEXT_BUDGET` bytes; the rest are counted, with how to see them. Then what flipped
against the previous iteration, where the loop stands (stall, iterations since the last green) and one
`next` hint.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..history import compare_results
from ..model import Problem, Project, Result, Verdict, error_problems, results_by_row, row_verdict
from ..report.redact import Redactor
from ..report.text import digests_of
from ..textsafe import counted, one_line
from .loop_status import LoopStatus

MAX_ROWS = 20
TEXT_BUDGET = 4000  # bytes of the text rendering
_DIGEST_CHARS = 240  # one failure's account, in the structured content and the text
_FLIPS_NAMED = 8
_PROBLEMS_SHOWN = 3

Digester = Callable[[Result], str]


@dataclass(slots=True)
class FailingRow:
    set: str
    row: str  # the row's display name (what `row(name)` takes)
    row_id: str
    verdict: str
    failures: list[tuple[str, str]]  # (evaluator, compact account)

    def to_json(self) -> dict[str, Any]:
        return {"set": self.set, "row": self.row, "row_id": self.row_id, "verdict": self.verdict,
                "failures": [{"evaluator": ref, "digest": text} for ref, text in self.failures]}

    def line(self) -> str:
        head = f"{self.verdict:<5} {self.set} › {one_line(self.row, 80)}"
        accounts = [f"[{ref}] {_clip_bytes(text, _DIGEST_CHARS)}" for ref, text in self.failures[:2]]
        more = f" (+{counted(len(self.failures) - 2, 'more evaluator')})" if len(self.failures) > 2 else ""
        return f"{head} — {'; '.join(accounts)}{more}"


@dataclass(slots=True)
class SameFailure:
    """Rows that fail the same way (same verdict, same evaluators, same words): a target that crashes on
    every row is one line, not twenty."""

    first: FailingRow
    rows: list[str]  # display names, in order
    sets: set[str] = field(default_factory=set)

    def to_json(self) -> dict[str, Any]:
        return {"count": len(self.rows), "rows": self.rows[:5], "verdict": self.first.verdict,
                "failures": [{"evaluator": ref, "digest": text} for ref, text in self.first.failures]}

    def line(self) -> str:
        if len(self.rows) == 1:
            return self.first.line()
        names = ", ".join(repr(one_line(name, 40)) for name in self.rows[:3])
        more = ", …" if len(self.rows) > 3 else ""
        accounts = "; ".join(f"[{ref}] {_clip_bytes(text, _DIGEST_CHARS)}" for ref, text in self.first.failures[:2])
        where = f" of {self.first.set}" if self.sets == {self.first.set} else ""
        return f"{self.first.verdict:<5} {len(self.rows)} rows{where} the same way ({names}{more}) — {accounts}"


def same_failures(rows: Sequence[FailingRow]) -> list[SameFailure]:
    groups: dict[tuple[str, tuple[tuple[str, str], ...]], SameFailure] = {}
    for row in rows:
        key = (row.verdict, tuple(row.failures))
        group = groups.setdefault(key, SameFailure(row, []))
        group.rows.append(row.row)
        group.sets.add(row.set)
    return list(groups.values())


@dataclass(slots=True)
class Flipped:
    fixed: list[str] = field(default_factory=list)
    newly_failing: list[str] = field(default_factory=list)
    compared_with: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"against_iteration": self.compared_with, "fixed": self.fixed[:_FLIPS_NAMED],
                "fixed_count": len(self.fixed), "newly_failing": self.newly_failing[:_FLIPS_NAMED],
                "newly_failing_count": len(self.newly_failing)}

    def line(self) -> str | None:
        if self.compared_with is None:
            return None
        parts = []
        for title, names in (("fixed", self.fixed), ("newly failing", self.newly_failing)):
            if names:
                shown = ", ".join(repr(one_line(n, 50)) for n in names[:_FLIPS_NAMED])
                extra = f" (+{len(names) - _FLIPS_NAMED} more)" if len(names) > _FLIPS_NAMED else ""
                parts.append(f"{title} {len(names)}: {shown}{extra}")
        return f"vs #{self.compared_with}: " + ("; ".join(parts) if parts else "no row flipped")


@dataclass(slots=True)
class Digest:
    """One iteration (or the part of it done so far) as an agent reads it."""

    iteration: int | None
    complete: bool
    rows_total: int
    rows_passing: int
    rows_failing: int
    rows_erroring: int
    results: dict[str, int]
    rescored: int
    ran: int
    failing: list[FailingRow]
    failing_total: int
    flips: Flipped
    status: LoopStatus | None
    problems: list[Problem]
    green: bool
    next: str
    trigger: str = ""
    duration_s: float = 0.0
    handle: str | None = None  # set while the iteration still runs (`status(handle)` waits for it)
    progress: tuple[int, int] | None = None  # rows done, rows total
    groups: list[SameFailure] = field(default_factory=list)  # every failing row, grouped by how it fails
    live: str | None = None  # how a live TUI/`watch` session answered: "joined", "recorded" or "ran"
    for_cli: bool = False  # `run --brief`: hints name workbench commands, not the MCP tools
    left_out: int = 0  # rows of the project this iteration did not run (a narrowed run): never "all green"
    # what its rows' outputs hold under secret-named keys (`report.redact`): redacted from the answer, never in it
    secrets: frozenset[str] = frozenset()

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "iteration": self.iteration, "complete": self.complete, "green": self.green,
            "rows": {"total": self.rows_total, "passing": self.rows_passing, "failing": self.rows_failing,
                     "erroring": self.rows_erroring},
            "results": self.results, "rescored_rows": self.rescored, "ran_rows": self.ran,
            "failing": [row.to_json() for row in self.failing],
            "failing_shown": len(self.failing), "failing_total": self.failing_total,
            "same_failure": [group.to_json() for group in self.groups if len(group.rows) > 1][:5],
            "flips": self.flips.to_json(),
            "problems": [p.to_json() for p in self.problems[:_PROBLEMS_SHOWN]],
            "problems_total": len(self.problems),
            "loop": self.status.to_json() if self.status is not None else None,
            "next": self.next, "trigger": self.trigger, "duration_s": round(self.duration_s, 3),
            "rows_left_out": self.left_out,
        }
        if self.handle is not None:
            doc["handle"] = self.handle
        if self.live is not None:
            doc["live_session"] = self.live
        if self.progress is not None:
            doc["progress"] = {"rows_done": self.progress[0], "rows_total": self.progress[1]}
        return doc

    def text(self) -> str:
        """The short rendering: at most about TEXT_BUDGET bytes, failing rows first."""
        lines = [self._head()]
        tail = self._tail()
        budget = TEXT_BUDGET - sum(len(line.encode()) + 1 for line in [*lines, *tail]) - 120
        shown = 0
        for group in (self.groups or [SameFailure(row, [row.row]) for row in self.failing])[:MAX_ROWS]:
            line = group.line()
            size = len(line.encode()) + 1
            if size > budget:
                break
            lines.append(line)
            budget -= size
            shown += len(group.rows)
        if self.failing_total > shown:
            lines.append(f"… {self.failing_total - shown} more failing rows not shown: {self._see_more()}")
        return _within_budget(lines, tail)

    def _head(self) -> str:
        where = f"iteration {self.iteration}" if self.iteration is not None else "iteration"
        if not self.complete:
            done, total = self.progress or (0, self.rows_total)
            return (f"{where} still running ({done}/{total} rows done) — call status(handle={self.handle!r}) "
                    f"to wait for it; so far {self.rows_passing}/{self.rows_total} rows pass")
        count = f"{self.rows_passing}/{self.rows_total} rows pass"
        if self.rows_erroring:
            count += f", {self.rows_erroring} error"
        why = f" ({one_line(self.trigger, 120)})" if self.trigger else ""
        head = f"{where}{why}: {count} ({self.rescored} re-scored, {self.ran} run, {self.duration_s:.1f}s)"
        if self.left_out and not self.rows_failing and not self.rows_erroring and self.rows_total:
            return head + f" — the selected rows pass; {counted(self.left_out, 'row')} of the project not run"
        return head + (" — all green" if self.green else "")

    def _tail(self) -> list[str]:
        lines = []
        for problem in error_problems(self.problems)[:_PROBLEMS_SHOWN]:
            lines.append(_clip_bytes(one_line(f"problem: {problem.file}: {problem.message}", 240), 240))
        errors = len(error_problems(self.problems))
        if errors > _PROBLEMS_SHOWN:
            lines.append(f"… {errors - _PROBLEMS_SHOWN} more file problems: "
                         + ("workbench check" if self.for_cli else "check()"))
        flips = self.flips.line()
        if flips:
            lines.append(_clip_bytes(one_line(flips, 600), 600))
        if self.status is not None and self.status.describe():
            lines.append(f"loop: {self.status.describe()}")
        lines.append(f"next: {self.next}")
        return lines

    def _see_more(self) -> str:
        if self.for_cli:
            return "workbench run --set SET --row NAME --reuse --json for any row's detail; --set SET to narrow"
        return "row(name, set) for any row's detail; run(failing_only=true, sets=[...]) to narrow"


def _within_budget(lines: list[str], tail: list[str]) -> str:
    """The lines, at most TEXT_BUDGET bytes: problem lines go first (check() has them all), then the text is cut."""
    text = "\n".join([*lines, *tail])
    if len(text.encode()) > TEXT_BUDGET:
        kept = [line for line in tail if not line.startswith(("problem: ", "… ") )]
        text = "\n".join([*lines, "problems: see check()", *kept])
    if len(text.encode()) > TEXT_BUDGET:
        text = text.encode()[:TEXT_BUDGET - 4].decode("utf-8", errors="ignore") + " …"
    return text


def _clip_bytes(text: str, limit: int) -> str:
    """`text` in at most `limit` bytes of UTF-8 (a wide character counts for what it takes)."""
    data = text.encode()
    return text if len(data) <= limit else data[:limit - 3].decode("utf-8", errors="ignore") + "…"


def _quoted(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _clip(text: str, limit: int = _DIGEST_CHARS) -> str:
    return one_line(" · ".join(part.strip() for part in text.strip().splitlines() if part.strip()), limit)


def set_names(project: Project | None) -> dict[tuple[str, str], str]:
    """Each set's name as the tools take it (`sets=[...]`, `set=`): its stem, `scope/stem` with several scopes."""
    if project is None:
        return {}
    several = len(project.scopes) > 1
    return {(s.scope, s.file_name): f"{s.scope}/{s.stem}" if several else s.stem for s in project.sets}


def failing_rows(results: Sequence[Result], digest: Digester, names: dict[tuple[str, str], str]) -> list[FailingRow]:
    """Every non-passing row, ERROR rows first, then FAIL, each in file order."""
    rows: list[FailingRow] = []
    for _key, group in results_by_row(results).items():
        verdict = row_verdict(r.verdict for r in group)
        if verdict is None or verdict is Verdict.PASS:
            continue
        failures = [(r.evaluator, _clip(digest(r) or r.verdict.value)) for r in group if not r.passed]
        first = group[0]
        name = names.get((first.scope, first.set_file), first.set_file)
        rows.append(FailingRow(name, first.label, first.row_id, verdict.value, failures))
    return sorted(rows, key=lambda row: row.verdict != Verdict.ERROR.value)


def flips_between(previous: Sequence[Result] | None, current: Sequence[Result], against: int | None) -> Flipped:
    """Rows fixed and newly failing since `previous` (only rows in both: a partial run is no removal)."""
    if previous is None:
        return Flipped()
    flips = compare_results(list(previous), list(current), only_current=True)
    fixed_rows = {r.row_key for r in flips.newly_passing}
    failing_now = {r.row_key for r in current if not r.passed}
    labels = {r.row_key: r.label for r in current}
    fixed = [labels[key] for key in dict.fromkeys(r.row_key for r in flips.newly_passing) if key not in failing_now]
    broke = [labels[key] for key in dict.fromkeys(r.row_key for r in flips.newly_failing) if key not in fixed_rows]
    return Flipped(fixed, broke, against)


def next_hint(failing: Sequence[FailingRow], green: bool, status: LoopStatus | None, labels: dict[str, int]) -> str:
    """One suggestion: the first failing row's full diff, or to stop."""
    if status is not None and status.stalled and not green:
        return (f"stalled — no progress in {counted(status.without_progress, 'iteration')}; rethink the fix or "
                "stop and report the per-row state")
    if green:
        return "all green — stop here and report"
    if not failing:
        return "fix the file problems above (check() lists them all)"
    first = failing[0]
    if labels.get(first.row, 0) > 1:
        return f"row(name={_quoted(first.row)}, set={_quoted(first.set)}) for the full diff of the first failing row"
    return f"row({_quoted(first.row)}) for the full diff of the first failing row"


def build_digest(results: Sequence[Result], project: Project | None, *, iteration: int | None,
                 complete: bool = True, problems: Sequence[Problem] = (), previous: Sequence[Result] | None = None,
                 previous_number: int | None = None, status: LoopStatus | None = None, rescored: int = 0,
                 trigger: str = "", duration_s: float = 0.0, rows_total: int | None = None) -> Digest:
    """The digest of `results`; `previous` (iteration `previous_number`) gives the flips."""
    digest: Digester = digests_of(project) if project is not None else (lambda r: r.detail)
    failing = failing_rows(results, digest, set_names(project))
    groups = results_by_row(results)
    verdicts = [row_verdict(r.verdict for r in group) for group in groups.values()]
    counts = {"total": len(results), "passed": sum(r.passed for r in results),
              "failed": sum(r.verdict is Verdict.FAIL for r in results),
              "errors": sum(r.verdict is Verdict.ERROR for r in results)}
    passing = verdicts.count(Verdict.PASS)
    errors = list(problems)
    selected_green = complete and bool(results) and passing == len(groups) and not error_problems(errors)
    # A narrowed run (rows, sets, tags, failing_only) is never the project's green: a fix that turned the
    # selected rows green may have broken the others, so the agent is told to run them all before stopping.
    left_out = len({s.key_of(r) for s in project.sets for r in s.rows} - set(groups)) if project is not None else 0
    green = selected_green and not left_out
    labels: dict[str, int] = {}
    if project is not None:
        for eval_set in project.sets:
            for row in eval_set.rows:
                labels[row.label] = labels.get(row.label, 0) + 1
    return Digest(
        iteration=iteration, complete=complete, rows_total=rows_total if rows_total is not None else len(groups),
        rows_passing=passing, rows_failing=verdicts.count(Verdict.FAIL), rows_erroring=verdicts.count(Verdict.ERROR),
        results=counts, rescored=rescored, ran=len(groups) - rescored, failing=failing[:MAX_ROWS],
        failing_total=len(failing), flips=flips_between(previous, results, previous_number), status=status,
        problems=errors, green=green, trigger=trigger, groups=same_failures(failing), left_out=left_out,
        next=(f"the selected rows pass, {counted(left_out, 'row')} of the project not run: run() with no sets, "
              "rows, tags or failing_only to check every row before stopping") if selected_green and left_out
        else next_hint(failing, green, status, labels),
        duration_s=duration_s, secrets=frozenset(Redactor().knowing(results).values))

