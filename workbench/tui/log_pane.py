"""The live run log: the selected row's log (a command target's stderr, the uip debug log), streamed
while it runs and kept afterwards, each run under its own header (`row_logs.py`)."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import Log

from ..model import RowKey
from ..textsafe import one_line, printable
from .row_logs import RowLogs

NO_OUTPUT = "(no log output yet)"


class RunLog(Log):
    """Shows one row's log at a time; lines are sanitised, never interpreted. It remembers how many of
    the row's lines it has shown, so catching up appends each line once, whatever the order in which
    the selection and the engine's batched updates arrive."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(max_lines=5000, highlight=False, **kwargs)
        self.row: RowKey | None = None
        self._shown = 0  # lines of the row's log shown so far (RowLogs.added when last drawn)
        self._placeholder = False  # the pane shows a note instead of log lines

    def show(self, row: RowKey | None, logs: RowLogs, label: str) -> None:
        """Draw `row`'s whole log (the selection moved)."""
        self.row = row
        self.clear()
        self.border_title = Text(f"Log — {one_line(label, 80)}" if row else "Log")  # Text: never markup
        lines = logs.lines(row) if row is not None else []
        self._shown = logs.added(row) if row is not None else 0
        self._placeholder = not lines
        if row is None:
            self.write_line("Select a row to see its log.")
        elif not lines:
            self.write_line(NO_OUTPUT)
        else:
            self._write(lines)

    def catch_up(self, row: RowKey, logs: RowLogs, label: str) -> None:
        """Append what `row`'s log gained since it was drawn (redraw when that can't be told)."""
        if row != self.row:
            return
        new = logs.since(row, self._shown)
        if new is None or (self._placeholder and new):
            self.show(row, logs, label)
        elif new:
            self._shown += len(new)
            self._write(new)

    def _write(self, lines: list[str]) -> None:
        self.write_lines([printable(line, keep_newlines=False) for line in lines])
