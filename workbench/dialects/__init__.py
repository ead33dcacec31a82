"""Eval formats by dialect. Each turns its files into the same `Project`; the engine, history, reports
and TUI reach a format only through its `Dialect` (`base.py`: the core, its `Words`, the capabilities it
has), found here by name.

To add a format: copy the example kept in the tests (`tests/helpers/quiz_format/`: the core and three
capabilities), make it a package under `dialects/`, and add one line to `REGISTRY` below
(`conversations/` shows a row run as several target calls).

Nothing is imported until a dialect is asked for: the settings layer discovers each package's
`settings.py` (its section of workbench.toml) without loading the formats themselves.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..config import Config
    from ..model import Problem
    from .base import Dialect

# "module:Class" of every format, in the order they load.
REGISTRY: tuple[str, ...] = (
    "workbench.dialects.uipath:UiPathDialect",
    "workbench.dialects.replays:ReplaysDialect",
    "workbench.dialects.scenarios:ScenariosDialect",
    "workbench.dialects.conversations:ConversationsDialect",
    "workbench.dialects.uipath_coded:UiPathCodedDialect",
)


_ADDED: list[Dialect] = []  # formats added at run time (`added_dialect`): a plugin's, a test's


@cache
def _registered() -> tuple[Dialect, ...]:
    found = []
    for entry in REGISTRY:
        module, _, name = entry.partition(":")
        found.append(getattr(importlib.import_module(module), name)())
    return tuple(found)


def all_dialects() -> tuple[Dialect, ...]:
    """One instance of every format: the registered ones (imported on first use), then any added."""
    return (*_registered(), *_ADDED)


@contextmanager
def added_dialect(dialect: Dialect) -> Iterator[Dialect]:
    """Make `dialect` one of the formats for the block: a format defined outside this package (a test's
    toy format) goes through loading, running, reports, history and the TUI like a registered one."""
    _ADDED.append(dialect)
    try:
        yield dialect
    finally:
        _ADDED.remove(dialect)


def package_names() -> list[str]:
    """The dotted names of the registered formats' modules (for discovering their settings sections)."""
    return [entry.partition(":")[0] for entry in REGISTRY]


def runner_needed(root: Path, config: Config | None) -> bool:
    """Whether running the project at `root` needs its target: not when every format present there
    runs without one (a project of scripted replays needs no `[runner]`)."""
    from .base import needs_runner

    present = [dialect for dialect in all_dialects() if dialect.present(root, config)]
    return not present or any(needs_runner(dialect, root, config) for dialect in present)


def start_problems(root: Path, config: Config) -> list[Problem]:
    """What stops the rows of the formats present at `root` from starting at all (`ChecksStart`), each naming
    its file: `check`'s errors, and what `run` refuses to start on (so an error whatever severity it came with:
    `check` and `run` can't disagree on whether the rows start)."""
    from dataclasses import replace

    from ..model import Severity
    from .base import ChecksStart

    found = []
    for dialect in all_dialects():
        if isinstance(dialect, ChecksStart) and dialect.present(root, config):
            problem = dialect.start_problem(root, config)
            if problem is not None:
                found.append(replace(problem, severity=Severity.ERROR))
    return found


def dialect_for(name: str) -> Dialect:
    """The dialect called `name` (an `EvalSet.dialect`); an unknown name is a bug, said as such."""
    for dialect in all_dialects():
        if dialect.name == name:
            return dialect
    raise LookupError(f"no eval format called {name!r}; registered: {', '.join(d.name for d in all_dialects())}")


def __getattr__(name: str) -> Any:
    """`DIALECTS` and the base names, imported when first used (see the module docstring)."""
    if name == "DIALECTS":
        return list(all_dialects())
    if name in ("Dialect", "LoadContext", "RowRun"):
        from . import base

        return getattr(base, name)
    raise AttributeError(name)


__all__ = ["DIALECTS", "REGISTRY", "Dialect", "LoadContext", "RowRun", "added_dialect", "all_dialects", "dialect_for",
           "package_names", "runner_needed"]
