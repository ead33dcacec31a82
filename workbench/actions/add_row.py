"""Add a row: run the target once on new inputs, with the settings as the files say *now*, build the
row from its output and plan the append. Written with `writing.write_plan` when the user confirms."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass, field
from typing import Any

from .. import jsonio
from ..config import Config, reload_config
from ..dialects import all_dialects, dialect_for
from ..dialects.base import WritesRows
from ..engine import RunnerFactory
from ..model import EvalSet, EvaluatorDef, Project
from ..runners import LogSink, make_runner
from ..writeback import WritebackError, WritePlan
from ..writeback.add_row import build_row, check_criteria, criteria_needed, parse_inputs, plan_add_row, run_target_on
from .writing import Refused


class RunFailed(Refused):
    """The target's run ended in ERROR, so there is no output to build the row from."""

    def __init__(self, detail: str) -> None:
        super().__init__(f"the run ended in ERROR, so there is no output to build the row from:\n{detail}")
        self.detail = detail


@dataclass(slots=True)
class TargetRun:
    """The one run a new row is built from."""

    row_id: str
    name: str
    inputs: dict[str, Any]
    output: Any  # the target's raw output


@dataclass(slots=True)
class NewRow:
    """The row to append and the change that appends it, before anything is written."""

    run: TargetRun
    plan: WritePlan
    notes: list[str] = field(default_factory=list)


def check_new_row(eval_set: EvalSet, name: str, inputs_text: str) -> dict[str, Any]:
    """The parsed inputs, once the name and inputs can make a row of `eval_set`. Raises WritebackError
    for inputs that are not a JSON object, Refused for an empty or taken name. Cheap enough to call
    as the user types."""
    dialect = dialect_for(eval_set.dialect)
    if not isinstance(dialect, WritesRows):  # refused before the target runs; e.g. a .eval.ts file is never written
        where = " or ".join(d.row_sets for d in all_dialects() if isinstance(d, WritesRows)) or "no format's sets"
        raise Refused(f"{eval_set.file_name} is a file of {dialect.title or dialect.name}, which workbench never "
                      f"writes (it adds rows only to {where}); add the row to the file by hand")
    inputs = parse_inputs(inputs_text)
    if not name.strip():
        raise Refused("the row needs a name")
    if any(row.name == name for row in eval_set.rows):
        raise Refused(f"{eval_set.file_name} already has a row named {name!r}; choose another name")
    return inputs


def criteria_to_ask(project: Project, eval_set: EvalSet) -> list[EvaluatorDef]:
    """The set's evaluators a new row needs a criterion typed in for (e.g. uipath-contains' searchText):
    none can be built from the output, and without one the row could only ERROR."""
    return criteria_needed(eval_set.evaluator_refs, project.evaluators_of(eval_set.scope))


def check_new_criteria(project: Project, eval_set: EvalSet, criteria: dict[str, Any]) -> None:
    """Refused when a criterion the new row needs is missing, or one is given for a ref that takes none.
    Checked before the target runs, so a run is never spent on a row that can't be written."""
    try:
        check_criteria(eval_set.evaluator_refs, project.evaluators_of(eval_set.scope), criteria)
    except WritebackError as exc:
        raise Refused(str(exc)) from None


def _compact(value: Any, limit: int = 60) -> str:
    text = jsonio.dumps(value)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def example_inputs(eval_set: EvalSet) -> str:
    """What a new row's inputs could look like, from the set's own rows (for a placeholder)."""
    for row in eval_set.rows:
        if row.inputs:
            return _compact(row.inputs)
    return '{"key": "value"}'


def example_criterion(eval_set: EvalSet, ref: str) -> str:
    """What the criterion for `ref` could look like, from a row of the set that has one."""
    for row in eval_set.rows:
        criterion = row.criteria.get(ref)
        if isinstance(criterion, dict) and criterion:
            return _compact(criterion)
    return '{"searchText": "…"}'


async def run_for_new_row(config: Config, eval_set: EvalSet, name: str, inputs: dict[str, Any], *,
                          runner_factory: RunnerFactory = make_runner, on_log: LogSink | None = None) -> TargetRun:
    """Run the target once on `inputs` as a row of `eval_set` would run. The settings are re-read first
    (an edited workbench.toml counts; command-line overrides are kept): ConfigError when they can't be
    used, RunFailed when the run ends in ERROR."""
    current = await asyncio.to_thread(reload_config, config)
    row_id = str(uuid.uuid4())
    outcome = await run_target_on(current, eval_set, name, inputs, row_id=row_id, on_log=on_log,
                                  runner_factory=runner_factory)
    if not outcome.ok:
        raise RunFailed(outcome.error or "")
    return TargetRun(row_id, name, inputs, outcome.output)


def default_as_null(eval_set: EvalSet) -> bool:
    """Whether a new row of `eval_set` writes "the evaluator's default" as null (its format's
    `WritesRows.default_criterion_as_null`)."""
    dialect = dialect_for(eval_set.dialect)
    return isinstance(dialect, WritesRows) and dialect.default_criterion_as_null


def plan_new_row(project: Project, eval_set: EvalSet, run: TargetRun,
                 criteria: dict[str, Any] | None = None) -> NewRow:
    """The row built from the run's output (an expectation per evaluator that compares with
    expectedOutput; the given `criteria` for the others) and the planned append. Raises Refused."""
    try:
        row, notes = build_row(run.name, run.inputs, run.output, eval_set.evaluator_refs,
                               project.evaluators_of(eval_set.scope), row_id=run.row_id, criteria=criteria,
                               default_as_null=default_as_null(eval_set))
        plan = plan_add_row(project.root, eval_set.path, row)
    except WritebackError as exc:
        raise Refused(str(exc)) from None
    return NewRow(run, plan, notes + plan.notes)


async def try_new_row(config: Config, project: Project, eval_set: EvalSet, name: str, inputs: dict[str, Any], *,
                      runner_factory: RunnerFactory = make_runner, on_log: LogSink | None = None,
                      criteria: dict[str, Any] | None = None) -> NewRow:
    """`run_for_new_row` then `plan_new_row`: everything up to the confirmation; writes nothing.
    A missing criterion is refused before the target runs."""
    check_new_criteria(project, eval_set, criteria or {})
    run = await run_for_new_row(config, eval_set, name, inputs, runner_factory=runner_factory, on_log=on_log)
    return plan_new_row(project, eval_set, run, criteria)
