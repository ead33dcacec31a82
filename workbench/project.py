"""Load a project: every registered dialect reads its own files into one `Project`.

Nothing here writes. A broken file becomes a Problem naming the file and what is wrong; the other
files still load, so one bad save never hides the rest of the suite.
"""

from __future__ import annotations

import gc
import os
from pathlib import Path
from typing import TYPE_CHECKING

from .config import CONFIG_FILE
from .dialects import all_dialects
from .dialects.base import EVALS_DIR, MAX_FILE_BYTES, LoadContext, relative
from .errors import WorkbenchError
from .model import Problem, Project, Severity

if TYPE_CHECKING:
    from .config import Config
    from .dialects.base import Dialect


def project_markers() -> tuple[str, ...]:
    """The names that make a folder a project: workbench.toml and every format's own markers."""
    return tuple(dict.fromkeys([CONFIG_FILE, *(m for d in all_dialects() for m in d.markers)]))


class ProjectError(WorkbenchError):
    """The project can't be used at all (no eval files of any format, unreadable root)."""


def load_project(root: Path, config: Config | None = None) -> Project:
    """Read every eval file of every dialect under `root`. Raises ProjectError only when there is
    nothing to read at all; every per-file trouble is a Problem on the returned project."""
    # Loading makes millions of small objects and no cycles; the cyclic collector would only scan
    # them again and again (it doubles the load time of a 100,000-row set).
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _load_project(root, config)
    finally:
        if enabled:
            gc.enable()


def _load_project(root: Path, config: Config | None) -> Project:
    root = root.resolve()
    present = [dialect for dialect in all_dialects() if dialect.present(root, config)]
    if not present:
        expected = "; ".join(f"{d.title}: {d.words.expects}" for d in all_dialects() if d.words.expects)
        raise ProjectError(f"no eval files in {root} (expected {expected}). Create some with `workbench init "
                           f"{root}` (--format for the other formats), or point workbench at the project that "
                           "has them.")
    ctx = LoadContext(root, Project(root=root), config)
    for dialect in present:
        dialect.load(ctx)
    project = ctx.project
    if not project.sets and not project.problems:
        project.problems.append(_no_sets(root, present))
    return project


def _no_sets(root: Path, present: list[Dialect]) -> Problem:
    """Why nothing loaded: an empty evals/ is a warning; an evals/ holding only files no format reads is an
    ERROR that names some of them and every format's files (a run of nothing must never look green)."""
    unread = _some_files(root / EVALS_DIR)
    if not unread:
        where = " or ".join(d.words.expects for d in present if d.words.expects)
        return Problem(EVALS_DIR, f"no eval sets found: expected {where}", Severity.WARNING)
    names, more = unread
    shown = ", ".join(names) + (f" and {more} more" if more else "")
    formats = "; ".join(f"{d.title}: {d.words.expects}" for d in all_dialects() if d.words.expects)
    return Problem(EVALS_DIR, f"holds only files workbench can't read ({shown}); it reads {formats}",
                   Severity.ERROR)


def _some_files(folder: Path, shown: int = 5, looked: int = 10_000) -> tuple[list[str], int] | None:
    """Up to `shown` files under `folder` (relative to it, not in dot-folders) and how many more, looking at
    `looked` entries at most; None when there are none."""
    names: list[str] = []
    more = 0
    seen = 0
    for folder_name, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            seen += 1
            if len(names) < shown:
                names.append(relative(folder, Path(folder_name) / name))
            else:
                more += 1
        if seen >= looked:
            break
    return (names, more) if names else None


def find_project_root(start: Path) -> Path:
    """Walk up from `start` to the folder holding evals/, workbench.toml or another format's marker."""
    start = start.resolve()
    markers = project_markers()
    for folder in (start, *start.parents):
        if any((folder / marker).exists() for marker in markers):
            return folder
    return start


__all__ = ["EVALS_DIR", "MAX_FILE_BYTES", "ProjectError", "find_project_root", "load_project", "project_markers",
           "relative"]
