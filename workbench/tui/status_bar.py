"""The status line: watching, paused or stopped by an error, iteration, progress, last result, stalled warning."""

from __future__ import annotations

from rich.text import Text
from textual.widget import Widget

from ..progress import IterationSummary
from ..textsafe import one_line


class StatusBar(Widget):
    """One line; repainted in place (no layout pass) because it changes many times a second."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self._text = Text("")

    def render(self) -> Text:
        return self._text

    def render_status(self, *, project: str, watching: bool, paused: bool, running: bool, done: int, total: int,
                      iteration: int | None, last: IterationSummary | None, failures_only: bool,
                      name_filter: str, watch_stopped: bool = False) -> None:
        text = Text(f" workbench · {one_line(project, 40)} ", "bold")
        if watch_stopped:
            text.append(" ✖ watching stopped by an error — w restarts ", "bold white on red")
        elif not watching:
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
            rows = "re-run rows pass" if last.partial else "rows pass"  # `r` runs a few rows, not all of them
            text.append(f"  · {last.rows_passed}/{last.rows_total} {rows}", style)
            if last.change:
                text.append(f" ({last.change:+d})", style)
            if last.reused:
                text.append(f"  ↺ {last.reused} re-scored, {last.ran} run", "dim")
            if last.stalled_for:
                text.append(f"  ⚠ stalled: no improvement for {last.stalled_for} iterations", "bold yellow")
        if failures_only:
            text.append("  [failures only]", "bold magenta")
        if name_filter:
            text.append(f"  [filter: {one_line(name_filter, 30)}]", "bold magenta")
        if text != self._text:
            self._text = text
            self.refresh()
