"""Issue 22 (UiPath bullet): a run narrowed with `--row` / `--set` is judged on the rows it ran. Problems of
eval files none of its rows is in are shown (marked as not counted) but don't fail it; problems of the files
it ran, of the settings and of evaluators still count. A full run counts everything, as before."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.cli import invoke_json, invoke_workbench
from helpers.project import COMMAND_CONFIG, EXACT, eval_set, make_project, row

NOT_COUNTED = "problem (not counted: none of this run's rows is in this file): evals/default/eval-sets/broken.json: "


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path / "p", config=COMMAND_CONFIG, sets={
        "good": [row("a", {"output": {"x": 1}}, {"x": 1})],
        "other": [row("b", {"output": {"x": 2}}, {"x": 2})],
        "broken": "{not json",
    })


@pytest.mark.parametrize("narrowing", [("--set", "good"), ("--row", "a")])
def test_a_narrowed_run_is_judged_on_the_rows_it_ran(project: Path, narrowing: tuple[str, str]) -> None:
    proc = invoke_workbench("run", str(project), *narrowing)
    assert proc.returncode == 0, proc.stdout
    lines = proc.stdout.splitlines()
    assert any(line.startswith(NOT_COUNTED) for line in lines)  # shown ...
    assert lines[-1].startswith("1 passed, 0 failed, 0 errors (1 result in ")  # ... not counted
    proc, doc = invoke_json("run", str(project), *narrowing)
    assert proc.returncode == 0 and doc["passed"] is True and doc["problems"] == []
    assert [p["file"] for p in doc["problems_not_counted"]] == ["evals/default/eval-sets/broken.json"]


def test_the_full_run_still_counts_every_file(project: Path) -> None:
    proc = invoke_workbench("run", str(project))
    assert proc.returncode == 1
    assert "problem: evals/default/eval-sets/broken.json: " in proc.stdout
    assert "not counted" not in proc.stdout


def test_a_problem_of_the_file_that_ran_still_counts(tmp_path: Path) -> None:
    """An entry of the set that ran which is not an object is that set's problem: it fails the narrowed run."""
    good = eval_set([row("a", {"output": {"x": 1}}, {"x": 1}), 5])
    root = make_project(tmp_path / "p", config=COMMAND_CONFIG, sets={"good": good, "broken": "{not json"})
    proc, doc = invoke_json("run", str(root), "--row", "a")
    assert proc.returncode == 1
    assert [p["file"] for p in doc["problems"]] == ["evals/default/eval-sets/good.json"]
    assert [p["file"] for p in doc["problems_not_counted"]] == ["evals/default/eval-sets/broken.json"]


def test_a_broken_evaluator_and_broken_settings_still_count(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p", config=COMMAND_CONFIG, sets={
        "good": [row("a", {"output": {"x": 1}}, {"x": 1})]},
        evaluators={EXACT: {"version": "1.0", "id": "x", "type": 1}, "unused": "{broken"})
    proc, doc = invoke_json("run", str(root), "--set", "good")
    assert proc.returncode == 1
    assert "problems_not_counted" not in doc
