"""The live run log: the selected row's log (a command target's stderr, the uip debug log), streamed
while it runs and kept afterwards, each run under its own header (`row_logs.py`). It follows the newest
line unless the user scrolled up; scrolling back to the bottom follows again. The screen tells it where the
sets pane's cursor went (`follow`) and passes RunState's changes on (`state_changed`); it says when its
number of lines changed (`LinesChanged`), so the screen sizes the bottom tabs by it."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.message import Message
from textual.widgets import Log

from ..model import RowKey
from ..textsafe import one_line, printable
from .row_logs import RowLogs
from .settling import Settling
from .state import Changes, RunState

NO_OUTPUT = "(no log output yet)"


class RunLog(Settling, Log):
    """Shows one row's log at a time; lines are sanitised, never interpreted. It remembers how many of
    the row's lines it has shown, so catching up appends each line once, whatever the order in which
    the selection and the engine's batched updates arrive.

    Following is its own state, not Log's "was at the bottom before this write": a long line brings a
    horizontal scrollbar a moment after it is written (Log measures widths in a thread), which takes a
    line of the height, leaves the view one line short of the bottom, and Log would stop following."""

    class LinesChanged(Message):
        """The log shows another number of lines (`lines`): the screen fits the bottom tabs to it."""

        def __init__(self, lines: int) -> None:
            super().__init__()
            self.lines = lines

    def __init__(self, state: RunState, **kwargs: Any) -> None:
        super().__init__(max_lines=5000, highlight=False, auto_scroll=False, **kwargs)
        self.state = state
        self.row: RowKey | None = None
        self.following = True  # the view keeps to the newest line (the user has not scrolled up)
        self._shown = 0  # lines of the row's log shown so far (RowLogs.added when last drawn)
        self._placeholder = False  # the pane shows a note instead of log lines
        self._moving = False  # the log itself is scrolling (to the newest line), not the user
        self._announced = 0  # the number of lines the screen was last told of

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if not self._moving and self.max_scroll_y:
            self.following = round(new_value) >= self.max_scroll_y  # up: stop; back at the bottom: follow

    def watch_virtual_size(self) -> None:
        self._keep_following()

    def watch_show_horizontal_scrollbar(self) -> None:
        self._keep_following()

    def on_resize(self) -> None:
        self._keep_following()

    def _keep_following(self) -> None:
        """The content or the room for it changed: stay on the newest line, now and once laid out."""
        if self.following:
            self._to_newest()
            self.defer(self._to_newest)

    def _to_newest(self) -> None:
        if not self.following:
            return
        self._moving = True
        try:
            self.scroll_end(animate=False, immediate=True, x_axis=False)
        finally:
            self._moving = False

    def follow(self, key: RowKey | None) -> None:
        """The selection moved: another row's whole log, or what the same row's gained."""
        if key is None or key != self.row:
            self.show(key, self.state.logs, self.state.label_of(key) if key else "")
        else:
            self.catch_up(key, self.state.logs, self.state.label_of(key))

    def state_changed(self, changes: Changes) -> None:
        """The shown row's log has new lines: append them."""
        if self.row is not None and self.row in changes.logs:
            self.catch_up(self.row, self.state.logs, self.state.label_of(self.row))

    def show(self, row: RowKey | None, logs: RowLogs, label: str) -> None:
        """Draw `row`'s whole log (the selection moved): it opens on its newest lines."""
        self.row = row
        self.clear()
        self.following = True
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
        self._announce()

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
        self.write_lines([printable(line, keep_newlines=False) for line in lines], scroll_end=False)
        self._keep_following()
        self._announce()

    def _announce(self) -> None:
        if self.line_count != self._announced:
            self._announced = self.line_count
            self.post_message(self.LinesChanged(self.line_count))
