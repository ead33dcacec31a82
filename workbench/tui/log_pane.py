"""The live run log: the selected row's log (a command target's stderr, the uip debug log), streamed
while it runs and kept afterwards."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import Log

from ..model import RowKey
from ..textsafe import one_line, printable


class RunLog(Log):
    """Shows one row's log at a time; lines are sanitised, never interpreted."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(max_lines=5000, highlight=False, **kwargs)
        self.row: RowKey | None = None

    def show(self, row: RowKey | None, lines: list[str], label: str) -> None:
        self.row = row
        self.clear()
        self.border_title = Text(f"Log — {one_line(label, 80)}" if row else "Log")  # Text: never markup
        if row is None:
            self.write_line("Select a row to see its log.")
        elif not lines:
            self.write_line("(no log output)")
        else:
            self.write_lines([printable(line, keep_newlines=False) for line in lines])

    def append(self, row: RowKey, lines: list[str]) -> None:
        if row == self.row and lines:
            self.write_lines([printable(line, keep_newlines=False) for line in lines])
