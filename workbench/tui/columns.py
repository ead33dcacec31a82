"""Tables whose columns fit the pane: at 80 columns the history and evaluators tabs would otherwise scroll
sideways or cut names off unmarked. Each column says how far it may shrink and when it may go: the
widest shrinkable columns give way first (their cells end in `…`), then whole columns are left out, the
least important first; only a pane too narrow for what is left scrolls.

A list cell (`Names`: the sets using an evaluator, the paths it compares) is cut between items, never
inside a name: `bands.json, +1 more`, or `3 sets`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.widgets import DataTable

from ..textsafe import counted, one_line

ELLIPSIS = "…"


@dataclass(frozen=True, slots=True)
class Column:
    """A column and how it gives way at a narrow width: at each level, highest first, the columns with that
    `give` are cut (evenly, the widest first) down to `shrink_to`, then those with that `drop` are left out."""

    label: str
    shrink_to: int | None = None  # the narrowest it may be cut to (with …); None: never cut
    give: int = 0  # the level at which it is cut
    drop: int = 0  # the level at which it is left out; 0: never


def clip(text: Text, width: int) -> Text:
    """`text` in at most `width` cells, ending in `…` when it was cut."""
    if text.cell_len <= width:
        return text
    cut = text.copy()
    cut.truncate(max(width, 1), overflow="ellipsis")
    return cut


def clip_items(items: Sequence[str], width: int, *, noun: str = "", separator: str = ", ") -> Text:
    """As many whole items as fit in `width`, then `+N more`; when not even the first fits, how many there
    are (`3 sets`): a name is never cut in the middle, unless it is the only one (then with `…`)."""
    names = [one_line(item, 200) for item in items]
    whole = separator.join(names)
    if len(whole) <= width or not names:
        return Text(whole)
    for count in range(len(names) - 1, 0, -1):
        shown = f"{separator.join(names[:count])}{separator}+{len(names) - count} more"
        if len(shown) <= width:
            return Text(shown)
    how_many = counted(len(names), noun) if noun else f"{len(names)} of them"
    return Text(how_many) if len(names) > 1 and len(how_many) <= width else clip(Text(names[0]), width)


@dataclass(frozen=True, slots=True)
class Names:
    """A cell listing names (sets, paths), cut between them: `bands.json, +1 more`, or `3 sets`."""

    items: tuple[str, ...]
    noun: str = ""  # what they are, to count them when not even one fits

    @property
    def natural(self) -> int:
        return len(", ".join(self.items))


def fit(columns: Sequence[Column], natural: Sequence[int], width: int, padding: int) -> list[int | None]:
    """Each column's width for a table `width` cells wide (None: left out). Columns cost their width plus
    `padding` on either side."""
    widths: list[int | None] = list(natural)

    def total() -> int:
        return sum(w + 2 * padding for w in widths if w is not None)

    levels = sorted({c.give for c in columns if c.shrink_to is not None} | {c.drop for c in columns if c.drop},
                    reverse=True)
    for level in levels:
        while total() > width:
            slack = [(w - c.shrink_to, -i) for i, (w, c) in enumerate(zip(widths, columns, strict=True))
                     if w is not None and c.shrink_to is not None and c.give == level and w > c.shrink_to]
            if not slack:
                break
            index = -max(slack)[1]  # one cell off the column with the most to give (the leftmost of equals)
            current = widths[index]
            assert current is not None
            widths[index] = current - 1
        for index, column in enumerate(columns):
            if total() > width and column.drop == level:
                widths[index] = None
        if total() <= width:
            break
    room = width - total()  # a column left out may have made more room than was needed: give it back
    for index, (want, have) in enumerate(zip(natural, widths, strict=True)):
        if have is not None and have < want and room > 0:
            widths[index] = have + min(room, want - have)
            room -= want - have
    return widths


Cell = Text | Names


class FittedTable(DataTable[Any]):
    """A DataTable that lays its columns out to its own width whenever it resizes or its rows change."""

    def __init__(self, columns: Sequence[Column], **kwargs: Any) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)
        self.specs = list(columns)
        self._cells: list[tuple[list[Cell], str | None]] = []
        self._widths: list[int | None] | None = None
        self._room = 0  # the width the columns were last fitted to

    def on_mount(self) -> None:
        # After every layout, not on Resize: a table in a tab opened later gets its width from a layout that
        # sends it no Resize (Textual sends one while the tab is still 0 lines high, then none).
        self.screen.screen_layout_refresh_signal.subscribe(self, self._layout_changed)
        self._lay_out(force=True)

    def _layout_changed(self, _screen: object) -> None:
        if self.room != self._room:
            self._lay_out()

    @property
    def laid_out_width(self) -> int:
        """The cells the columns take as laid out now (what fits `room` once the table knows its width)."""
        return sum(column.get_render_width(self) for column in self.columns.values())

    @property
    def room(self) -> int:
        """The cells the columns may take: the width less a vertical scrollbar's (kept whether or not one
        shows, so the layout never flips when one comes and goes)."""
        return max(0, self.size.width - self.styles.scrollbar_size_vertical)

    def set_rows(self, rows: Sequence[tuple[Sequence[Cell], str | None]]) -> None:
        """Show these rows (cells, row key): the table is laid out again for them."""
        self._cells = [(list(cells), key) for cells, key in rows]
        self._lay_out(force=True)

    def _natural(self) -> list[int]:
        found = [len(column.label) for column in self.specs]
        for cells, _ in self._cells:
            for index, cell in enumerate(cells):
                size = cell.natural if isinstance(cell, Names) else cell.cell_len
                found[index] = max(found[index], size)
        return found

    def _lay_out(self, *, force: bool = False) -> None:
        natural = self._natural()
        room = self._room = self.room
        widths: list[int | None] = list(natural) if room <= 0 else fit(self.specs, natural, room, self.cell_padding)
        if widths == self._widths and not force:
            return
        self._widths = widths
        cursor = self.cursor_row
        had_focus = self.has_focus
        self.clear(columns=True)
        shown = [(index, width) for index, width in enumerate(widths) if width is not None]
        for index, width in shown:
            self.add_column(clip(Text(self.specs[index].label), width), width=width, key=str(index))
        for cells, key in self._cells:
            self.add_row(*[self._cell(cells[index], width) for index, width in shown], key=key)
        if self.row_count:
            self.move_cursor(row=min(cursor, self.row_count - 1), animate=False, scroll=had_focus)

    @staticmethod
    def _cell(cell: Cell, width: int) -> Text:
        return clip_items(cell.items, width, noun=cell.noun) if isinstance(cell, Names) else clip(cell, width)
