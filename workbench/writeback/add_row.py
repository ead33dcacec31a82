"""Add a row: run the target once on new inputs and append a row whose expectations are that output.

The new row gets a fresh UUID, the name and inputs, and for each of the set's evaluator refs an
`expectedOutput` built from the output (only the compared paths for path-selecting evaluators). It is
laid out like the set's last row, keys in that row's order; `createdAt`/`updatedAt` are written when
that row has them, in its format.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from .. import jsonio
from ..config import Config
from ..model import EvalSet, EvaluatorDef, wrap_output
from ..output_paths import MISSING
from ..runners import RUNNER_FAULTS, LogSink, Runner, RunOutcome, RunRequest, make_runner, outcome_from_exception
from ..scoring import scorer_of
from . import expected as exp
from .accept import Clock, utc_now
from .edit import AppendItem, Op, SetValue, apply_ops
from .errors import WritebackError
from .plan import Change, Edit, Edited, WritePlan, make_plan
from .stamp import restamp
from .style import detect

STAMP_KEYS = ("createdAt", "updatedAt")


def parse_inputs(text: str) -> dict[str, Any]:
    """`--inputs` text as the row's inputs (a JSON object), or a WritebackError saying what is wrong."""
    try:
        return jsonio.loads_object(text)
    except jsonio.NotAnObject:
        raise WritebackError("inputs must be a JSON object, such as {\"score\": 72}") from None
    except jsonio.JsonError as exc:
        raise WritebackError(f"inputs are not valid JSON: {exc}") from None


def _usable_default(evaluator: EvaluatorDef) -> bool:
    """Whether the engine can score a row without its own criterion for this evaluator: a type other
    than exact match with a `defaultEvaluationCriteria` that says something (not a blank skeleton)."""
    default = evaluator.config.get("defaultEvaluationCriteria")
    scorer = scorer_of(evaluator)
    return (scorer is not None and scorer.default_criterion_allowed and isinstance(default, dict)
            and any(value not in ("", None, {}, []) for value in default.values()))


def criteria_needed(refs: Sequence[str], evaluators: Mapping[str, EvaluatorDef]) -> list[EvaluatorDef]:
    """The evaluators a new row needs a criterion typed in for: they don't compare with expectedOutput
    (so none can be built from the output) and have no usable default; without one the row can only ERROR."""
    return [evaluator for ref in refs if (evaluator := evaluators.get(ref)) is not None
            and not exp.uses_expected_output(evaluator) and not _usable_default(evaluator)]


def check_criteria(refs: Sequence[str], evaluators: Mapping[str, EvaluatorDef], given: Mapping[str, Any]) -> None:
    """Refuse criteria for refs the set doesn't use or whose expectation comes from the output, and a
    missing criterion an evaluator needs (WritebackError naming the ref and an example)."""
    for ref, criterion in given.items():
        evaluator = evaluators.get(ref)
        if ref not in refs or evaluator is None:
            raise WritebackError(f"the set has no evaluator ref {ref!r} to give a criterion for "
                                 f"(its refs: {', '.join(refs) or 'none'})")
        if exp.uses_expected_output(evaluator):
            raise WritebackError(f"{ref}'s expectation is built from the target's output; give criteria only for "
                                 "evaluators that don't compare with expectedOutput")
        if not isinstance(criterion, dict):
            raise _not_an_object(ref)
    missing = [ev for ev in criteria_needed(refs, evaluators) if ev.ref not in given]
    if missing:
        names = ", ".join(f"{ev.ref} ({ev.type_id})" for ev in missing)
        raise WritebackError(f"the new row needs a criterion for {names}: it doesn't compare with expectedOutput, so "
                             "none can be built from the output, and a row without one can't be scored by it. Give it "
                             f"with --criterion {missing[0].ref}='{{...}}' (in the TUI, in the row dialog)")


def _not_an_object(ref: str) -> WritebackError:
    return WritebackError(f"the criterion for {ref} must be a JSON object, such as {{\"searchText\": \"refund\"}}")


def parse_criterion(ref: str, text: str) -> dict[str, Any]:
    """A typed criterion (a JSON object) for evaluator `ref`; WritebackError (exit 2) saying what is wrong."""
    try:
        value = jsonio.loads(text)
    except jsonio.JsonError as exc:
        raise WritebackError(f"the criterion for {ref} is not valid JSON: {exc}") from None
    if not isinstance(value, dict):
        raise _not_an_object(ref)
    return value


def build_row(name: str, inputs: dict[str, Any], output: Any, refs: Sequence[str],
              evaluators: Mapping[str, EvaluatorDef], *, row_id: str | None = None,
              criteria: Mapping[str, Any] | None = None,
              default_as_null: bool = False) -> tuple[dict[str, Any], list[str]]:
    """The new row for `output` (the target's raw output, wrapped as scorers see it): an expectedOutput
    for each evaluator that compares with it, the given `criteria` for the others (refused when one
    is needed and missing), and notes on evaluators left to their default criterion — their key left out,
    or `null` under it where the set's format says so (`WritesRows.default_criterion_as_null`)."""
    if not name.strip():
        raise WritebackError("the row needs a name")
    given = dict(criteria or {})
    check_criteria(refs, evaluators, given)
    actual = wrap_output(output)
    built: dict[str, Any] = {}
    notes: list[str] = []
    for ref in refs:
        evaluator = evaluators.get(ref)
        if evaluator is None:
            raise WritebackError(f"evaluator {ref!r} has no usable file, so workbench can't tell what it "
                                 "compares; fix the evaluator first")
        if ref in given:
            built[ref] = given[ref]
        elif exp.uses_expected_output(evaluator):
            built[ref] = {"expectedOutput": exp.selected(actual, evaluator)}
        else:
            if default_as_null:
                built[ref] = None
            notes.append(f"{ref} ({evaluator.type_id}) scores the new row with its defaultEvaluationCriteria; "
                         f"{'replace the null of' if default_as_null else 'add'} evaluationCriterias[{ref!r}] "
                         "to give the row its own")
    row = {"id": row_id or str(uuid.uuid4()), "name": name, "inputs": inputs, "evaluationCriterias": built}
    return row, notes


def _ordered(row: dict[str, Any], template: Any, now: datetime) -> dict[str, Any]:
    """`row` with the keys in the order the template row uses, plus its timestamps, restamped."""
    if not isinstance(template, dict):
        return row
    ordered: dict[str, Any] = {}
    for key, value in template.items():
        if key in row:
            ordered[key] = row[key]
        elif key in STAMP_KEYS:
            stamped = restamp(value, now)
            if stamped is not None:
                ordered[key] = stamped
    for key, value in row.items():
        ordered.setdefault(key, value)
    return ordered


def add_row_edit(row: dict[str, Any], clock: Clock = utc_now) -> Edit:
    """The edit (bytes → Edited) that appends `row` to the eval set's `evaluations`."""

    def edit(data: bytes) -> Edited:
        try:
            doc = jsonio.loads(data)
        except jsonio.JsonError as exc:
            raise WritebackError(f"the eval set is not valid JSON right now ({exc}); fix it, then add the row") \
                from None
        evaluations = doc.get("evaluations") if isinstance(doc, dict) else None
        if not isinstance(evaluations, list):
            raise WritebackError("the eval set has no \"evaluations\" array to add the row to")
        for entry in evaluations:
            if isinstance(entry, dict) and entry.get("name") == row["name"]:
                raise WritebackError(f"the eval set already has a row named {row['name']!r}; choose another name")
            if isinstance(entry, dict) and entry.get("id") == row["id"]:
                raise WritebackError(f"the eval set already has a row with id {row['id']!r}")
        now = clock()
        templates = [entry for entry in evaluations if isinstance(entry, dict)]
        new_row = _ordered(row, templates[-1] if templates else None, now)
        ops: list[Op] = [AppendItem(("evaluations",), new_row)]
        notes: list[str] = []
        if "updatedAt" in doc:
            stamped = restamp(doc["updatedAt"], now)
            if stamped is None:
                notes.append(f"left updatedAt {doc['updatedAt']!r} alone: its format is not one workbench knows")
            else:
                ops.append(SetValue(("updatedAt",), stamped))
        change = Change(f"evaluations[{len(evaluations)}]", MISSING, new_row)
        return Edited(apply_ops(data, doc, ops, detect(data)), [change], notes)

    return edit


def plan_add_row(root: Path, set_path: Path, row: dict[str, Any], *, clock: Clock = utc_now) -> WritePlan:
    """What appending `row` to the eval set at `set_path` would write; writes nothing."""
    return make_plan(root, set_path, add_row_edit(row, clock))


async def run_target_on(config: Config, eval_set: EvalSet, name: str, inputs: dict[str, Any], *,
                   row_id: str = "", on_log: LogSink | None = None,
                   runner_factory: Callable[[Config], Runner] = make_runner) -> RunOutcome:
    """Run the target once on `inputs`, as the engine would for a row of `eval_set`."""
    runner = runner_factory(config)
    request = RunRequest(inputs=inputs, row_id=row_id, row_name=name, set_file=eval_set.file_name,
                         scope=eval_set.scope)
    try:
        return await runner.run(request, on_log)
    except RUNNER_FAULTS as exc:
        return outcome_from_exception(exc)
    finally:
        await runner.aclose()
