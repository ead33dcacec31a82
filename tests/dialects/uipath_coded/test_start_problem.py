"""Issue 38 point 5: the `uipath-coded` starter in a Python without `uipath`. Its main.py imports uipath whenever it
is imported, so no row can start: `init` says so under its next steps, `check` fails on it, `run` says it once
before any row and exits 2 (as for a target that can't start) — the same line each time, naming the entry file,
the interpreter that runs the rows and one fix. An entry that may run without uipath (an import under `if`, in a
function, or in a `try` that goes on without it) is not stopped: `check` warns as before. With the SDK's venv the
starter passes `check` and runs green."""

from __future__ import annotations

import ast
import importlib.util
import json
import sys
from pathlib import Path

import pytest
from coded_sdk import UiPathSdk
from helpers.cli import cli_env, invoke_json, invoke_workbench

from workbench.dialects.uipath_coded import sdk_check
from workbench.dialects.uipath_coded.project_file import sdk_import_line

HAS_UIPATH = importlib.util.find_spec("uipath") is not None
no_uipath_here = pytest.mark.skipif(HAS_UIPATH, reason="this interpreter has uipath: the starter's rows can start")
REPO = Path(__file__).resolve().parents[3]
SAID = "imports uipath (line 14), but the Python that runs the rows can't import it"
OWN_FIX = ("Fix: in the project folder, python3 -m venv .venv && .venv/bin/pip install uipath (workbench then runs "
           "the rows in .venv/bin/python)")


@pytest.fixture(autouse=True)
def fresh_answers() -> None:
    sdk_check.forget_answers()


def starter(tmp_path: Path) -> tuple[Path, str]:
    """The starter project made by `workbench init`, and what init printed."""
    root = tmp_path / "agent"
    made = invoke_workbench("init", "--format", "uipath-coded", str(root))
    assert made.returncode == 0, made.stdout + made.stderr
    return root, made.stdout


def the_line(python: str, where: str, fix: str) -> str:
    return f"main.py: {SAID}: {python} ({where}). No row can start. {fix}"


@no_uipath_here
def test_init_check_and_run_say_it_once_the_same_with_one_fix(tmp_path: Path) -> None:
    root, init = starter(tmp_path)
    line = the_line(sys.executable, "workbench's own: the project has no .venv", OWN_FIX)
    assert init.count(SAID) == 1 and line in init.splitlines(), init
    assert "Until then every row is an ERROR" not in init and "or name a Python" not in init

    check = invoke_workbench("check", str(root))
    assert check.returncode == 1, check.stdout
    said = [shown for shown in check.stdout.splitlines() if shown.startswith(("problem: ", "warning: "))]
    assert said == [f"problem: {line}"], "one line: the warning that rows skip the SDK is not said as well"
    assert check.stdout.splitlines()[-1].startswith("check failed: 1 error, 0 warnings")

    run = invoke_workbench("run", str(root), "--no-history")
    assert run.returncode == 2 and run.stdout == "", run.stdout
    assert run.stderr.strip() == f"workbench: {line}", run.stderr
    assert "Traceback" not in run.stderr and "ImportError" not in run.stderr
    _, doc = invoke_json("check", str(root))
    assert doc["passed"] is False and [(p["file"], p["severity"]) for p in doc["problems"]] == [("main.py", "error")]


@no_uipath_here
def test_run_json_and_watch_refuse_before_any_row(tmp_path: Path) -> None:
    root, _ = starter(tmp_path)
    run = invoke_workbench("run", str(root), "--json", "--no-history")
    assert run.returncode == 2 and run.stdout == "" and run.stderr.count(SAID) == 1, run.stdout + run.stderr
    watch = invoke_workbench("watch", str(root), "--plain")  # refused before its loop starts (pytest-timeout else)
    assert watch.returncode == 2 and watch.stderr.count(SAID) == 1, watch.stdout + watch.stderr


@no_uipath_here
def test_the_projects_venv_without_uipath_gets_its_own_pip_line(tmp_path: Path) -> None:
    root, _ = starter(tmp_path)
    venv_python = root / ".venv" / "bin" / "python"
    venv_python.parent.mkdir(parents=True)
    venv_python.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n', encoding="utf-8")
    venv_python.chmod(0o755)
    line = the_line(str(venv_python), "the project's .venv", f"Fix: {venv_python} -m pip install uipath")
    check = invoke_workbench("check", str(root))
    assert check.returncode == 1 and check.stdout.splitlines()[0] == f"problem: {line}", check.stdout
    run = invoke_workbench("run", str(root), "--no-history")
    assert run.returncode == 2 and run.stderr.strip() == f"workbench: {line}", run.stderr


@no_uipath_here
def test_a_runner_command_without_uipath_gets_its_pip_line(tmp_path: Path) -> None:
    root, _ = starter(tmp_path)
    (root / "workbench.toml").write_text(f"[runner]\ncommand = [{json.dumps(sys.executable)}]\n", encoding="utf-8")
    check = invoke_workbench("check", str(root))
    line = the_line(sys.executable, "workbench.toml's [runner] command", f"Fix: {sys.executable} -m pip install uipath")
    assert check.returncode == 1 and check.stdout.splitlines()[0] == f"problem: {line}", check.stdout


@no_uipath_here
@pytest.mark.parametrize("main_py", [
    "def main(input):\n    import uipath\n    return {}\n",
    "try:\n    import uipath\nexcept ImportError:\n    uipath = None\n\ndef main(input):\n    return {}\n",
    "import typing\nif typing.TYPE_CHECKING:\n    from uipath.tracing import traced\n\n"
    "def main(input):\n    return {}\n",
], ids=["in-a-function", "try-without-it", "under-if"])
def test_an_entry_that_may_run_without_uipath_is_not_stopped(tmp_path: Path, main_py: str) -> None:
    root, _ = starter(tmp_path)
    (root / "main.py").write_text(main_py, encoding="utf-8")
    check = invoke_workbench("check", str(root), "--json")
    doc = json.loads(check.stdout)
    about = [p for p in doc["problems"] if "uipath" in p["message"] and "import" in p["message"]]
    assert check.returncode == 0 and [p["severity"] for p in about] == ["warning"], about  # sdk_problem's, as before
    run = invoke_workbench("run", str(root), "--no-history")
    assert run.returncode != 2 and SAID not in run.stderr, run.stderr  # its rows run (and fail on their outputs)


@pytest.mark.parametrize(("source", "line"), [
    ("import os\nimport uipath\n", 2),
    ("import uipath.tracing as t\n", 1),
    ("from uipath.tracing import traced\n", 1),
    ("try:\n    from uipath import x\nexcept ImportError:\n    raise SystemExit('install uipath')\n", 2),
    ("try:\n    import uipath\nexcept ImportError as e:\n    print(e)\n    raise\nfinally:\n    pass\n", 2),
    ("try:\n    import uipath\nexcept ImportError:\n    pass\n", None),
    ("try:\n    import uipath\nexcept ValueError:\n    raise\nexcept ImportError:\n    uipath = None\n", None),
    ("if True:\n    import uipath\n", None),
    ("with open('x'):\n    import uipath\n", None),
    ("from . import uipath\n", None),
    ("import uipathlike\nfrom uipath_other import y\n", None),
    ("def f():\n    import uipath\n", None),
    ("import uipath(\n", None),
])
def test_a_sure_import_is_one_that_runs_whenever_the_file_is_imported(tmp_path: Path, source: str,
                                                                      line: int | None) -> None:
    if line is not None:
        ast.parse(source)
    (tmp_path / "main.py").write_text(source, encoding="utf-8")
    assert sdk_import_line(tmp_path, "main.py") == line


def test_an_entry_file_leading_out_of_the_project_is_not_read(tmp_path: Path) -> None:
    (tmp_path / "outside.py").write_text("import uipath\n", encoding="utf-8")
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "main.py").symlink_to(tmp_path / "outside.py")
    assert sdk_import_line(tmp_path / "project", "main.py") is None
    assert sdk_import_line(tmp_path / "project", "../outside.py") is None
    assert sdk_import_line(tmp_path, "outside.py") == 1


def test_with_the_sdk_the_starter_passes_check_and_runs_green(tmp_path: Path, uipath_sdk: UiPathSdk) -> None:
    root, _ = starter(tmp_path)
    (root / "workbench.toml").write_text(f"[runner]\ncommand = [{json.dumps(str(uipath_sdk.python))}]\n",
                                         encoding="utf-8")
    check = invoke_workbench("check", str(root))
    assert check.returncode == 0 and "uipath" not in check.stdout.replace("uipath.json", ""), check.stdout
    env = cli_env(PYTHONPATH=str(REPO), UIPATH_TELEMETRY_ENABLED="false")
    proc, doc = invoke_json("run", str(root), "--no-history", env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert {r["verdict"] for r in doc["results"]} == {"PASS"} and len(doc["results"]) == 6
