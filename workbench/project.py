"""Load a project: every registered dialect reads its own files into one `Project`.

Nothing here writes. A broken file becomes a Problem naming the file and what is wrong; the other
files still load, so one bad save never hides the rest of the suite.
"""

from __future__ import annotations

import gc
from pathlib import Path
from typing import TYPE_CHECKING

from .config import CONFIG_FILE
from .dialects import all_dialects
from .dialects.base import EVALS_DIR, MAX_FILE_BYTES, LoadContext, relative
from .errors import WorkbenchError
from .model import Problem, Project, Severity

if TYPE_CHECKING:
    from .config import Config


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
        expected = "; ".join(f"{d.title}: {d.expects}" for d in all_dialects() if d.expects)
        raise ProjectError(f"no eval files in {root} (expected {expected}). Create some with `workbench init "
                           f"{root}` (--format for the other formats), or point workbench at the project that "
                           "has them.")
    ctx = LoadContext(root, Project(root=root), config)
    for dialect in present:
        dialect.load(ctx)
    project = ctx.project
    if not project.sets and not project.problems:
        where = " or ".join(d.expects for d in present if d.expects)
        project.problems.append(Problem(EVALS_DIR, f"no eval sets found: expected {where}", Severity.WARNING))
    return project


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
