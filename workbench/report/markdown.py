"""The Markdown digest of a run (`run --md FILE`, `workbench report --md`): for a pull-request comment or
`$GITHUB_STEP_SUMMARY`. Counts, the gate, the failing rows with their first differences (each format's
account, `Digests.digest`), the flips since the previous iteration and the file problems — at most
`MAX_LINES` lines whatever the project: what doesn't fit is counted.

Everything that comes from the user's files or the target's output (row and set names, digests, problem
messages) is escaped (`md_text`): a `|` can't break the table, a backtick can't open code, `<script>` is text,
`@someone` mentions no one and `#12` links no issue. And every such text is redacted first (`redact.py`: the
project's secrets, and what the outputs hold under secret-named keys), before it is clipped or escaped, so
neither a clipped nor an escaped secret is left to be recognised.
"""

from __future__ import annotations

import re

from ..actions.share_run import SharedRun
from ..history import compare_results
from ..model import Verdict, error_problems, results_by_row, row_verdict
from ..textsafe import counted, one_line
from .failing_rows import FailingRow, failing_rows
from .redact import Redactor

MAX_LINES = 60
_CELL_CHARS = 200
_NAME_CHARS = 80
_FLIPS_NAMED = 8
_PROBLEMS_SHOWN = 5
_MARKS = {Verdict.PASS: "✅", Verdict.FAIL: "❌", Verdict.ERROR: "⚠️"}

# Inside a line (every escaped text here is), these would format, link or break a cell; CommonMark lets any
# ASCII punctuation be backslash-escaped (`$`: GitHub's math). `#` (an issue link), `@` (a mention), `:` (an
# autolink, an emoji code) and HTML's `<>&` become entities.
_PUNCTUATION = re.compile(r"([\\`*_\[\]|~$])")
_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", "@": "&#64;", ":": "&#58;", "#": "&#35;"}


def md_text(text: str, limit: int = _CELL_CHARS) -> str:
    """`text` as one line of plain Markdown text (a table cell too): control characters made visible,
    clipped to `limit`, Markdown punctuation escaped, HTML's `<>&` as entities, `@` and `:` too (no mention,
    no autolink)."""
    clipped = one_line(text, limit)
    escaped = _PUNCTUATION.sub(r"\\\1", clipped)
    return "".join(_ENTITIES.get(char, char) for char in escaped)


def first_difference(text: str) -> str:
    """A format's account of a failure, its lines joined: the first differences it names come first."""
    return " · ".join(part.strip() for part in text.strip().splitlines() if part.strip())


def markdown_digest(run: SharedRun, redactor: Redactor | None = None) -> str:
    """The digest, at most MAX_LINES lines, with `redactor`'s secrets (the project's: `redact.redactor_for`)
    and those the run's outputs hold under secret-named keys redacted."""
    known = (redactor or Redactor()).knowing([*run.results, *(run.previous or ())])
    head = _head(run, known)
    failing = failing_rows(run.results, run.project)
    tail = [*_flips(run, known), *_problems(run, known)]
    budget = MAX_LINES - len(head) - len(tail)
    table = _table(failing, budget, known)
    lines = [*head, *table, *tail]
    if len(lines) > MAX_LINES:  # the head and the tail alone are over: keep their start and count the rest
        lines = [*lines[:MAX_LINES - 1], f"… {len(lines) - MAX_LINES + 1} more lines not shown"]
    return "\n".join(lines) + "\n"


def _md(redactor: Redactor, text: str, limit: int = _CELL_CHARS) -> str:
    """`md_text` of `text` redacted."""
    return md_text(redactor.text(text), limit)


def _head(run: SharedRun, redactor: Redactor) -> list[str]:
    rows = results_by_row(run.results)
    verdicts = [row_verdict(r.verdict for r in group) for group in rows.values()]
    passing = verdicts.count(Verdict.PASS)
    where = f" · iteration {run.iteration}" if run.iteration is not None else ""
    if run.gate_passed is None:
        state = "✅ green" if run.complete and rows and passing == len(rows) and not error_problems(run.problems) \
            else "❌ not green"
    else:
        state = "✅ gate passed" if run.gate_passed else "❌ gate failed"
    lines = [f"## {_md(redactor, run.title, 80)}: {state}{where}", ""]
    passed_results = sum(r.passed for r in run.results)
    parts = [f"**{passing}/{len(rows)} rows pass**"]
    if verdicts.count(Verdict.FAIL):
        parts.append(f"{verdicts.count(Verdict.FAIL)} failing")
    if verdicts.count(Verdict.ERROR):
        parts.append(counted(verdicts.count(Verdict.ERROR), "error"))
    parts.append(f"{passed_results}/{len(run.results)} results")
    flaky = len({r.row_key for r in run.results if r.flaky})
    if flaky:
        parts.append(f"{flaky} flaky")
    if run.rescored:
        parts.append(f"{run.rescored} re-scored")
    parts.append(f"{run.duration_s:.1f}s")
    if not run.complete:
        parts.append("cancelled before it finished")
    lines.append(" · ".join(parts))
    reasons = [*run.gate_reasons]
    if run.gate_passed is False and reasons:
        lines += ["", "Gate failed: " + "; ".join(_md(redactor, reason, 300) for reason in reasons[:4])
                  + (f"; and {len(reasons) - 4} more" if len(reasons) > 4 else "")]
    for line in [*run.gate_lines][:4]:
        lines.append(f"- {_md(redactor, line, 300)}")
    for warning in [*run.gate_warnings][:2]:
        lines.append(f"- warning: {_md(redactor, warning, 300)}")
    return lines


def _table(failing: list[FailingRow], budget: int, redactor: Redactor) -> list[str]:
    if not failing:
        return []
    header = ["", f"### Failing rows ({len(failing)})", "", "| | set | row | first difference |", "|---|---|---|---|"]
    room = budget - len(header) - 2  # two lines kept for the count of the rest
    if room < 1:
        return ["", f"{counted(len(failing), 'failing row')} (not listed: see the full report)"]
    shown = failing if len(failing) <= room + 1 else failing[:room]
    lines = [*header]
    for row in shown:
        mark = f"{_MARKS[row.verdict]} {row.verdict.value}"
        accounts = "; ".join(f"[{ref}] {first_difference(text)}" for ref, text in row.failures[:2])
        more = f" (+{len(row.failures) - 2} more evaluators)" if len(row.failures) > 2 else ""
        lines.append(f"| {mark} | {_md(redactor, row.set_name, _NAME_CHARS)} | {_md(redactor, row.name, _NAME_CHARS)} "
                     f"| {_md(redactor, accounts)}{more} |")
    if len(shown) < len(failing):
        lines += ["", f"… and {len(failing) - len(shown)} more failing rows (see the full report)"]
    return lines


def _flips(run: SharedRun, redactor: Redactor) -> list[str]:
    if run.previous is None or run.previous_number is None:
        return []
    flips = compare_results(list(run.previous), list(run.results), only_current=True)
    failing_now = {r.row_key for r in run.results if not r.passed}
    labels = {r.row_key: r.label for r in run.results}
    fixed_keys = {r.row_key for r in flips.newly_passing}
    fixed = [labels[k] for k in dict.fromkeys(r.row_key for r in flips.newly_passing) if k not in failing_now]
    broke = [labels[k] for k in dict.fromkeys(r.row_key for r in flips.newly_failing) if k not in fixed_keys]
    lines = ["", f"### Since iteration {run.previous_number}", ""]
    if not fixed and not broke:
        return [*lines, "No row flipped."]
    for title, names in (("fixed", fixed), ("newly failing", broke)):
        if names:
            shown = ", ".join(_md(redactor, name, 60) for name in names[:_FLIPS_NAMED])
            extra = f" and {len(names) - _FLIPS_NAMED} more" if len(names) > _FLIPS_NAMED else ""
            lines.append(f"- {title} ({len(names)}): {shown}{extra}")
    return lines


def _problems(run: SharedRun, redactor: Redactor) -> list[str]:
    problems = error_problems(run.problems)
    if not problems:
        return []
    lines = ["", f"### File problems ({len(problems)})", ""]
    for problem in problems[:_PROBLEMS_SHOWN]:
        lines.append(f"- {_md(redactor, problem.file, 120)}: {_md(redactor, problem.message, 240)}")
    if len(problems) > _PROBLEMS_SHOWN:
        lines.append(f"- … and {len(problems) - _PROBLEMS_SHOWN} more (`workbench check` lists them all)")
    return lines
