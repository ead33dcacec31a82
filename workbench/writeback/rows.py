"""Finding a set and a row the way the rest of workbench names them.

Row ids must match what `project.load_project` assigned when the output was recorded (a row without
an id is tracked by its name or `#index`, a duplicate id as `id#index`), so `row_ids` repeats those
rules on the document as it is on disk at write time (the writing format's `Dialect.row_ids` is the one
rule).
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any

from ..dialects import all_dialects
from ..model import EvalSet, Problem, Project, Row
from .errors import WritebackError


def row_ids(evaluations: list[Any]) -> list[str | None]:
    """The ids loading gave the rows of a set workbench writes, by the rule of the format whose sets those
    are (one format's: `plan.checked_target` lets no other file be edited)."""
    writers = [dialect for dialect in all_dialects() if dialect.row_sets]
    if len(writers) != 1:  # which rule applies would need the set's format; refuse rather than guess
        raise WritebackError(f"can't tell which format's row ids apply: {len(writers)} formats write sets")
    return writers[0].row_ids(evaluations)


def row_index(evaluations: list[Any], row_id: str) -> int | None:
    for index, candidate in enumerate(row_ids(evaluations)):
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
