"""`workbench check` on a coded project whose rows' Python can't import `uipath`: a warning (never an error: an
agent may not need the SDK) naming that interpreter — the `[runner] command`'s, else the project's `.venv`, else
workbench's own — and how to give it uipath; a warning saying so when the interpreter can't be asked (it fails or
hangs: its process group is killed at the timeout); nothing when it has uipath."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

import pytest
from coded_sdk import UiPathSdk
from helpers.checks import survivors
from helpers.cli import invoke_workbench
from test_hostile import coded_project

from workbench.dialects.uipath_coded import sdk_check

HAS_UIPATH = importlib.util.find_spec("uipath") is not None
no_uipath_here = pytest.mark.skipif(HAS_UIPATH, reason="this interpreter has uipath")


@pytest.fixture(autouse=True)
def fresh_answers() -> None:
    """Each test asks its interpreters anew (answers are kept per process, and the tests reuse paths)."""
    sdk_check.forget_answers()


def checked(root: Path) -> tuple[int, list[dict[str, Any]]]:
    """`check --json`'s exit code and its problems about uipath."""
    proc = invoke_workbench("check", str(root), "--json")
    doc = json.loads(proc.stdout)
    return proc.returncode, [p for p in doc["problems"] if "uipath" in p["message"] and "import" in p["message"]]


def toml(command: list[str]) -> str:
    return f"[runner]\ncommand = {json.dumps(command)}\n"


def script(path: Path, text: str) -> Path:
    path.write_text("#!/bin/sh\n" + text, encoding="utf-8")
    path.chmod(0o755)
    return path


@no_uipath_here
def test_a_runner_command_without_uipath_is_a_warning_naming_it_and_the_fix(tmp_path: Path) -> None:
    root = coded_project(tmp_path / "p", toml=toml([sys.executable]))
    code, [problem] = checked(root)
    assert code == 0 and problem["severity"] == "warning", problem
    assert problem["file"] == "workbench.toml"
    assert problem["message"].startswith(f"{sys.executable} (workbench.toml's [runner] command) runs the rows and "
                                         "can't import uipath: install it there "
                                         f"({sys.executable} -m pip install uipath), or name a Python that has it")


@no_uipath_here
def test_workbench_s_own_python_without_uipath_is_a_warning_saying_to_make_a_venv(tmp_path: Path) -> None:
    root = coded_project(tmp_path / "p")
    code, [problem] = checked(root)
    assert code == 0 and problem["severity"] == "warning" and problem["file"] == "uipath.json", problem
    assert problem["message"].startswith(f"{sys.executable} (workbench's own: the project has no .venv) runs the rows")
    assert "python3 -m venv .venv && .venv/bin/pip install uipath" in problem["message"]


@no_uipath_here
def test_the_projects_venv_without_uipath_is_named(tmp_path: Path) -> None:
    root = coded_project(tmp_path / "p")
    (root / ".venv" / "bin").mkdir(parents=True)
    script(root / ".venv" / "bin" / "python", f'exec "{sys.executable}" "$@"\n')
    _, [problem] = checked(root)
    venv_python = root / ".venv" / "bin" / "python"
    assert problem["file"] == ".venv/bin/python", problem
    assert problem["message"].startswith(f"{venv_python} (the project's .venv) runs the rows and can't import "
                                         f"uipath: install it there ({venv_python} -m pip install uipath)")


def test_an_interpreter_with_uipath_says_nothing(tmp_path: Path, uipath_sdk: UiPathSdk) -> None:
    root = coded_project(tmp_path / "p", toml=toml([str(uipath_sdk.python)]))
    assert checked(root) == (0, [])


def test_an_interpreter_that_fails_to_answer_is_said_to_be_unchecked(tmp_path: Path) -> None:
    failing = script(tmp_path / "interp", 'echo "no such module: encodings" >&2\nexit 7\n')
    root = coded_project(tmp_path / "p", toml=toml([str(failing)]))
    code, [problem] = checked(root)
    assert code == 0 and problem["severity"] == "warning", problem
    assert problem["message"] == (f"could not check whether {failing} (workbench.toml's [runner] command) can import "
                                  "uipath: it exited with 7: no such module: encodings")


def test_an_interpreter_that_hangs_is_stopped_with_what_it_started(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sdk_check, "PROBE_TIMEOUT_S", 0.5)
    pids = tmp_path / "pids"
    hangs = script(tmp_path / "interp", f'sleep 600 &\necho $! > "{pids}"\nwait\n')
    root = coded_project(tmp_path / "p", toml=toml([str(hangs)]))
    try:
        code, [problem] = checked(root)
        assert code == 0 and problem["message"].endswith("can import uipath: it did not answer within 0.5 s"), problem
        assert survivors([int(pids.read_text())]) == [], "the probe's own child outlived it"
    finally:
        if pids.exists():
            with contextlib.suppress(OSError):
                os.kill(int(pids.read_text()), signal.SIGKILL)


def test_the_answer_is_kept_until_a_folder_the_interpreter_imports_from_changes(tmp_path: Path) -> None:
    """An agent asks `check` again and again: one probe, until an install changes a sys.path folder."""
    site = tmp_path / "site-packages"
    site.mkdir()
    asked = tmp_path / "asked"
    fake = script(tmp_path / "interp", f'echo x >> "{asked}"\necho "{sdk_check.PROBE_MARK}no"\necho "{site}"\n')
    root = coded_project(tmp_path / "p", toml=toml([str(fake)]))
    assert len(checked(root)[1]) == len(checked(root)[1]) == 1
    assert asked.read_text().count("x") == 1
    (site / "uipath").mkdir()  # an install: the folder's entries (and so its mtime) change
    stat = site.stat()
    os.utime(site, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    checked(root)
    assert asked.read_text().count("x") == 2
