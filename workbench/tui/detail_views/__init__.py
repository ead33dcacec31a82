"""Row-detail views: each eval format shows its rows its own way. A dialect names its view as
`view = "module:Class"` (`dialects.base.HasView`: a module only the TUI imports, so the engine never loads Textual);
the detail pane asks `view_for(eval_set.dialect)`, and a format that names none gets the expected/actual view.

A new view is one module with a `DetailView` subclass (compose its widgets; draw a `DetailContext` in
`show_row`) — copy `expected_actual.py` — named by its dialect's `view`."""

from __future__ import annotations

import importlib

from ...dialects import dialect_for
from ...dialects.base import HasView
from .base import DetailContext, DetailView
from .expected_actual import ExpectedActualView

DEFAULT_VIEW: type[DetailView] = ExpectedActualView


def view_for(dialect: str) -> type[DetailView]:
    """The view class for rows of `dialect` (the default view when the dialect names none)."""
    try:
        found = dialect_for(dialect)
    except LookupError:  # a set of a format that is gone (a plugin uninstalled): still shown
        return DEFAULT_VIEW
    named = found.view if isinstance(found, HasView) else ""
    if not named:
        return DEFAULT_VIEW
    module, _, name = named.partition(":")
    view = getattr(importlib.import_module(module), name)
    if not (isinstance(view, type) and issubclass(view, DetailView)):
        raise TypeError(f"{named} (the view of {dialect!r} rows) is not a DetailView")
    return view


__all__ = ["DEFAULT_VIEW", "DetailContext", "DetailView", "ExpectedActualView", "view_for"]
