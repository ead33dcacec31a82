"""Eval formats by dialect. Each turns its files into the same `Project`; the engine, history,
reports and TUI never know which format a row came from (but for `EvalSet.dialect`, which picks the
dialect that runs the set's rows).

To add a format: write `dialects/<name>.py` with a `Dialect` subclass (copy `uipath.py`), and list an
instance in `DIALECTS` below.
"""

from __future__ import annotations

from .base import Dialect, LoadContext, RowRun
from .uipath import UiPathDialect

DIALECTS: list[Dialect] = [UiPathDialect()]


def dialect_for(name: str) -> Dialect:
    """The dialect called `name`; unknown names (a set built by hand in a test) run like UiPath rows."""
    return next((d for d in DIALECTS if d.name == name), DIALECTS[0])


__all__ = ["DIALECTS", "Dialect", "LoadContext", "RowRun", "dialect_for"]
