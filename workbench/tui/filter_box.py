"""`/`: the box that filters rows by name. Enter keeps the filter; Esc clears it; both go back to the rows."""

from __future__ import annotations

from typing import Any, ClassVar

from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import Input


class NameFilter(Input):
    class Closed(Message):
        """The box closed (Enter or Esc): the keys go back to the rows."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "clear", "Clear the filter", show=False)]

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(placeholder="filter by name, tag:NAME or type:NAME — Enter keeps it, Esc clears", **kwargs)

    def open(self) -> None:
        self.display = True
        self.focus()

    def close(self) -> None:
        """Hide the box unless it holds a filter, and give the keys back to the rows."""
        self.display = bool(self.value.strip())
        self.post_message(self.Closed())

    def action_clear(self) -> None:
        self.value = ""
        self.close()
