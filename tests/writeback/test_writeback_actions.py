"""accept and add-row as use cases: a plan to preview first, then `write_plan`; refusals are
`Refused` (exit 1, nothing written); add-row runs with the settings as they are on disk *now*."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from helpers.checks import tree_digest
from helpers.project import COMMAND_CONFIG, evaluator, make_project, row, toml_text

from workbench.actions.accept import preview_accept, preview_recorded_accept
from workbench.actions.add_row import RunFailed, check_new_row, try_new_row
from workbench.actions.gate import gate_request, run_gate
from workbench.actions.writing import Refused, write_plan
from workbench.config import load_config
from workbench.dialects import dialect_for
from workbench.project import load_project
from workbench.writeback import WritebackError
from workbench.writeback.accept import accept_rows_edit

SET = "evals/default/eval-sets/qa.json"


def failing_project(tmp_path: Path) -> Path:
    return make_project(tmp_path, sets={"qa": [row("a", {"output": {"answer": "new"}}, {"answer": "old"})]},
                        config=COMMAND_CONFIG)


def expectation(root: Path) -> object:
    return json.loads((root / SET).read_text())["evaluations"][0]["evaluationCriterias"]["exact-match-evaluator"]


def test_accept_from_the_results_on_screen_previews_then_writes(tmp_path: Path) -> None:
    root = failing_project(tmp_path)
    config = load_config(root)
    run = run_gate(config, gate_request(config, record=False))
    project = run.report.project
    assert project is not None
    eval_set = project.sets[0]
    before = tree_digest(root)
    preview = preview_accept(project, eval_set, eval_set.rows[0], [*run.report.results, None])
    assert preview.changed and preview.label == "a" and preview.iteration is None
    assert '+' in preview.plan.diff() and '"new"' in preview.plan.diff()
    assert tree_digest(root) == before  # previewing writes nothing
    written = write_plan(preview.plan)
    assert [c.label for c in written.changes] == ["exact-match-evaluator"]
    assert expectation(root) == {"expectedOutput": {"answer": "new"}}


def test_accept_refuses_a_row_no_evaluator_of_which_compares_expected_output(tmp_path: Path) -> None:
    contains = evaluator("*", type_id="uipath-contains")
    root = make_project(tmp_path, sets={"qa": [row("a", {"output": "x"}, criteria={"c": {"searchText": "y"}})]},
                        evaluators={"c": contains}, config=COMMAND_CONFIG)
    doc = json.loads((root / SET).read_text())
    doc["evaluatorRefs"] = ["c"]
    (root / SET).write_text(json.dumps(doc))
    config = load_config(root)
    run = run_gate(config, gate_request(config, record=False))
    project = run.report.project
    assert project is not None
    with pytest.raises(Refused, match="none of this row's evaluators compares the output with expectedOutput"):
        preview_accept(project, project.sets[0], project.sets[0].rows[0], run.report.results)


def test_accept_from_history_before_anything_ran_is_refused_with_the_command_to_run(tmp_path: Path) -> None:
    root = failing_project(tmp_path)
    with pytest.raises(Refused) as caught:
        preview_recorded_accept(load_config(root), "qa", "a")
    assert caught.value.exit_code == 1
    assert str(caught.value).endswith("Run it first: workbench run --set qa --row a")


def test_accept_from_history_uses_the_newest_recorded_output(tmp_path: Path) -> None:
    root = failing_project(tmp_path)
    config = load_config(root)
    run_gate(config, gate_request(config))
    preview = preview_recorded_accept(config, "qa", "a")
    assert preview.iteration == 1 and preview.changed
    with pytest.raises(WritebackError) as caught:  # an unknown row is a usage error, not a refusal
        preview_recorded_accept(config, "qa", "nope")
    assert caught.value.exit_code == 2 and not isinstance(caught.value, Refused)


def test_new_row_names_and_inputs_are_checked_before_running(tmp_path: Path) -> None:
    root = failing_project(tmp_path)
    config = load_config(root)
    eval_set = run_gate(config, gate_request(config, record=False)).report.project.sets[0]  # type: ignore[union-attr]
    assert check_new_row(eval_set, "b", '{"output": 1}') == {"output": 1}
    with pytest.raises(WritebackError, match="inputs must be a JSON object") as caught:
        check_new_row(eval_set, "b", "[1]")
    assert caught.value.exit_code == 2
    with pytest.raises(Refused, match=r"qa\.json already has a row named 'a'; choose another name"):
        check_new_row(eval_set, "a", "{}")
    with pytest.raises(Refused, match="the row needs a name"):
        check_new_row(eval_set, "  ", "{}")


def test_add_row_runs_with_settings_edited_after_the_config_was_loaded(tmp_path: Path) -> None:
    root = make_project(tmp_path, sets={"qa": [row("a", {"output": 1}, {"result": 1})]},
                        config={"kind": "command", "command": [str(tmp_path / "no-such-program")], "timeout": 20})
    config = load_config(root)  # the launch-time settings: a target that can't start (run refuses it now)
    project = load_project(root, config)
    (root / "workbench.toml").write_text(toml_text(COMMAND_CONFIG))  # fixed while the session runs

    new_row = asyncio.run(try_new_row(config, project, project.sets[0], "b", {"output": {"grade": "PASS"}}))
    assert new_row.run.output == {"grade": "PASS"}
    assert '"grade": "PASS"' in new_row.plan.diff()
    write_plan(new_row.plan)
    rows = json.loads((root / SET).read_text())["evaluations"]
    assert [r["name"] for r in rows] == ["a", "b"] and rows[1]["id"] == new_row.run.row_id


def test_add_row_says_why_when_the_run_fails(tmp_path: Path) -> None:
    root = failing_project(tmp_path)
    config = load_config(root)
    project = run_gate(config, gate_request(config, record=False)).report.project
    assert project is not None
    before = tree_digest(root)
    with pytest.raises(RunFailed) as caught:
        asyncio.run(try_new_row(config, project, project.sets[0], "b", {"exit": 3}))
    assert caught.value.exit_code == 1 and caught.value.detail.startswith("the target exited with code 3")
    assert str(caught.value).startswith("the run ended in ERROR, so there is no output to build the row from:")
    assert tree_digest(root) == before


def test_accept_refuses_a_set_that_is_not_a_json_object_right_now() -> None:
    edit = accept_rows_edit([], {}, dialect_for("uipath"))
    with pytest.raises(WritebackError) as caught:
        edit(b"[]")
    assert str(caught.value) == "the eval set's top level is not a JSON object right now; nothing written"
    with pytest.raises(WritebackError) as caught:
        edit(b"{")
    assert str(caught.value).startswith("the eval set is not valid JSON right now (")
    assert str(caught.value).endswith("); fix it, then accept")
