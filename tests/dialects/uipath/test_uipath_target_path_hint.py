"""`check` gives the casing hint for a `targetOutputKey` path too (issue 22, seed 003 rule 4): evaluator
`targetOutputKey = "sum"` with `expectedOutput: {"Sum": 2}` says `"Sum" — did you mean "sum"?` (before,
only "expectedOutput has no 'sum'"), nested paths included, with or without a Workflow.json schema —
such a row can only FAIL (a path missing from expectedOutput fails), so it is an error in `check`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers.project import COMMAND_CONFIG, EXACT, evaluator, make_project, row

from workbench.actions.project_check import check_project

OUTPUT_SCHEMA = {"type": "object", "properties": {
    "sum": {"type": "number"},
    "details": {"type": "object", "properties": {"rawScore": {"type": "number"}}}}}
WORKFLOW = json.dumps({"input": None, "output": {"schema": OUTPUT_SCHEMA}})


def _errors(tmp_path: Path, target: str, expected: Any, *, workflow: bool) -> list[str]:
    files = {"Workflow.json": WORKFLOW} if workflow else {}
    root = make_project(tmp_path / "p", sets={"math": [row("two", {"a": 1, "b": 1}, expected)]},
                        evaluators={EXACT: evaluator(target)}, files=files, config=COMMAND_CONFIG)
    return [p.message for p in check_project(root).errors]


@pytest.mark.parametrize("workflow", [True, False], ids=["with Workflow.json", "without"])
@pytest.mark.parametrize(("target", "expected", "hint"), [
    ("sum", {"Sum": 2}, '"Sum" — did you mean "sum"?'),
    ("details.rawScore", {"details": {"RawScore": 1}}, '"details.RawScore" — did you mean "details.rawScore"?'),
    ("details.rawScore", {"Details": {"rawScore": 1}}, '"Details.rawScore" — did you mean "details.rawScore"?'),
    ("details.rawScore", {"Details": {"RawScore": 1}}, '"Details.RawScore" — did you mean "details.rawScore"?'),
])
def test_a_target_path_spelled_in_another_casing_gets_the_hint(tmp_path, workflow, target, expected, hint):
    found = [m for m in _errors(tmp_path, target, expected, workflow=workflow) if "targetOutputKey" in m]
    assert len(found) == 1, found
    [message] = found
    assert message.startswith("evaluations[0] ('two'): expectedOutput has no " + json.dumps(target))
    assert hint in message
    assert "Keys are case-sensitive" in message


def test_a_row_with_the_path_spelled_right_has_no_target_problem(tmp_path):
    for workflow in (True, False):
        found = _errors(tmp_path / str(workflow), "details.rawScore", {"details": {"rawScore": 1}}, workflow=workflow)
        assert found == [], found


def test_a_path_with_no_near_spelling_says_only_that_it_is_missing(tmp_path):
    [message] = _errors(tmp_path, "sum", {"total": 2}, workflow=False)
    assert message == ("evaluations[0] ('two'): expectedOutput has no \"sum\", which exact-match-evaluator's "
                       "targetOutputKey compares (a missing path fails)")


def test_a_key_one_letter_off_gets_a_did_you_mean(tmp_path):
    [message] = _errors(tmp_path, "total", {"totl": 2}, workflow=False)
    assert message.endswith('(a missing path fails): "totl" — did you mean "total"?')
