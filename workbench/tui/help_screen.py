"""F1 / `?`: every key, with what it does, generated from the bindings so it can't drift."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

NAVIGATION = [
    ("↑ ↓  j k", "move between rows (eval sets pane)"),
    ("Enter", "on a row: focus its detail · on a set: expand or collapse it"),
    ("Space", "expand or collapse a set"),
    ("← → [ ]", "in the detail: previous / next evaluator of the row"),
    ("Esc", "back to the rows (from the detail or the filter box); close this help"),
    ("Tab / Shift+Tab", "move focus between panes"),
    ("ctrl+p", "command palette: rare actions (re-run failures, expand all, copy expected, ...)"),
]


def _describe(bindings: list[BindingType]) -> list[tuple[str, str]]:
    rows = []
    for binding in bindings:
        if not isinstance(binding, Binding) or not binding.description:
            continue
        names = {"question_mark": "?", "full_stop": ".", "slash": "/", "plus": "+", "escape": "Esc"}
        keys = " ".join(names.get(k, k) for k in binding.key.split(","))
        rows.append((keys, binding.tooltip or binding.description))
    return rows


class HelpScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q,question_mark,f1", "dismiss", "Close", show=False)]

    def __init__(self, bindings: list[BindingType], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.bindings = bindings

    def compose(self) -> ComposeResult:
        text = Text("workbench keys\n\n", "bold")
        for keys, description in [*_describe(self.bindings), *NAVIGATION]:
            text.append(f"{keys:>18}  ", "bold cyan")
            text.append(f"{description}\n")
        text.append("\nPress Esc to close.", "dim")
        with VerticalScroll(id="help-box"):
            yield Static(text, id="help-text")
