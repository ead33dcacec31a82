"""Turn a recorded run into a new case or row (`add-row --from-run`, the history tab's key): built from
what history recorded for one row of one iteration — its output, trace and inputs — without running
anything again.

`plan_script_case` makes a new case file of the format that makes cases from runs
(`MakesCases.case_from_run`: scripted replays, `evals/<name>.script.json`); `plan_set_row` appends a row
with the recorded inputs and output to a set workbench writes (`WritesRows.row_sets`), as `add-row` does.
Both plan first (the front-end shows the preview), then `write_case` / `writing.write_plan` write.
Refusals (unknown iteration or row, a name or file that exists) are `Refused`: exit 1, nothing written.
"""

from __future__ import annotations

import os
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..config import Config
from ..dialects import all_dialects, dialect_for
from ..dialects.base import MakesCases, NewCase, WritesRows
from ..errors import WorkbenchError
from ..history import HistoryStore
from ..model import EvalSet, Project, Result, RowKey, results_by_row
from ..textsafe import slug
from ..writeback import WritebackError
from ..writeback.atomic import create_atomically
from ..writeback.rows import find_set
from .add_row import NewRow, TargetRun, plan_new_row
from .writing import Refused

_SHOWN_ROWS = 10


@dataclass(frozen=True, slots=True)
class RecordedRow:
    """One row's run as an iteration recorded it (any of its results: they share output, trace, inputs)."""

    iteration: int
    result: Result

    @property
    def where(self) -> str:
        return f"row {self.result.label!r} of {self.result.set_file} in iteration {self.iteration}"


def recorded_row(config: Config, iteration: int, row_ref: str | RowKey) -> RecordedRow:
    """The run of row `row_ref` (its id, else its name, or exactly that row's key) in `iteration`.
    Refused naming the iteration or the row when history has no such thing."""
    with HistoryStore.open(config) as store:
        if not 1 <= iteration < 2**63 or store.iteration(iteration) is None:
            latest = store.latest_number()
            have = f"the newest is {latest}" if latest is not None else "nothing has been recorded yet"
            raise Refused(f"there is no iteration {iteration} in the history ({have})")
        results = store.results(iteration)
    rows = results_by_row(results)
    if isinstance(row_ref, RowKey):
        if row_ref not in rows:
            raise Refused(f"iteration {iteration} did not run row {row_ref.row_id!r} of {row_ref.set_file}")
        return RecordedRow(iteration, rows[row_ref][0])
    groups = [group for key, group in rows.items() if key.row_id == row_ref]
    groups = groups or [group for group in rows.values() if group[0].row_name == row_ref]
    if not groups:
        names = [group[0].label for group in rows.values()]
        more = f", … ({len(names) - _SHOWN_ROWS} more)" if len(names) > _SHOWN_ROWS else ""
        shown = ", ".join(repr(name) for name in names[:_SHOWN_ROWS]) + more if names else "none"
        raise Refused(f"iteration {iteration} did not run a row {row_ref!r} (its rows: {shown})")
    if len(groups) > 1:
        where = ", ".join(f"{g[0].set_file} (id {g[0].row_id})" for g in groups)
        raise Refused(f"iteration {iteration} ran {len(groups)} rows called {row_ref!r}: {where}; give the row id")
    return RecordedRow(iteration, groups[0][0])


def plan_script_case(config: Config, project: Project, recorded: RecordedRow, name: str | None = None) -> NewCase:
    """The new case file for the recorded run (name: a readable slug of the row's name by default, its id when
    nothing readable is left — as the TUI's `c` dialog proposes), from the format that makes cases from runs.
    Refused when the file or a case of that name exists, or the run can't be a case."""
    name = name if name is not None else (slug(recorded.result.label) or recorded.result.row_id)
    maker = next((dialect for dialect in all_dialects() if isinstance(dialect, MakesCases)), None)
    if maker is None:
        raise Refused("no eval format here makes cases from recorded runs")
    try:
        case = maker.case_from_run(project, config, recorded.result, name, recorded.where)
    except WorkbenchError as exc:
        raise Refused(str(exc)) from None
    if not Path(os.path.normpath(case.path)).is_relative_to(project.root):  # a format's bug never writes outside
        raise Refused(f"{case.display} is outside the project; nothing written")
    return case


def write_case(case: NewCase) -> Path:
    """Create the case file, whole or not at all, never replacing a file that appeared meanwhile."""
    try:
        case.path.parent.mkdir(parents=True, exist_ok=True)
        create_atomically(case.path, case.text.encode("utf-8"))
    except FileExistsError:
        raise Refused(f"{case.display} already exists; choose another --name") from None
    except OSError as exc:
        raise Refused(f"cannot write {case.display}: {exc.strerror or exc}") from None
    return case.path


def plan_set_row(project: Project, recorded: RecordedRow, set_name: str, name: str | None = None,
                 criteria: dict[str, Any] | None = None) -> NewRow:
    """A row of eval set `set_name` with the recorded inputs and, as its expectations, the recorded output
    (the append `add-row` plans). Refused for a taken name or a run without output."""
    try:
        eval_set: EvalSet = find_set(project, set_name)
    except WritebackError as exc:
        raise Refused(str(exc)) from None
    if not isinstance(dialect_for(eval_set.dialect), WritesRows):
        where = " or ".join(d.words.expects for d in all_dialects() if isinstance(d, WritesRows)) or "no format's sets"
        raise Refused(f"{eval_set.stem} is not an eval set rows are added to ({where}); use --script for a "
                      "scripted case")
    result = recorded.result
    name = name if name is not None else result.label
    if not name.strip():
        raise Refused("the row needs a name")
    if any(row.name == name for row in eval_set.rows):
        raise Refused(f"{eval_set.file_name} already has a row named {name!r}; choose another --name")
    if result.actual is None:
        raise Refused(f"{recorded.where} ended in ERROR, so there is no output to build the row from")
    run = TargetRun(str(uuid.uuid4()), name, dict(result.inputs), result.actual)
    new_row = plan_new_row(project, eval_set, run, criteria)
    if not result.inputs:
        new_row.notes.insert(0, f"{recorded.where} has no recorded inputs; the row's inputs are empty")
    return new_row


__all__ = ["NewCase", "RecordedRow", "plan_script_case", "plan_set_row", "recorded_row", "write_case"]
