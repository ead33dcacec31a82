"""`workbench init`: the files Studio Web seeds, never overwriting, and a result that loads and runs (the
starter target and the scope: test_init_starter.py)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from helpers.cli import invoke_json, invoke_workbench
from helpers.project import COMMAND_CONFIG, EXACT, make_project, toml_text

from workbench.cli import main
from workbench.dialects.uipath.scaffold import init_project
from workbench.project import load_project


@pytest.fixture
def cli():
    """`workbench ...` in-process (fast); the end-to-end subprocess runs are in test_run_command.py."""
    runner = CliRunner()

    def invoke(*args: str):
        return runner.invoke(main, list(args), catch_exceptions=False)

    return invoke

EVALUATOR = "evals/default/evaluators/exact-match-evaluator.json"
EVAL_SET = "evals/default/eval-sets/evaluation-set.json"


def test_init_creates_the_seeded_files_and_a_starter(tmp_path):
    proc = invoke_workbench("init", str(tmp_path))  # once as a real subprocess, like a user
    assert proc.returncode == 0, proc.stderr
    assert f"created {EVALUATOR}" in proc.stdout and f"created {EVAL_SET}" in proc.stdout
    evaluator = json.loads((tmp_path / EVALUATOR).read_text())
    assert evaluator["evaluatorTypeId"] == "uipath-exact-match"
    assert evaluator["evaluatorConfig"]["targetOutputKey"] == "*"
    assert evaluator["evaluatorConfig"]["defaultEvaluationCriteria"] == {"expectedOutput": {}}
    eval_set = json.loads((tmp_path / EVAL_SET).read_text())
    assert eval_set["evaluatorRefs"] == [EXACT], "refs are the evaluator's file base name, not its id"
    assert len(eval_set["evaluations"]) == 1, "one complete row (issue 22 point 7; it was empty)"
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*.json")) == [EVAL_SET, EVALUATOR]
    assert (tmp_path / "agent.py").is_file() and (tmp_path / "workbench.toml").is_file()


def test_init_refuses_to_overwrite(tmp_path, cli):
    assert cli("init", str(tmp_path)).exit_code == 0
    (tmp_path / EVAL_SET).write_text('{"edited": "by the user in Studio Web"}')
    before = {p: (tmp_path / p).read_bytes() for p in (EVALUATOR, EVAL_SET)}
    result = cli("init", str(tmp_path))
    assert result.exit_code == 1
    assert f"kept    {EVAL_SET} (already exists; not overwritten)" in result.stdout
    assert "nothing to do" in result.stderr
    assert {p: (tmp_path / p).read_bytes() for p in before} == before


def test_init_fills_in_only_what_is_missing(tmp_path):
    (tmp_path / "evals/default/evaluators").mkdir(parents=True)
    (tmp_path / EVALUATOR).write_text('{"mine": true}')
    done = init_project(tmp_path)
    assert done.created == [EVAL_SET] and done.kept == [EVALUATOR]
    assert done.skipped == ["agent.py, workbench.toml (the project already has eval files)"]
    assert (tmp_path / EVALUATOR).read_text() == '{"mine": true}'


def test_init_in_the_current_folder(tmp_path, cli, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert cli("init").exit_code == 0
    assert (tmp_path / EVAL_SET).is_file()


def test_init_creates_a_missing_project_folder(tmp_path, cli):
    result = cli("init", str(tmp_path / "new" / "project"))
    assert result.exit_code == 0, result.output
    assert (tmp_path / "new" / "project" / EVALUATOR).is_file()
    assert (tmp_path / "new" / "project" / EVAL_SET).is_file()


def test_init_on_a_file_exits_2(tmp_path, cli):
    (tmp_path / "notes.txt").write_text("x")
    result = cli("init", str(tmp_path / "notes.txt"))
    assert result.exit_code == 2 and "is a file" in result.stderr


def test_an_initialised_project_loads_cleanly_and_runs(tmp_path):
    init_project(tmp_path)
    project = load_project(tmp_path)
    assert [s.file_name for s in project.sets] == ["evaluation-set.json"]
    assert list(project.evaluators) == [("default", EXACT)]
    assert not project.problems, project.problems
    (tmp_path / "workbench.toml").write_text(toml_text(COMMAND_CONFIG))  # the fixture target instead of agent.py
    # Add a row the way a user would (keeping the file's other fields), and it runs.
    path = tmp_path / EVAL_SET
    doc = json.loads(path.read_text())
    doc["evaluations"] = [{"id": "r1", "name": "first row", "inputs": {"output": {"grade": "PASS"}},
                           "evaluationCriterias": {EXACT: {"expectedOutput": {"grade": "PASS"}}}}]
    path.write_text(json.dumps(doc, indent=2))
    proc, report = invoke_json("run", str(tmp_path))
    assert proc.returncode == 0, report
    assert [(r["row_name"], r["verdict"]) for r in report["results"]] == [("first row", "PASS")]


def test_a_workflow_project_gets_the_empty_set_studio_web_seeds_and_runs_with_allow_empty(tmp_path):
    (tmp_path / "Workflow.json").write_text('{"input": null, "output": null}')
    init_project(tmp_path)
    assert json.loads((tmp_path / EVAL_SET).read_text())["evaluations"] == []
    (tmp_path / "workbench.toml").write_text(toml_text(COMMAND_CONFIG))
    # Empty, as Studio Web seeds it: nothing ran, which is fine with --allow-empty (and fails without).
    assert invoke_workbench("run", str(tmp_path), "--allow-empty").returncode == 0
    assert invoke_workbench("run", str(tmp_path)).returncode == 1


def test_init_in_a_project_with_eval_sets_adds_no_empty_set(tmp_path):
    make_project(tmp_path, sets={"grading": []})
    before = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*"))
    done = init_project(tmp_path)
    assert done.created == [] and done.kept == [EVALUATOR]
    assert done.skipped == [f"{EVAL_SET} (the project already has eval sets)",
                            "agent.py, workbench.toml (the project already has eval files)"]
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")) == before


def test_init_that_skips_what_it_does_not_create_says_so_not_that_all_is_there(tmp_path, cli):
    """The evaluator kept, the set left out beside another set of the user's: nothing created, yet not "the
    project already has what init would create"; the next steps are still said, and the exit is 1."""
    (tmp_path / "evals/default/evaluators").mkdir(parents=True)
    (tmp_path / EVALUATOR).write_text('{"mine": true}')
    (tmp_path / "evals/default/eval-sets").mkdir(parents=True)
    (tmp_path / "evals/default/eval-sets/mine.json").write_text("{}")
    result = cli("init", str(tmp_path))
    assert result.exit_code == 1
    assert f"skipped {EVAL_SET} (the project already has eval sets)" in result.stdout
    assert "\nNext: " in result.stdout and "nothing to do" not in result.stderr
    assert "nothing written: every file above is kept or skipped, each saying why" in result.stderr
