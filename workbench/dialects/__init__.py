"""Eval formats by dialect. Each turns its files into the same `Project`; the engine, history,
reports and TUI never know which format a row came from (but for `EvalSet.dialect`, which picks the
dialect that runs the set's rows).

To add a format: write `dialects/<name>.py` with a `Dialect` subclass (copy `uipath.py`), and list an
instance in `DIALECTS` below.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from .base import Dialect, LoadContext, RowRun
from .conversations import ConversationsDialect
from .replays import ReplaysDialect
from .scenarios import ScenariosDialect
from .uipath import UiPathDialect

if TYPE_CHECKING:
    from ..config import Config

DIALECTS: list[Dialect] = [UiPathDialect(), ReplaysDialect(), ScenariosDialect(), ConversationsDialect()]


def runner_needed(root: Path, config: Config | None) -> bool:
    """Whether running the project at `root` needs its target: not when every format present there
    runs without one (a project of scripted replays needs no `[runner]`)."""
    present = [dialect for dialect in DIALECTS if dialect.present(root, config)]
    return not present or any(dialect.needs_runner(root, config) for dialect in present)


def dialect_for(name: str) -> Dialect:
    """The dialect called `name`; unknown names (a set built by hand in a test) run like UiPath rows."""
    return next((d for d in DIALECTS if d.name == name), DIALECTS[0])


__all__ = ["DIALECTS", "Dialect", "LoadContext", "RowRun", "dialect_for", "runner_needed"]
