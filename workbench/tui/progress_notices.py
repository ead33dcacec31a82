"""What the user is told when an iteration is recorded: files that could not be read, a loop that stalled."""

from __future__ import annotations

from textual.notifications import SeverityLevel

from ..events import IterationReport
from ..progress import IterationSummary
from ..textsafe import counted, one_line
from .path_text import shown_path


def iteration_notices(report: IterationReport, summary: IterationSummary) -> list[tuple[str, SeverityLevel]]:
    """(text, severity) of each notice, most urgent first."""
    notices: list[tuple[str, SeverityLevel]] = []
    errors = [p for p in report.problems if p.severity == "error"]
    if errors:
        notices.append((f"{len(errors)} file problem{'s' if len(errors) != 1 else ''}: "
                        f"{shown_path(errors[0].file, 60)} — {one_line(errors[0].message, 120)}", "error"))
    if summary.stalled_for:
        notices.append((f"Stalled: no improvement in passes for {counted(summary.stalled_for, 'iteration')}",
                        "warning"))
    return notices
