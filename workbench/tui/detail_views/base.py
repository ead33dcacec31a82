"""What a row-detail view is: a widget that fills the detail pane below the evaluator tabs for the rows
of one dialect, and what it is given to draw (`DetailContext`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.containers import ScrollableContainer, Vertical
from textual.widget import Widget

from ...model import EvalSet, EvaluatorDef, Project, Result, Row
from ..json_view import first_highlighted_line
from ..settling import Settling


@dataclass(frozen=True, slots=True)
class DetailContext:
    """Everything a view may show about the selected row, as plain data (no RunState, no widgets).

    `ref` / `result` / `evaluator` are the evaluator picked in the tabs (None when the set has no
    evaluatorRefs, the result when it has not run yet, the evaluator when it failed to load);
    `results` holds this row's latest result per evaluator ref, for views that show them all."""

    project: Project | None
    eval_set: EvalSet
    row: Row
    ref: str | None
    result: Result | None
    evaluator: EvaluatorDef | None
    results: dict[str, Result]
    running: bool


Placement = Callable[[ScrollableContainer, int], int | None]  # (scroller, scroll when opened) -> where to scroll


class DetailView(Settling, Vertical):
    """Base of every row-detail body. Subclasses compose their widgets and implement `show_row`, which is
    called every time the selected row, the picked evaluator or the row's results change — keep it cheap
    and idempotent (update widgets in place, don't mount new ones per call)."""

    DEFAULT_CSS = """
    DetailView {
        height: auto;
    }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._pending: DetailContext | None = None
        self._showing: tuple[object, ...] = ()  # the row and evaluator drawn
        self._placement: Placement | None = None  # where the row opens, kept until the user scrolls
        self._placed_for: tuple[object, ...] = ()  # the row and evaluator it is for
        self._opened_from = 0  # the pane's scroll when the row opened
        self._placed: int | None = None  # the pane's scroll as the placement last left it
        self._fresh = False  # this draw opens the row or evaluator (another one was shown before it)
        self._opened_at: tuple[object, ...] | None = None  # the failing result last opened at its difference

    def show(self, context: DetailContext) -> None:
        """Draw `context`; a view swapped in a moment ago draws once its widgets exist."""
        showing = (context.eval_set.key_of(context.row), context.ref)
        self._fresh = showing != self._showing
        self._showing = showing
        if self._showing != self._placed_for:
            self._placement = None  # another row or evaluator: where the last one opened is no concern
        if self.is_mounted:
            self.show_row(context)
        else:
            self._pending = context

    def on_mount(self) -> None:
        self.screen.screen_layout_refresh_signal.subscribe(self, self._layout_changed)
        if self._pending is not None:
            context, self._pending = self._pending, None
            self.show_row(context)

    def show_row(self, context: DetailContext) -> None:
        raise NotImplementedError

    # -- opening a row where it matters --------------------------------------------------------------

    def open_at(self, placement: Placement) -> None:
        """Open the row scrolled where `placement` says, from the layout as it is. Placed after the next
        refresh and again after every layout until the user scrolls: a layout made before every widget
        had measured its new text would otherwise leave the row a line or more off."""
        scroller = self._scroller()
        self._placement, self._placed_for = placement, self._showing
        self._opened_from = round(scroller.scroll_y) if scroller is not None else 0
        self._placed = None
        self.defer(self._place)

    def open_at_difference(self, context: DetailContext, widget: Widget, text: Text, *, heading: int = 0) -> None:
        """A failing result opens where its verdict line (`#detail-meta`: the verdict, then the `Differences`
        list) is at the top of the pane — the pane's top itself when everything down to the first line
        `render_json` marked as differing in `text` (drawn in `widget`) fits from there, so the expected / actual
        below (`heading`: the lines of its title) show around that line as far as the pane allows. A view without
        a verdict line opens at the first difference. Every time its row or evaluator is opened, and when a new
        result of it arrives — not on a redraw of the one shown, so a user who scrolled stays there."""
        line = first_highlighted_line(text)
        shown = (context.eval_set.key_of(context.row), context.ref, id(context.result))
        if line is None or (shown == self._opened_at and not self._fresh):
            return
        self._opened_at = shown
        verdict = next(iter(self.query("#detail-meta")), None)
        if verdict is None:
            self.scroll_line_into_view(widget, line, heading=heading)
        else:
            self.open_at_verdict(verdict, widget, line)

    def open_at_verdict(self, verdict: Widget, widget: Widget, line: int) -> None:
        """Open with the pane's top in view when line `line` of `widget` shows from there, else with `verdict`
        (and nothing above it) at the top of the pane."""
        def placement(scroller: ScrollableContainer, _opened_from: int) -> int | None:
            if not widget.region or not verdict.region:
                return None
            top = round(scroller.scroll_y) - scroller.content_region.y
            if widget.content_region.y + top + line < scroller.content_region.height:
                return 0
            return max(0, verdict.region.y + top)
        self.open_at(placement)

    def scroll_line_into_view(self, widget: Widget, line: int, *, heading: int = 0) -> None:
        """Open the row with line `line` of `widget` in view, two lines above it for context — or from the
        `heading` lines above the widget, when the line still shows from there (`Expected` above the JSON);
        nothing moves when it shows from where the pane was."""
        def placement(scroller: ScrollableContainer, opened_from: int) -> int | None:
            if not widget.region:
                return None
            y = widget.content_region.y - scroller.content_region.y + round(scroller.scroll_y) + line
            height = scroller.content_region.height
            if opened_from <= y < opened_from + height:
                return opened_from
            top = y - line - heading
            return max(0, top if heading and line + heading < height - 1 else y - 2)
        self.open_at(placement)

    def scroll_widget_to_top(self, widget: Widget) -> None:
        """Open the row with `widget` (and its top margin) at the top of the pane."""
        def placement(scroller: ScrollableContainer, _opened_from: int) -> int | None:
            if not widget.region:
                return None
            return max(0, widget.region.y - widget.styles.margin.top - scroller.content_region.y
                       + round(scroller.scroll_y))
        self.open_at(placement)

    def _scroller(self) -> ScrollableContainer | None:
        return next((a for a in self.ancestors if isinstance(a, ScrollableContainer)), None)

    def _layout_changed(self, _screen: object) -> None:
        if self._placement is not None:
            self._place()

    def _place(self) -> None:
        scroller, placement = self._scroller(), self._placement
        if scroller is None or placement is None:
            return
        if self._placed is not None and round(scroller.scroll_y) != self._placed:
            self._placement = None  # the user scrolled since: leave the pane where they took it
            return
        y = placement(scroller, self._opened_from)
        if y is not None and y != round(scroller.scroll_y):
            scroller.scroll_to(y=y, animate=False, immediate=True)
        self._placed = round(scroller.scroll_y)
