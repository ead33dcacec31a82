"""`workbench init --format uipath-coded`: uipath.json naming main.py:main, a starter main.py whose two tools
are recorded by uipath.tracing.traced, one eval set scored by two evaluators (refs and criteria keys are the
evaluators' ids) — green under `uipath eval` and `workbench run` in a Python that has uipath, and in one that
hasn't, every row an ERROR saying what to install. Nothing existing is overwritten, nothing written through a
link, and beside an entry point or evaluations of the user's no starter agent or rows are added."""

from __future__ import annotations

import importlib.util
import json
import os
import stat
from pathlib import Path

import pytest
from coded_sdk import UiPathSdk, run_sdk_eval, sdk_scores
from helpers.cli import cli_env, invoke_workbench, run_json

from workbench.dialects.uipath_coded.scaffold import (
    ENTRY_FILE,
    EXACT_MATCH,
    PROJECT_FILE,
    SET_FILE,
    TOOL_ORDER,
    init_project,
)
from workbench.safe_paths import UnsafePath
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
    (tmp_path / PROJECT_FILE).write_text('{"functions": {"agent": "src/agent.py:run"}}', encoding="utf-8")
    done = init_project(tmp_path)
    assert done.kept == [PROJECT_FILE]
    assert done.skipped == [f"{ENTRY_FILE} ({PROJECT_FILE} already names the entry point)"]
    assert not (tmp_path / ENTRY_FILE).exists()
    assert _doc(tmp_path, SET_FILE)["evaluations"] == [], "rows for the starter agent would not fit the user's"
    assert (tmp_path / PROJECT_FILE).read_text(encoding="utf-8") == '{"functions": {"agent": "src/agent.py:run"}}'
    assert "add rows to evaluations/eval-sets/default.json" in done.next_steps


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


def test_an_evaluator_id_another_file_has_is_not_written_twice(tmp_path: Path) -> None:
    mine = tmp_path / "evaluations" / "evaluators" / "mine.json"
    mine.parent.mkdir(parents=True)
    mine.write_text(json.dumps({"version": "1.0", "id": EXACT_MATCH, "evaluatorTypeId": "uipath-contains",
                                "evaluatorConfig": {"name": "mine"}}), encoding="utf-8")
    done = init_project(tmp_path)
    assert f"{EXACT_FILE} (evaluations/evaluators/mine.json already has the id {EXACT_MATCH})" in done.skipped
    assert not (tmp_path / EXACT_FILE).exists() and ORDER_FILE in done.created
    assert ENTRY_FILE not in done.created, "the project already had evaluations: no starter agent"


def test_another_eval_set_means_no_default_set(tmp_path: Path) -> None:
    other = tmp_path / "evaluations" / "eval-sets" / "mine.json"
    other.parent.mkdir(parents=True)
    other.write_text("{}", encoding="utf-8")
    done = init_project(tmp_path)
    assert f"{SET_FILE} (the project already has eval sets)" in done.skipped
    assert not (tmp_path / SET_FILE).exists()


def test_nothing_is_written_through_a_link(tmp_path: Path) -> None:
    outside, root = tmp_path / "outside", tmp_path / "project"
    outside.mkdir()
    root.mkdir()
    (root / "evaluations").symlink_to(outside, target_is_directory=True)
    with pytest.raises(UnsafePath, match="is a link to"):
        init_project(root)
    assert list(outside.iterdir()) == []


def test_a_dangling_link_is_kept_not_followed(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    (root / ENTRY_FILE).symlink_to(tmp_path / "elsewhere.py")
    done = init_project(root)
    assert ENTRY_FILE in done.kept and not (tmp_path / "elsewhere.py").exists()
    assert not any(name.endswith(TEMP_SUFFIX) for name in os.listdir(root))


def _venv(root: Path, *, with_uipath: bool) -> None:
    """A .venv as `python -m venv` lays it out (its python need not work: init only looks)."""
    (root / ".venv" / "bin").mkdir(parents=True)
    (root / ".venv" / "bin" / "python").write_text("", encoding="utf-8")
    if with_uipath:
        (root / ".venv" / "lib" / "python3.11" / "site-packages" / "uipath").mkdir(parents=True)


def test_the_next_steps_say_which_python_runs_the_rows_and_how_to_give_it_uipath(tmp_path: Path) -> None:
    bare, ready = tmp_path / "bare", tmp_path / "ready"
    _venv(bare, with_uipath=False)
    _venv(ready, with_uipath=True)
    without = init_project(bare).next_steps
    assert "they pass once uipath is installed" in without and ".venv/bin/pip install uipath" in without
    with_it = init_project(ready).next_steps
    assert "(they pass)" in with_it and "The rows run in .venv/bin/python, which has uipath." in with_it


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
    proc, doc = run_json("run", str(tmp_path), env=cli_env(PYTHONPATH=str(REPO), UIPATH_TELEMETRY_ENABLED="false"),
                         timeout=180)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    got = sorted((r["evaluator"], r["verdict"], r["score"]) for r in doc["results"])
    assert got == [(EXACT_MATCH, "PASS", 1.0)] * 3 + [(TOOL_ORDER, "PASS", 1.0)] * 3


def test_without_uipath_every_row_is_an_error_that_says_what_to_install(tmp_path: Path) -> None:
    if importlib.util.find_spec("uipath") is not None:
        pytest.skip("workbench's Python has uipath: the rows would pass")
    init_project(tmp_path)
    proc, doc = run_json("run", str(tmp_path), env=cli_env(PYTHONPATH=str(REPO)), timeout=120)
    assert proc.returncode != 0
    assert doc["results"] and {r["verdict"] for r in doc["results"]} == {"ERROR"}
    for result in doc["results"]:
        first = result["detail"].splitlines()[0]
        assert "ImportError: main.py needs the uipath package" in first and "pip install uipath" in first, (
            "the reason comes first (the traceback is only in the log below it)")
