"""`workbench init` makes a project that runs (issue 22 point 7): a starter target (`agent.py`) and a
`workbench.toml` naming it beside the Studio Web files, and one complete row with an `id` — so `workbench
init && workbench run` is green in an empty folder. It seeds into the scope the project already uses
(seed 003 §1: `default` unless the project uses another), never overwrites a file, never writes through a
link, and leaves a real UiPath project (a `Workflow.json`, run by `uip`) or a project with its own settings
or eval files without a starter target."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

from helpers.cli import cli_env, invoke_workbench
from helpers.project import EXACT, make_project, row

from workbench.config import load_config
from workbench.dialects.uipath.scaffold import init_project, starter_row

REPO = Path(__file__).resolve().parents[2]
INIT_DOCS = REPO / "docs" / "uipath.md"  # `workbench init`, moved out of the README (issue 34)
EVALUATOR = f"evals/default/evaluators/{EXACT}.json"
EVAL_SET = "evals/default/eval-sets/evaluation-set.json"
STARTER = ["agent.py", "workbench.toml"]


def _files(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())


def test_init_then_run_is_green_in_an_empty_folder(tmp_path):
    """As a user types it: `workbench init && workbench run`, in the folder, real processes."""
    env = cli_env(PYTHONPATH=str(REPO))  # this checkout's workbench, run from another folder
    made = invoke_workbench("init", cwd=tmp_path, env=env)
    assert made.returncode == 0, made.stderr
    for name in (EVALUATOR, EVAL_SET, *STARTER):
        assert f"created {name}" in made.stdout
    assert "workbench run" in made.stdout, "it says what to do next"
    ran = invoke_workbench("run", cwd=tmp_path, env=env)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert re.search(r"^PASS  evaluation-set\.json › .+ \[exact-match-evaluator\]", ran.stdout, re.M), ran.stdout
    assert "1 passed, 0 failed, 0 errors" in ran.stdout
    checked = invoke_workbench("check", cwd=tmp_path, env=env)
    assert checked.returncode == 0 and "warning:" not in checked.stdout, checked.stdout + checked.stderr


def test_the_starter_row_is_complete_and_has_an_id(tmp_path):
    init_project(tmp_path)
    doc = json.loads((tmp_path / EVAL_SET).read_text())
    assert doc["evaluatorRefs"] == [EXACT]
    [entry] = doc["evaluations"]
    assert isinstance(entry["id"], str) and entry["id"]
    assert entry["name"] and isinstance(entry["inputs"], dict) and entry["inputs"]
    assert set(entry["evaluationCriterias"]) == {EXACT}, "keyed by the evaluator's file base name"
    assert isinstance(entry["evaluationCriterias"][EXACT]["expectedOutput"], dict)
    assert entry == {**starter_row(), "id": entry["id"]}
    again = tmp_path / "again"
    again.mkdir()
    init_project(again)
    assert json.loads((again / EVAL_SET).read_text())["evaluations"][0]["id"] != entry["id"], "ids are fresh uuids"


def test_workbench_toml_runs_agent_py_with_the_interpreter_workbench_runs_on(tmp_path):
    init_project(tmp_path)
    table = tomllib.loads((tmp_path / "workbench.toml").read_text())
    # "{python}": the interpreter running workbench, i.e. the one that ran init, and still the right one
    # in a clone of the project on another machine (an absolute sys.executable would not be).
    assert table["runner"]["kind"] == "command" and table["runner"]["command"] == ["{python}", "agent.py"]
    config = load_config(tmp_path)
    assert config.runner.command == ["{python}", "agent.py"]
    assert (tmp_path / "agent.py").read_text().startswith('"""'), "the starter target explains itself"


def test_init_never_overwrites_a_users_files(tmp_path):
    root = tmp_path / "p"
    root.mkdir()
    (root / "agent.py").write_text("print('my own agent')\n")
    result = invoke_workbench("init", str(root))
    assert result.returncode == 0, result.stderr
    assert "kept    agent.py (already exists; not overwritten)" in result.stdout
    assert "created workbench.toml" in result.stdout, "the settings name the agent.py that is there"
    assert (root / "agent.py").read_text() == "print('my own agent')\n"
    before = {name: (root / name).read_bytes() for name in _files(root)}
    again = invoke_workbench("init", str(root))  # everything is there now: nothing to do, nothing touched
    assert again.returncode == 1 and "nothing to do" in again.stderr
    for name in (EVALUATOR, EVAL_SET, *STARTER):
        assert f"kept    {name} (already exists; not overwritten)" in again.stdout
    assert {name: (root / name).read_bytes() for name in _files(root)} == before


def test_a_project_with_its_own_settings_gets_no_starter_target(tmp_path):
    (tmp_path / "workbench.toml").write_text('[runner]\ncommand = ["node", "bot.js"]\n')
    result = invoke_workbench("init", str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "workbench.toml").read_text() == '[runner]\ncommand = ["node", "bot.js"]\n'
    assert not (tmp_path / "agent.py").exists()
    assert "kept    workbench.toml" in result.stdout
    assert "skipped agent.py (workbench.toml already says how to run the target)" in result.stdout
    assert json.loads((tmp_path / EVAL_SET).read_text())["evaluations"] == [], "no row for a target init didn't write"


def test_a_uipath_project_keeps_uip_as_its_target(tmp_path):
    """A Workflow.json is run by `uip` with no settings at all: a workbench.toml naming agent.py would
    take that over. The eval set is the empty one Studio Web seeds (its rows follow Workflow.json)."""
    (tmp_path / "Workflow.json").write_text('{"input": null, "output": null}')
    result = invoke_workbench("init", str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert _files(tmp_path) == sorted(["Workflow.json", EVALUATOR, EVAL_SET])
    assert "skipped agent.py, workbench.toml (Workflow.json is the target: uip runs it)" in result.stdout
    assert json.loads((tmp_path / EVAL_SET).read_text())["evaluations"] == []


def test_a_project_with_eval_files_gets_no_starter_target(tmp_path):
    make_project(tmp_path, sets={"grading": [row("r", {"a": 1}, {"b": 1})]}, config=None)
    result = invoke_workbench("init", str(tmp_path))
    assert not (tmp_path / "agent.py").exists() and not (tmp_path / "workbench.toml").exists()
    assert "skipped agent.py, workbench.toml (the project already has eval files)" in result.stdout


# -- the scope (seed 003 §1: `default` unless the project already uses another one) ------------------------


def test_init_seeds_into_the_scope_the_project_already_uses(tmp_path):
    (tmp_path / "evals/custom/eval-sets").mkdir(parents=True)
    result = invoke_workbench("init", str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert f"created evals/custom/evaluators/{EXACT}.json" in result.stdout
    assert "created evals/custom/eval-sets/evaluation-set.json" in result.stdout
    assert not (tmp_path / "evals/default").exists()


def test_init_fills_in_a_used_scope_that_has_sets(tmp_path):
    make_project(tmp_path, sets={"grading": []}, evaluators={}, config=None)
    (tmp_path / "evals/default").rename(tmp_path / "evals/custom")
    result = invoke_workbench("init", str(tmp_path))
    assert f"created evals/custom/evaluators/{EXACT}.json" in result.stdout
    assert "skipped evals/custom/eval-sets/evaluation-set.json (the project already has eval sets)" in result.stdout
    assert not (tmp_path / "evals/default").exists()


def test_default_is_kept_when_the_project_uses_it_and_folders_that_are_no_scope_dont_count(tmp_path):
    (tmp_path / "evals/custom/evaluators").mkdir(parents=True)
    (tmp_path / "evals/default/eval-sets").mkdir(parents=True)
    init_project(tmp_path)
    assert (tmp_path / EVAL_SET).is_file() and not (tmp_path / "evals/custom/eval-sets").exists()
    other = tmp_path / "other"
    (other / "evals/notes").mkdir(parents=True)  # no eval-sets/ or evaluators/ in it: not a scope
    init_project(other)
    assert (other / EVAL_SET).is_file()


# -- never through a link --------------------------------------------------------------------------------


def test_init_refuses_an_evals_folder_that_is_a_link_and_writes_nothing_there(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    root = tmp_path / "p"
    root.mkdir()
    (root / "evals").symlink_to(outside)
    result = invoke_workbench("init", str(root))
    assert result.returncode == 2
    assert "evals is a link to" in result.stderr and "does not follow links" in result.stderr
    assert list(outside.iterdir()) == []


# -- the docs ---------------------------------------------------------------------------------------------


def test_the_docs_init_section_shows_a_whole_row_as_init_writes_it():
    text = INIT_DOCS.read_text(encoding="utf-8")
    section = text[text.index("### `workbench init`"):]
    end = section.find("\n#", 1)
    section = section if end < 0 else section[:end]  # up to the next heading, if any
    block = section[section.index("```json") + len("```json"):]
    shown = json.loads(block[:block.index("```")])
    assert set(shown) == {"id", "name", "inputs", "evaluationCriterias"}
    assert shown == {**starter_row(), "id": shown["id"]}
    assert "agent.py" in section and "workbench.toml" in section and '"{python}"' in section
