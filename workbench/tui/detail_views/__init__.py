"""Row-detail views by dialect: each eval format (UiPath eval sets, conversations, scenarios, replays)
can show its rows its own way. The detail pane asks `view_for(eval_set.dialect)`; a dialect without an
entry gets the expected/actual view.

A new view is one module here with a `DetailView` subclass (compose its widgets; draw a
`DetailContext` in `show_row`) plus one line in `DETAIL_VIEWS` — copy `expected_actual.py`."""

from __future__ import annotations

from .base import DetailContext, DetailView
from .conversation import ConversationView
from .expected_actual import ExpectedActualView
from .replay import ReplayView
from .scenario import ScenarioView

DETAIL_VIEWS: dict[str, type[DetailView]] = {
    "uipath": ExpectedActualView,
    "conversations": ConversationView,
    "replays": ReplayView,
    "appilots": ScenarioView,
}

DEFAULT_VIEW: type[DetailView] = ExpectedActualView


def view_for(dialect: str) -> type[DetailView]:
    """The view class for rows of `dialect` (the default view when the dialect registered none)."""
    return DETAIL_VIEWS.get(dialect, DEFAULT_VIEW)


__all__ = ["DEFAULT_VIEW", "DETAIL_VIEWS", "DetailContext", "DetailView", "ExpectedActualView", "view_for"]
