"""A write-back computed but not yet written: the bytes before and after, what changes, and a diff.

Front-ends show `diff()` (or `changes`) and call `apply_plan` on confirm. Applying re-reads the file
and runs the same edit on what is on disk *then*, so edits made meanwhile (in an editor, in Studio
Web) are kept; the edit itself refuses if the row it targets is gone or its expectation changed.
Workbench's own writers (CLI, TUI, bulk accept, in any number of processes) take turns on a set
through its lock under `.workbench/locks/` (see `lock.py`), so they never overwrite each other.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..dialects import all_dialects
from ..dialects.base import WritesRows
from ..project import MAX_FILE_BYTES
from .atomic import check_replaceable, read_bytes, replace_atomically
from .errors import ConcurrentChange, WritebackError
from .lock import writing_lock

ATTEMPTS = 3


@dataclass(frozen=True, slots=True)
class Change:
    """One value the write-back sets. `old` is `selection.MISSING` when there was none."""

    label: str
    old: Any
    new: Any


@dataclass(frozen=True, slots=True)
class Edited:
    """What an edit function made of a file's bytes."""

    after: bytes
    changes: list[Change]
    notes: list[str] = field(default_factory=list)


Edit = Callable[[bytes], Edited]


@dataclass(frozen=True, slots=True)
class WritePlan:
    root: Path  # the project's (real) root: its .workbench/ holds the set's write lock
    path: Path
    display: str
    before: bytes
    after: bytes
    changes: list[Change]
    edit: Edit
    notes: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return self.after != self.before

    def diff(self, context: int = 3) -> str:
        """A unified diff of the file, as `git diff` would show it (line endings not shown)."""
        old = self.before.decode("utf-8", errors="replace").splitlines()
        new = self.after.decode("utf-8", errors="replace").splitlines()
        lines = difflib.unified_diff(old, new, f"a/{self.display}", f"b/{self.display}", n=context, lineterm="")
        return "\n".join(lines)


def writer_of(root: Path, path: Path) -> tuple[Path, WritesRows]:
    """The real file behind `path` and the format whose set it is, provided it is a set workbench writes
    (`WritesRows.is_row_set`: for UiPath, `<root>/evals/<scope>/eval-sets/*.json`). That format's rules find
    the rows in it (`row_ids`) and say what a row was scored against (`expected_sources`)."""
    real = Path(os.path.realpath(path))
    writers = [dialect for dialect in all_dialects() if isinstance(dialect, WritesRows)]
    for dialect in writers:
        if dialect.is_row_set(root, real):
            return real, dialect
    where = " or ".join(dialect.row_sets for dialect in writers) or "no format's folder"
    raise WritebackError(f"{path} is not an eval set under {where}; workbench only writes there")


def checked_target(root: Path, path: Path) -> Path:
    """The real file behind `path`, provided it is a set workbench writes (`writer_of`)."""
    return writer_of(root, path)[0]


def make_plan(root: Path, path: Path, edit: Edit) -> WritePlan:
    """Run `edit` on the file as it is now, writing nothing."""
    real = checked_target(root, path)
    try:
        display = real.relative_to(root.resolve()).as_posix()
    except ValueError:
        display = str(real)
    check_replaceable(real, display)
    before = read_bytes(real, MAX_FILE_BYTES)
    edited = edit(before)
    return WritePlan(root.resolve(), real, display, before, edited.after, edited.changes, edit, edited.notes)


def apply_plan(plan: WritePlan, *, attempts: int = ATTEMPTS,
               before_rename: Callable[[], None] | None = None) -> WritePlan:
    """Write the plan's change into the file as it is on disk now; the plan as actually written.

    Other workbench writers of the same set are waited for (their lock); if the file changes while
    writing all the same (an editor's save), start again from its new content (up to `attempts`
    times); never overwrite the other writer. Raises WritebackError (nothing written) when the edit
    refuses or another workbench holds the set's lock for too long.
    """
    with writing_lock(plan.root, plan.path, plan.display):
        for _ in range(attempts):
            current = read_bytes(plan.path, MAX_FILE_BYTES)
            edited = Edited(plan.after, plan.changes, plan.notes) if current == plan.before else plan.edit(current)
            written = replace(plan, before=current, after=edited.after, changes=edited.changes, notes=edited.notes)
            if edited.after == current:
                return written
            try:
                replace_atomically(plan.path, edited.after, current, before_rename=before_rename)
            except ConcurrentChange:
                continue
            return written
    raise ConcurrentChange(f"{plan.display} kept changing while workbench tried to write it; nothing was "
                           "written and the other changes were kept. Try again.")
