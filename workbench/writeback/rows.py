"""Finding a set and a row the way the rest of workbench names them.

Row ids must match what `project.load_project` assigned when the output was recorded (a row without
an id is tracked by its name or `#index`, a duplicate id as `id#index`), so `row_ids` repeats those
rules on the document as it is on disk at write time (the set's format's `WritesRows.row_ids` is the one
rule: `plan.writer_of` says which format a set file is).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import PurePosixPath
from typing import Any

from ..model import EvalSet, Problem, Project, Row
from .errors import WritebackError

RowIds = Callable[[list[Any]], list[str | None]]  # a format's `WritesRows.row_ids`


def row_index(evaluations: list[Any], row_id: str, ids: RowIds) -> int | None:
    """Where the row loading called `row_id` is in `evaluations`, by the rule `ids` of the set's format."""
    for index, candidate in enumerate(ids(evaluations)):
        if candidate == row_id:
            return index
    return None


def find_set(project: Project, name: str) -> EvalSet:
    """The eval set called `name` (file base name or file name, optionally `scope/name`)."""
    matches = [s for s in project.sets if s.answers_to(name)]
    if len(matches) == 1:
        return matches[0]
    if matches:
        scopes = ", ".join(f"{s.scope}/{s.stem}" for s in matches)
        raise WritebackError(f"eval set {name!r} exists in more than one scope ({scopes}); name it as scope/name")
    broken = _broken_set_file(project, name)
    if broken is not None:
        raise WritebackError(f"eval set {name!r} can't be read: {broken.file}: {broken.message}. Fix the file "
                             "first; nothing was written", exit_code=1)
    known = ", ".join(sorted({s.stem for s in project.sets})) or "none"
    raise WritebackError(f"no eval set {name!r} (eval sets: {known})")


def _broken_set_file(project: Project, name: str) -> Problem | None:
    """The error that kept the set called `name` from loading (an empty file, invalid JSON, ...), if any."""
    scope, _, base = name.rpartition("/")
    for problem in project.problems:
        path = PurePosixPath(problem.file)
        if not problem.is_error or problem.row is not None or path.suffix != ".json":
            continue
        if base in (path.stem, path.name) and (not scope or scope in path.parts[:-1]):
            return problem
    return None


def find_row(eval_set: EvalSet, ref: str) -> Row:
    """The row whose id is `ref`, else the one row named `ref`."""
    for row in eval_set.rows:
        if row.id == ref:
            return row
    named = [row for row in eval_set.rows if row.name == ref]
    if len(named) == 1:
        return named[0]
    if named:
        ids = ", ".join(row.id for row in named)
        raise WritebackError(f"{len(named)} rows of {eval_set.file_name} are named {ref!r}; select one by id ({ids})")
    raise WritebackError(f"no row {ref!r} in {eval_set.file_name} (give its id or its exact name)")
