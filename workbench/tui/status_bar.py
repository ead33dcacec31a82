"""The status line: watching or paused, iteration, progress, last result, stalled warning."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from ..progress import IterationSummary
from ..textsafe import one_line


class StatusBar(Static):
    def render_status(self, *, project: str, watching: bool, paused: bool, running: bool, done: int, total: int,
                      iteration: int | None, last: IterationSummary | None, failures_only: bool,
                      name_filter: str) -> None:
        text = Text(f" workbench · {one_line(project, 40)} ", "bold")
        if not watching:
            text.append(" ○ not watching ", "dim")
        elif paused:
            text.append(" ⏸ paused ", "bold black on yellow")
        else:
            text.append(" ● watching ", "bold green")
        if running:
            text.append(f"  ◐ running {done}/{total} rows", "bold cyan")
        if iteration is not None:
            text.append(f"  · iteration {iteration}")
        if last is not None:
            style = "green" if last.all_green else "red"
            text.append(f"  · {last.rows_passed}/{last.rows_total} rows pass", style)
            if last.change:
                text.append(f" ({last.change:+d})", style)
            if last.stalled_for:
                text.append(f"  ⚠ stalled: no improvement for {last.stalled_for} iterations", "bold yellow")
        if failures_only:
            text.append("  [failures only]", "bold magenta")
        if name_filter:
            text.append(f"  [filter: {one_line(name_filter, 30)}]", "bold magenta")
        self.update(text)
