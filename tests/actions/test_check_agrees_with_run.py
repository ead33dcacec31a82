"""`workbench check` fails in exactly the cases `workbench run` refuses to start (found on a new user's pass:
with no way to run the target, `check` passed with a warning, "nothing runs the rows yet", while `run` exited
2). The two ask the same questions — a runner kind, a target that starts, Ray for a cluster — and a project of
rows that need no target passes both."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers.cli import invoke_workbench
from helpers.paths import EXAMPLES
from helpers.project import COMMAND_CONFIG, make_project, row

from workbench.actions.checks import check_runnable
from workbench.actions.project_check import check_project
from workbench.config import load_config
from workbench.errors import WorkbenchError

ROWS = {"s": [row("a", {"output": {"a": 1}}, {"a": 1})]}
CASES: dict[str, Any] = {
    "no way to run the target": None,
    "a program that is not on PATH": {"kind": "command", "command": ["pyhton3-no-such", "agent.py"]},
    "a script that does not exist": {"kind": "command", "command": ["{python}", "agnet.py"]},
    "a callable whose module is nowhere": {"kind": "python", "callable": "no_such_module_h14:reply"},
    "a cluster without Ray": {"runner": COMMAND_CONFIG, "cluster": {"engine": "ray", "address": "local"}},
    "a target that starts": COMMAND_CONFIG,
}


def _run_refuses(root: Path) -> str | None:
    try:
        check_runnable(load_config(root), watching=False)
    except WorkbenchError as exc:
        return str(exc)
    return None


@pytest.mark.parametrize("case", list(CASES))
def test_check_fails_exactly_when_run_refuses_to_start(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       case: str) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` fails: Ray is not installed here
    root = make_project(tmp_path / "p", sets=ROWS, config=CASES[case])
    refused = _run_refuses(root)
    report = check_project(root)
    assert (refused is not None) == (case != "a target that starts"), refused
    assert report.passed == (refused is None), [p.message for p in report.problems]
    if refused is not None:
        [error] = [p for p in report.errors if p.file == "workbench.toml"]
        assert refused.splitlines()[0].split(": ", 1)[-1][:40] in error.message


def test_the_cli_check_of_a_project_with_no_target_fails_as_run_does(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p", sets=ROWS)
    run, check = invoke_workbench("run", str(root)), invoke_workbench("check", str(root))
    assert run.returncode == 2 and check.returncode == 1, check.stdout
    assert "workbench.toml: nothing runs the rows yet: no way to run the target" in check.stdout
    assert check.stdout.splitlines()[-1].startswith("check failed: 1 error")


def test_rows_that_need_no_target_pass_both(tmp_path: Path) -> None:
    root = tmp_path / "refund-agent"
    shutil.copytree(EXAMPLES / "refund-agent", root)
    (root / "workbench.toml").unlink(missing_ok=True)
    assert _run_refuses(root) is None and check_project(root).passed
