"""F1 / `?`: every key, with what it does, generated from the bindings so it can't drift.

Keys and descriptions sit in two columns, so a description that wraps (at 80 columns) stays in its
column instead of running back to the left edge; a key bound twice (`w` pauses and resumes) is listed once.
A pane's own keys (`d` in the history tab, `,` `.` in the detail) are listed with where they work."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.table import Table
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
    ("↑ ↓ PgUp PgDn Home End", "in the detail: scroll it (the mouse wheel too); a failing row opens at its "
                               "first difference"),
    ("← → [ ]", "in the detail: previous / next evaluator of the row"),
    ("Esc", "back to the rows (from the detail or the filter box); close this help"),
    ("Tab / Shift+Tab", "move focus between panes"),
    ("ctrl+p", "command palette: rare actions (re-run failures, expand all, copy expected, ...)"),
]
KEY_NAMES = {"question_mark": "?", "full_stop": ".", "comma": ",", "slash": "/", "plus": "+", "escape": "Esc",
             "exclamation_mark": "!"}


def describe_bindings(bindings: list[BindingType]) -> list[tuple[str, str]]:
    """(keys, what they do) per binding with a description, each key listed once: the first binding of
    a key describes it (`w` pause / resume is one line)."""
    rows: list[tuple[str, str]] = []
    seen: set[str] = set()
    for binding in bindings:
        if not isinstance(binding, Binding) or not binding.description or binding.key in seen:
            continue
        seen.add(binding.key)
        keys = " ".join(KEY_NAMES.get(k, k) for k in binding.key.split(","))
        rows.append((keys, binding.tooltip or binding.description))
    return rows


def describe_pane_keys(where: str, bindings: list[BindingType]) -> list[tuple[str, str]]:
    """A pane's own keys (those with a tooltip), each said to work `where` (`d` in the history tab)."""
    return [(keys, f"{where}: {text}") for keys, text in describe_bindings(
        [b for b in bindings if isinstance(b, Binding) and b.tooltip])]


class HelpScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q,question_mark,f1", "dismiss", "Close", show=False)]

    def __init__(self, bindings: list[BindingType], panes: tuple[tuple[str, list[BindingType]], ...] = (),
                 **kwargs: Any) -> None:
        """`bindings`: the screen's keys; `panes`: (where, bindings) of keys that work in one pane only."""
        super().__init__(**kwargs)
        rows = dict(describe_bindings(bindings))
        for where, keys in panes:  # a pane's own meaning of a key the screen has too joins that key's line
            for key, text in describe_pane_keys(where, keys):
                rows[key] = f"{rows[key]}; {text}" if key in rows else text
        self.rows = [*rows.items(), *NAVIGATION]

    @property
    def plain_text(self) -> str:
        """What the help says, one key per line (for tests and screen readers)."""
        return "\n".join(f"{keys}  {description}" for keys, description in self.rows)

    def compose(self) -> ComposeResult:
        table = Table.grid(padding=(0, 2), expand=True)
        table.add_column(justify="right", style="bold cyan", max_width=14)
        table.add_column(ratio=1)
        for keys, description in self.rows:
            table.add_row(Text(keys), Text(description))
        with VerticalScroll(id="help-box"):
            title = Text("workbench keys", "bold")
            title.append("   Esc, q or ? closes this help", "dim")  # said first: the list can be longer than the screen
            yield Static(title, id="help-title")
            yield Static(table, id="help-text")
            yield Static(Text("Press Esc to close.", "dim"), id="help-close")
