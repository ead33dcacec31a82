"""What a row-detail view is: a widget that fills the detail pane below the evaluator tabs for the rows
of one dialect, and what it is given to draw (`DetailContext`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from textual.containers import ScrollableContainer, Vertical
from textual.widget import Widget

from ...model import EvalSet, EvaluatorDef, Project, Result, Row


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


class DetailView(Vertical):
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

    def show(self, context: DetailContext) -> None:
        """Draw `context`; a view swapped in a moment ago draws once its widgets exist."""
        if self.is_mounted:
            self.show_row(context)
        else:
            self._pending = context

    def on_mount(self) -> None:
        if self._pending is not None:
            context, self._pending = self._pending, None
            self.show_row(context)

    def show_row(self, context: DetailContext) -> None:
        raise NotImplementedError

    def scroll_line_into_view(self, widget: Widget, line: int) -> None:
        """Scroll the detail pane so line `line` of `widget` shows, with two lines above it for context;
        nothing moves when it already shows. Call it after a refresh (the layout must be known)."""
        scroller = next((a for a in widget.ancestors if isinstance(a, ScrollableContainer)), None)
        if scroller is None or not widget.region:
            return
        y = widget.content_region.y - scroller.content_region.y + round(scroller.scroll_y) + line
        top, height = round(scroller.scroll_y), scroller.content_region.height
        if not top <= y < top + height:
            scroller.scroll_to(y=max(0, y - 2), animate=False)
