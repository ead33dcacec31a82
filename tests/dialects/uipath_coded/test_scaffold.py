"""`workbench init --format uipath-coded`: uipath.json naming main.py:main, a starter main.py whose two tools
are recorded by uipath.tracing.traced, one eval set scored by two evaluators (refs and criteria keys are the
evaluators' ids) — green under `uipath eval` and `workbench run` in a Python that has uipath, and in one that
hasn't, `run` refusing before any row with the one line saying what to install where. Nothing existing is
overwritten, nothing written through a link, and beside an entry point or evaluations of the user's no starter
agent or rows are added."""

from __future__ import annotations

import importlib.util
import json
import os
import stat
import sys
from pathlib import Path

import pytest
from coded_sdk import UiPathSdk, run_sdk_eval, sdk_scores
from helpers.checks import tree_digest
from helpers.cli import cli_env, invoke_json, invoke_workbench

from workbench.dialects.uipath_coded.scaffold import (
    ENTRY_FILE,
    EXACT_MATCH,
    PROJECT_FILE,
    SET_FILE,
    TOOL_ORDER,
    init_project,
)
from workbench.dialects.uipath_coded.sdk_check import PROBE_MARK
from workbench.writeback.atomic import TEMP_SUFFIX

REPO = Path(__file__).resolve().parents[3]
EXACT_FILE = "evaluations/evaluators/exact-match.json"
ORDER_FILE = "evaluations/evaluators/tool-call-order.json"
ALL = [PROJECT_FILE, ENTRY_FILE, EXACT_FILE, ORDER_FILE, SET_FILE]


def _files(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file() or p.is_symlink())


def _doc(root: Path, relative: str) -> dict:
    return json.loads((root / relative).read_text(encoding="utf-8"))


def test_an_empty_folder_gets_the_whole_starter_project(tmp_path: Path) -> None:
    done = init_project(tmp_path)
    assert sorted(done.created) == sorted(ALL) and done.kept == [] and done.skipped == []
    assert _files(tmp_path) == sorted(ALL), "nothing else, no temp file left behind"
    assert _doc(tmp_path, PROJECT_FILE) == {"functions": {"main": "main.py:main"}}
    exact, order = _doc(tmp_path, EXACT_FILE), _doc(tmp_path, ORDER_FILE)
    assert (exact["id"], exact["evaluatorTypeId"], exact["version"]) == (EXACT_MATCH, "uipath-exact-match", "1.0")
    assert exact["evaluatorConfig"]["targetOutputKey"] == "capital"
    assert (order["id"], order["evaluatorTypeId"]) == (TOOL_ORDER, "uipath-tool-call-order")
    assert order["evaluatorConfig"]["defaultEvaluationCriteria"] == {"toolCallsOrder": ["find_capital", "write_answer"]}
    eval_set = _doc(tmp_path, SET_FILE)
    assert eval_set["version"] == "1.0" and eval_set["evaluatorRefs"] == [EXACT_MATCH, TOOL_ORDER], "refs are ids"
    rows = eval_set["evaluations"]
    assert len(rows) == 3 and len({row["id"] for row in rows}) == 3
    for row in rows:
        assert isinstance(row["id"], str) and row["name"] and row["inputs"]["country"]
        assert set(row["evaluationCriterias"]) == {EXACT_MATCH, TOOL_ORDER}
        assert row["evaluationCriterias"][TOOL_ORDER] is None, "null: the evaluator's defaultEvaluationCriteria"
        assert set(row["evaluationCriterias"][EXACT_MATCH]["expectedOutput"]) == {"capital"}
    source = (tmp_path / ENTRY_FILE).read_text(encoding="utf-8")
    assert "from uipath.tracing import traced" in source and source.count('@traced(span_type="tool")') == 2
    compile(source, ENTRY_FILE, "exec")
    for name in ALL:
        assert stat.S_IMODE((tmp_path / name).stat().st_mode) == 0o644
    assert "workbench run" in done.next_steps
    assert "uipath eval main evaluations/eval-sets/default.json" in done.next_steps


def test_a_second_init_keeps_everything(tmp_path: Path) -> None:
    init_project(tmp_path)
    before = {name: (tmp_path / name).read_bytes() for name in ALL}
    (tmp_path / ENTRY_FILE).write_text("def main(input):\n    return {}\n", encoding="utf-8")
    again = init_project(tmp_path)
    assert again.created == [] and sorted(again.kept) == sorted(ALL) and again.skipped == []
    assert (tmp_path / ENTRY_FILE).read_text(encoding="utf-8") == "def main(input):\n    return {}\n"
    assert all((tmp_path / name).read_bytes() == before[name] for name in ALL if name != ENTRY_FILE)


def test_beside_the_users_entry_point_no_starter_agent_or_rows(tmp_path: Path) -> None:
    """The user's agent is not the starter's: its rows would not fit, nor the starter evaluators, which compare the
    starter's `capital` and its two tools. One exact match on the whole output and an empty set refer to it."""
    (tmp_path / PROJECT_FILE).write_text('{"functions": {"agent": "src/agent.py:run"}}', encoding="utf-8")
    done = init_project(tmp_path)
    assert done.kept == [PROJECT_FILE] and sorted(done.created) == sorted([EXACT_FILE, SET_FILE])
    assert done.skipped == [f"{ENTRY_FILE} ({PROJECT_FILE} already names the entry point)",
                            f"{ORDER_FILE} (its tools are the starter agent's (find_capital, write_answer); for your "
                            "agent's, write one with evaluatorTypeId uipath-tool-call-order naming them)"]
    assert not (tmp_path / ENTRY_FILE).exists() and not (tmp_path / ORDER_FILE).exists()
    exact, eval_set = _doc(tmp_path, EXACT_FILE), _doc(tmp_path, SET_FILE)
    assert exact["id"] == EXACT_MATCH and exact["evaluatorConfig"]["targetOutputKey"] == "*", exact
    assert eval_set["evaluations"] == [] and eval_set["evaluatorRefs"] == [EXACT_MATCH]
    assert (tmp_path / PROJECT_FILE).read_text(encoding="utf-8") == '{"functions": {"agent": "src/agent.py:run"}}'
    assert "add rows to evaluations/eval-sets/default.json" in done.next_steps
    assert '{"ExactMatch": {"expectedOutput": <the whole output>}}' in done.next_steps


def test_a_main_py_with_a_main_gets_a_uipath_json_naming_it(tmp_path: Path) -> None:
    (tmp_path / ENTRY_FILE).write_text("async def main(input):\n    return input\n", encoding="utf-8")
    done = init_project(tmp_path)
    assert PROJECT_FILE in done.created and ENTRY_FILE in done.kept
    assert _doc(tmp_path, PROJECT_FILE) == {"functions": {"main": "main.py:main"}}
    assert _doc(tmp_path, SET_FILE)["evaluations"] == []


def test_a_main_py_without_a_main_gets_no_uipath_json(tmp_path: Path) -> None:
    (tmp_path / ENTRY_FILE).write_text("def run(input):\n    return input\n", encoding="utf-8")
    done = init_project(tmp_path)
    assert not (tmp_path / PROJECT_FILE).exists()
    [skipped] = [item for item in done.skipped if item.startswith(PROJECT_FILE)]
    assert "main.py has no function main" in skipped and '"file.py:function"' in skipped


def _users_evaluations(root: Path) -> None:
    """A coded project of the user's: its agent, its evaluator (id MyExact) and one set whose row uses it."""
    (root / PROJECT_FILE).write_text('{"functions": {"main": "main.py:main"}}', encoding="utf-8")
    (root / ENTRY_FILE).write_text('def main(input):\n    return {"a": 1}\n', encoding="utf-8")
    (root / "evaluations" / "evaluators").mkdir(parents=True)
    (root / "evaluations" / "eval-sets").mkdir()
    (root / "evaluations" / "evaluators" / "mine.json").write_text(json.dumps(
        {"version": "1.0", "id": "MyExact", "name": "x", "evaluatorTypeId": "uipath-exact-match",
         "evaluatorConfig": {"name": "x", "targetOutputKey": "a"}}), encoding="utf-8")
    (root / "evaluations" / "eval-sets" / "mine.json").write_text(json.dumps(
        {"version": "1.0", "id": "s", "name": "s", "evaluatorRefs": ["MyExact"], "evaluations": [
            {"id": "r", "name": "r", "inputs": {}, "evaluationCriterias": {"MyExact": {"expectedOutput": {"a": 1}}}}]}),
        encoding="utf-8")


def test_beside_the_users_own_evaluations_nothing_is_written_in_them(tmp_path: Path) -> None:
    """Starter evaluators there would be ones the user's rows don't use (ExactMatch on `capital`, ToolCallOrder of
    the starter's tools), or take an id they use: none is written, nor a set, and init says why."""
    _users_evaluations(tmp_path)
    before = tree_digest(tmp_path)
    done = init_project(tmp_path)
    assert done.created == [] and sorted(done.kept) == sorted([PROJECT_FILE, ENTRY_FILE])
    assert done.skipped == [f"{EXACT_FILE}, {ORDER_FILE}, {SET_FILE} (the project already has evaluations/ "
                            "(evaluators MyExact; 1 eval set): a starter evaluator would be one its rows don't use, "
                            "or take an id they do)"]
    assert tree_digest(tmp_path) == before, "nothing written, nothing touched"
    assert done.next_steps.startswith("Next: `workbench check` checks the project's own eval sets and evaluators")


def test_an_evaluator_id_of_the_users_is_never_written_again(tmp_path: Path) -> None:
    mine = tmp_path / "evaluations" / "evaluators" / "mine.json"
    mine.parent.mkdir(parents=True)
    mine.write_text(json.dumps({"version": "1.0", "id": EXACT_MATCH, "evaluatorTypeId": "uipath-contains",
                                "evaluatorConfig": {"name": "mine"}}), encoding="utf-8")
    done = init_project(tmp_path)
    assert done.created == [], "evaluations of the user's: no starter agent, evaluator or set"
    assert f"{EXACT_FILE}, {ORDER_FILE}, {SET_FILE} (the project already has evaluations/ (evaluators " \
           f"{EXACT_MATCH}; 0 eval sets)" in done.skipped[-1]
    assert f"{PROJECT_FILE} (there is no {ENTRY_FILE} to name: write {PROJECT_FILE} naming your entry point" \
           in done.skipped[0], "a uipath.json naming a main.py that is not there would not run"
    assert done.next_steps.startswith(f"Next: write {PROJECT_FILE} naming your entry point, then `workbench check`")


def test_another_eval_set_means_no_default_set(tmp_path: Path) -> None:
    other = tmp_path / "evaluations" / "eval-sets" / "mine.json"
    other.parent.mkdir(parents=True)
    other.write_text("{}", encoding="utf-8")
    done = init_project(tmp_path)
    assert f"{SET_FILE}" in done.skipped[-1] and "the project already has evaluations/" in done.skipped[-1]
    assert not (tmp_path / SET_FILE).exists() and not (tmp_path / EXACT_FILE).exists()


def test_the_cli_beside_the_users_evaluations_says_what_it_left_out_and_writes_nothing(tmp_path: Path) -> None:
    _users_evaluations(tmp_path)
    before = tree_digest(tmp_path)
    made = invoke_workbench("init", str(tmp_path), "--format", "uipath-coded")
    assert made.returncode == 1 and "created" not in made.stdout, made.stdout
    assert f"skipped {EXACT_FILE}, {ORDER_FILE}, {SET_FILE} (the project already has evaluations/" in made.stdout
    assert "Next: `workbench check`" in made.stdout
    assert "nothing written: every file above is kept or skipped, each saying why" in made.stderr
    assert tree_digest(tmp_path) == before


def test_nothing_is_written_through_a_link(tmp_path: Path) -> None:
    outside, root = tmp_path / "outside", tmp_path / "project"
    outside.mkdir()
    root.mkdir()
    (root / "evaluations").symlink_to(outside, target_is_directory=True)
    done = init_project(root)
    assert done.skipped[-1] == f"{EXACT_FILE}, {ORDER_FILE}, {SET_FILE} (evaluations/ is a link; nothing is written " \
                               "through one)"
    assert list(outside.iterdir()) == []
    (root / "evaluations").unlink()
    (root / "evaluations").mkdir()
    (root / "evaluations" / "eval-sets").symlink_to(outside, target_is_directory=True)
    assert "the project already has evaluations/" in init_project(root).skipped[-1]
    assert list(outside.iterdir()) == []


def test_a_dangling_link_is_kept_not_followed(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    (root / ENTRY_FILE).symlink_to(tmp_path / "elsewhere.py")
    done = init_project(root)
    assert ENTRY_FILE in done.kept and not (tmp_path / "elsewhere.py").exists()
    assert not any(name.endswith(TEMP_SUFFIX) for name in os.listdir(root))


def _venv(root: Path, *, with_uipath: bool) -> Path:
    """A .venv whose python answers `sdk_check`'s probe as one with uipath would, or is workbench's own Python
    (which lacks it, where these tests run: see the skip) — init asks the interpreter, as check and run do."""
    python = root / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    answer = f'echo "{PROBE_MARK}yes"\n' if with_uipath else f'exec "{sys.executable}" "$@"\n'
    python.write_text("#!/bin/sh\n" + answer, encoding="utf-8")
    python.chmod(0o755)
    return python


@pytest.mark.skipif(importlib.util.find_spec("uipath") is not None, reason="workbench's Python has uipath")
def test_the_next_steps_say_which_python_runs_the_rows_and_how_to_give_it_uipath(tmp_path: Path) -> None:
    """Asked of the interpreter itself, as `check` and `run` ask it (it used to look for a site-packages/uipath
    folder): the line `check` and `run` say, with its one fix, or which Python has uipath."""
    bare, ready = tmp_path / "bare", tmp_path / "ready"
    bare_python, ready_python = _venv(bare, with_uipath=False), _venv(ready, with_uipath=True)
    without = init_project(bare).next_steps
    assert "they pass once uipath is installed" in without
    assert without.splitlines()[-1] == ("main.py: imports uipath (line 14), but the Python that runs the rows can't "
                                        f"import it: {bare_python} (the project's .venv). No row can start. Fix: "
                                        f"{bare_python} -m pip install uipath")
    with_it = init_project(ready).next_steps
    assert "(they pass)" in with_it
    assert with_it.splitlines()[-1] == f"The rows run in {ready_python} (the project's .venv), which has uipath."


def test_the_cli_writes_it_and_says_what_next(tmp_path: Path) -> None:
    made = invoke_workbench("init", str(tmp_path), "--format", "uipath-coded")
    assert made.returncode == 0, made.stdout + made.stderr
    for name in ALL:
        assert f"created {name}" in made.stdout
    assert "uipath eval main" in made.stdout


def test_the_starter_project_is_green_under_uipath_eval(tmp_path: Path, uipath_sdk: UiPathSdk) -> None:
    init_project(tmp_path)
    scores = sdk_scores(run_sdk_eval(uipath_sdk, tmp_path, SET_FILE))
    assert len(scores) == 6 and set(scores.values()) == {1.0}, scores


def test_the_starter_project_is_green_under_workbench_run(tmp_path: Path, uipath_sdk: UiPathSdk) -> None:
    init_project(tmp_path)
    (tmp_path / "workbench.toml").write_text(f'[runner]\ncommand = ["{uipath_sdk.python}"]\n', encoding="utf-8")
    proc, doc = invoke_json("run", str(tmp_path), env=cli_env(PYTHONPATH=str(REPO), UIPATH_TELEMETRY_ENABLED="false"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    got = sorted((r["evaluator"], r["verdict"], r["score"]) for r in doc["results"])
    assert got == [(EXACT_MATCH, "PASS", 1.0)] * 3 + [(TOOL_ORDER, "PASS", 1.0)] * 3


def test_without_uipath_run_says_once_before_any_row_what_to_install(tmp_path: Path) -> None:
    """Issue 38 point 5: every row used to be an ERROR repeating the ImportError, the child's hint and the
    traceback (two fixes, three times); now `run` refuses before any row with the one line `check` fails on."""
    if importlib.util.find_spec("uipath") is not None:
        pytest.skip("workbench's Python has uipath: the rows would pass")
    init_project(tmp_path)
    proc = invoke_workbench("run", str(tmp_path), "--json", env=cli_env(PYTHONPATH=str(REPO)))
    assert proc.returncode == 2 and proc.stdout == "", proc.stdout
    assert proc.stderr.count("pip install uipath") == 1 and "main.py: imports uipath" in proc.stderr, proc.stderr
