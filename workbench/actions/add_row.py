"""Add a row: run the target once on new inputs, with the settings as the files say *now*, build the
row from its output and plan the append. Written with `writing.write_plan` when the user confirms."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass, field
from typing import Any

from ..config import Config, reload_config
from ..engine import RunnerFactory
from ..model import EvalSet, Project
from ..runners import LogSink, make_runner
from ..writeback import WritebackError, WritePlan
from ..writeback.add_row import build_row, parse_inputs, plan_add_row, run_target_on
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
    inputs = parse_inputs(inputs_text)
    if not name.strip():
        raise Refused("the row needs a name")
    if any(row.name == name for row in eval_set.rows):
        raise Refused(f"{eval_set.file_name} already has a row named {name!r}; choose another name")
    return inputs


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


def plan_new_row(project: Project, eval_set: EvalSet, run: TargetRun) -> NewRow:
    """The row built from the run's output (an expectation per evaluator that compares with
    expectedOutput; notes for the others) and the planned append. Raises Refused."""
    try:
        row, notes = build_row(run.name, run.inputs, run.output, eval_set.evaluator_refs,
                               project.evaluators_of(eval_set.scope), row_id=run.row_id)
        plan = plan_add_row(project.root, eval_set.path, row)
    except WritebackError as exc:
        raise Refused(str(exc)) from None
    return NewRow(run, plan, notes + plan.notes)


async def try_new_row(config: Config, project: Project, eval_set: EvalSet, name: str, inputs: dict[str, Any], *,
                      runner_factory: RunnerFactory = make_runner, on_log: LogSink | None = None) -> NewRow:
    """`run_for_new_row` then `plan_new_row`: everything up to the confirmation; writes nothing."""
    run = await run_for_new_row(config, eval_set, name, inputs, runner_factory=runner_factory, on_log=on_log)
    return plan_new_row(project, eval_set, run)
