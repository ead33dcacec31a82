"""`workbench check`'s and `run --explain-reuse`'s words on re-scoring: which files are not looked at,
and for each row whether it is re-scored from its recorded run or runs, and why. Rows that share a
reason are told once, so a thousand re-scored rows are one line."""

from __future__ import annotations

from ..actions.reuse_explain import ReuseExplanation, RowReuse
from ..textsafe import one_line

_NAMED = 3


def format_reuse_files(explanation: ReuseExplanation) -> list[str]:
    lines = ["not watched or fingerprinted: " + " ".join([*explanation.always_ignored, *explanation.ignored])
             + "  ([watch] ignore adds globs; ignore_defaults = false keeps only the first five)"]
    if explanation.summarised:
        lines.append("fingerprinted by what is installed in them, not file by file: "
                     + ", ".join(explanation.summarised))
    return lines


def format_reuse_rows(explanation: ReuseExplanation) -> list[str]:
    if not explanation.rows:
        return []
    by_reason: dict[str, list[RowReuse]] = {}
    for row in explanation.rows:
        by_reason.setdefault(row.decision.reason, []).append(row)
    lines = ["re-scoring:"]
    for reason, rows in sorted(by_reason.items(), key=lambda item: (not item[1][0].decision.reused, item[0])):
        if len(rows) == 1:
            lines.append(one_line(f"  {rows[0].set_name} › {rows[0].row}: {reason}", 400))
            continue
        names = ", ".join(f"{r.set_name} › {r.row}" for r in rows[:_NAMED])
        more = f", … {len(rows) - _NAMED} more" if len(rows) > _NAMED else ""
        lines.append(one_line(f"  {len(rows)} rows ({names}{more}): {reason}", 400))
    return lines
