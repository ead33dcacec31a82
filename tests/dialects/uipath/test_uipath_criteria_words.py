"""What `run` and `check` say about a row's criterion for an evaluator (seed 003 rules 1–2, issue 22): a
criterion written as `null` is named as null — not "no evaluationCriterias['ref'] (criteria present:
'ref')", which contradicts itself — and a criterion that is really missing still lists those present."""

from __future__ import annotations

import json

from helpers.cli import invoke_workbench
from helpers.project import COMMAND_CONFIG, EXACT, make_project, row

from workbench.actions.project_check import check_project


def _project(tmp_path, criteria):
    return make_project(tmp_path / "p", config=COMMAND_CONFIG,
                        sets={"s": [row("nulled", {"output": {"a": 1}}, criteria=criteria)]})


def test_a_null_criterion_is_named_as_null_in_run(tmp_path):
    root = _project(tmp_path, {EXACT: None})
    proc = invoke_workbench("run", str(root), "--json")
    [result] = json.loads(proc.stdout)["results"]
    assert result["verdict"] == "ERROR"
    assert f"evaluationCriterias[{EXACT!r}] is null" in result["detail"]
    assert "criteria present" not in result["detail"]
    assert '{"expectedOutput": {...}}' in result["detail"], "it says what to write instead"


def test_a_null_criterion_is_named_as_null_in_check(tmp_path):
    report = check_project(_project(tmp_path, {EXACT: None}))
    [problem] = [p for p in report.errors if "nulled" in p.message]
    assert f"evaluationCriterias[{EXACT!r}] is null" in problem.message
    assert "criteria present" not in problem.message


def test_a_missing_criterion_still_names_the_criteria_present(tmp_path):
    root = _project(tmp_path, {"other-evaluator": {"expectedOutput": {"a": 1}}})
    proc = invoke_workbench("run", str(root), "--json")
    [result] = json.loads(proc.stdout)["results"]
    assert result["verdict"] == "ERROR"
    assert f"no evaluationCriterias[{EXACT!r}] (criteria present: 'other-evaluator')" in result["detail"]
