"""The loop's memory between iterations: what got fixed, what broke, whether it is stalled, when it
should stop, and the per-row state it ends on.

Feeds the one-line-per-iteration report of the watch loop (in the spirit of seed 003's
"iteration 2: 3/4 rows pass; fixing row 'unpaid invoice' (expected status `unpaid`, got `paid`)") and
the loop's stop rules (§3: stop on all green, stop on no progress, always end with a per-row summary).
Rows are the unit here: a row passes when every evaluator on it passes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .events import IterationReport, Trigger
from .model import Problem, Result, RowKey, Verdict, error_problems, is_green, results_by_row, row_passes, row_verdict
from .textsafe import counted, one_line

_NAMES_SHOWN = 3
_PASSING_ROWS_LISTED = 50  # the final summary lists every failing row, and passing ones up to this many


@dataclass(slots=True)
class RowState:
    label: str
    passed: bool
    reason: str = ""  # the first line of the first non-passing result's detail
    verdict: Verdict = Verdict.PASS

    @property
    def why(self) -> str:
        """The reason as the progress line gives it: an ERROR says so."""
        return f"ERROR: {self.reason}" if self.verdict is Verdict.ERROR else self.reason


@dataclass(slots=True)
class IterationSummary:
    number: int | None
    trigger: Trigger
    rows_passed: int
    rows_total: int
    duration_s: float
    change: int | None = None
    fixed: list[str] = field(default_factory=list)
    broke: list[str] = field(default_factory=list)
    failing: list[tuple[str, str]] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    stalled_for: int = 0
    partial: bool = False
    reused: int = 0  # rows re-scored from their last run (nothing but evals/ changed)
    ran: int = 0

    @property
    def green(self) -> bool:
        """Every row passed and no file has an error (`model.is_green`, counted in rows)."""
        return is_green(self.rows_passed, self.rows_total, self.problems)


def row_states(results: list[Result]) -> dict[RowKey, RowState]:
    """Per row: passed when every result passed; the reason is the first failing result's first line."""
    rows: dict[RowKey, RowState] = {}
    for key, group in results_by_row(results).items():
        state = rows[key] = RowState(group[0].label, row_passes(group))
        state.verdict = row_verdict(r.verdict for r in group) or Verdict.ERROR
        failing = next((r for r in group if not r.passed), None)
        if failing is not None:
            detail = failing.detail.strip()
            state.reason = detail.splitlines()[0] if detail else failing.verdict.value
    return rows


class LoopTracker:
    """Compares each iteration with what the loop knew before it, and counts stalls.

    A stall is a run of full iterations that each pass no more rows than the one before and no more
    than the best count so far; any iteration that passes more rows than the one before ends it.
    """

    def __init__(self, stall_after: int = 3, known: list[Result] | None = None) -> None:
        self.stall_after = stall_after
        self.known: dict[RowKey, RowState] = row_states(known or [])
        self.best_passed: int | None = sum(s.passed for s in self.known.values()) if known else None
        self.without_progress = 0
        self.last: IterationSummary | None = None  # the newest full iteration's summary
        self._seeded = bool(known)  # `known` came from history: narrowed to the rows of the first full iteration

    def update(self, report: IterationReport, partial: bool = False) -> IterationSummary:
        current = row_states(report.results)
        summary = IterationSummary(
            number=report.number, trigger=report.trigger,
            rows_passed=sum(s.passed for s in current.values()), rows_total=len(current),
            duration_s=report.duration_s, problems=list(report.problems), partial=partial,
            reused=report.reused_rows, ran=report.ran_rows)
        previous = self.known
        for key, state in current.items():
            before = previous.get(key)
            if state.passed and before is not None and not before.passed:
                summary.fixed.append(state.label)
            elif not state.passed:
                if before is not None and before.passed:
                    summary.broke.append(state.label)
                summary.failing.append((state.label, state.why))
        if partial:
            self.known = {**previous, **current}
            return summary
        # Only the rows this iteration ran are compared: a --tag/--type session seeded with the last full
        # iteration of the whole project must not read the rows it leaves out as lost (`1/1 rows pass (-1)`).
        compared = {key: previous[key] for key in current if key in previous}
        if self._seeded:
            self._seeded = False
            self.best_passed = sum(s.passed for s in compared.values()) if compared else None
        if previous:
            summary.change = summary.rows_passed - sum(s.passed for s in compared.values())
        self.known = current
        improved = (summary.change or 0) > 0 or self.best_passed is None or summary.rows_passed > self.best_passed
        self.without_progress = 0 if summary.green or improved else self.without_progress + 1
        self.best_passed = max(self.best_passed or 0, summary.rows_passed)
        if self.without_progress >= self.stall_after:
            summary.stalled_for = self.without_progress
        self.last = summary
        return summary


# -- when the loop stops -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LoopEnd:
    """Why the loop stopped, and the exit status that says whether it ended green."""

    reason: str
    exit_code: int


@dataclass(frozen=True, slots=True)
class StopRules:
    """`--until-green`, `--max-iterations N`, `--stop-on-stall`. Only full iterations count."""

    until_green: bool = False
    max_iterations: int | None = None
    stop_on_stall: bool = False

    @property
    def any(self) -> bool:
        return self.until_green or self.max_iterations is not None or self.stop_on_stall

    def check(self, summary: IterationSummary, completed: int) -> LoopEnd | None:
        """The end of the loop after `summary` (the `completed`-th full iteration), or None to go on."""
        if summary.partial:
            return None
        if self.until_green and summary.green:
            return LoopEnd("all green", 0)
        if self.stop_on_stall and summary.stalled_for:
            return LoopEnd(f"stalled: no improvement in passes for {counted(summary.stalled_for, 'iteration')}", 1)
        if self.max_iterations is not None and completed >= self.max_iterations:
            green = summary.green
            reason = f"reached --max-iterations {self.max_iterations}" + (" (all green)" if green else " (not green)")
            return LoopEnd(reason, 0 if green else 1)
        return None


# -- what gets printed -------------------------------------------------------------------------------


def _names(labels: list[str]) -> str:
    shown = "; ".join(f"'{one_line(label, 60)}'" for label in labels[:_NAMES_SHOWN])
    return shown + (f" (+{len(labels) - _NAMES_SHOWN} more)" if len(labels) > _NAMES_SHOWN else "")


def _problems_part(problems: list[Problem]) -> str | None:
    """The first file error, named with its message (`run` prints the same), and how many more."""
    errors = error_problems(problems)
    if not errors:
        return None
    first = errors[0]
    text = f"problem: {one_line(first.file, 80)}: {one_line(first.message, 160)}"
    if len(errors) > 1:
        text += f" (+{len(errors) - 1} more file problem{'s' if len(errors) > 2 else ''})"
    return text


def progress_line(summary: IterationSummary) -> str:
    """`iteration 3 (changed grade.py): 3/4 rows pass (+1) in 0.8s — fixed: 'x'; still failing: 'y' (why)`."""
    head = f"iteration {summary.number}" if summary.number is not None else "iteration"
    head += f" ({one_line(summary.trigger.describe(), 80)})"
    count = f"{summary.rows_passed}/{summary.rows_total} rows pass"
    if summary.partial:
        count = f"{summary.rows_passed}/{summary.rows_total} re-run rows pass"
    elif summary.change:
        count += f" ({summary.change:+d})"
    parts = [f"{head}: {count} in {summary.duration_s:.1f}s"]
    if summary.reused:
        parts[0] += f" ({summary.reused} re-scored, {summary.ran} run)"
    if summary.fixed:
        parts.append(f"fixed: {_names(summary.fixed)}")
    if summary.broke:
        parts.append(f"newly failing: {_names(summary.broke)}")
    still = [(label, reason) for label, reason in summary.failing if label not in summary.broke]
    if still:
        first_label, first_reason = still[0]
        text = f"still failing: '{one_line(first_label, 60)}' ({one_line(first_reason, 100)})"
        if len(still) > 1:
            text += f" (+{len(still) - 1} more)"
        parts.append(text)
    problems = _problems_part(summary.problems)
    if problems:
        parts.append(problems)
    if summary.green:
        parts.append("all green")
    if summary.stalled_for:
        parts.append(f"stalled: no improvement in passes for {counted(summary.stalled_for, 'iteration')}")
    return " — ".join(parts)


def final_summary(tracker: LoopTracker, end: str | None = None) -> list[str]:
    """The loop's last words: why it stopped, then every row of the final state with its verdict and
    one-line reason (every failing row; passing rows up to a limit), then the file errors."""
    last = tracker.last
    head = f"stopped ({end})" if end else "stopped"
    if last is None:  # no iteration of this loop completed: there is no state of its own to show
        return [head]
    rows = tracker.known
    passed = sum(state.passed for state in rows.values())
    where = f"after iteration {last.number}" if last.number is not None else "after the last iteration"
    lines = [f"{head} — final state {where}: {passed}/{len(rows)} rows pass"]
    show_scope = len({key.scope for key in rows}) > 1
    listed_passing = 0
    for key, state in rows.items():
        if state.passed:
            listed_passing += 1
            if listed_passing > _PASSING_ROWS_LISTED:
                continue
        set_name = key.set.shown(show_scope)
        line = f"  {state.verdict.value:<5}  {one_line(set_name, 60)} › {one_line(state.label, 80)}"
        if not state.passed:
            line += f" — {one_line(state.reason, 160)}"
        lines.append(line)
    if listed_passing > _PASSING_ROWS_LISTED:
        lines.append(f"  … and {listed_passing - _PASSING_ROWS_LISTED} more passing rows")
    for problem in error_problems(last.problems):
        lines.append(f"  problem: {one_line(problem.file, 80)}: {one_line(problem.message, 200)}")
    return lines
