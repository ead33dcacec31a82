"""A format's own file that its `RUNNER_DEFAULTS` can't read (a coded agent's uipath.json: a link out of the
project, not JSON, an entry without a colon, no functions) is one problem of that file in `check` — not also
`workbench.toml: uipath.json ...`, with or without a workbench.toml — and `run` still names it. When the settings
file itself can't be read, `check` goes on with the defaults and the format's own `[runner]`, so the coded
format does not warn about a `[runner] kind = 'command'` nobody wrote."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest
from helpers.cli import invoke_workbench

from workbench.config import ConfigError, load_config, read_settings
from workbench.events import IterationReport, Trigger, TriggerKind
from workbench.session import Session
from workbench.settings.problems import settings_problem

PYTHON = '[runner]\ncommand = ["/nonexistent/python"]\n'

BROKEN = {
    "link": ("is a link to a file outside the project; not read", None),
    "not-json": ("is not valid JSON", '{"functions": '),
    "no-colon": ("functions[\"main\"] is 'main.py'", '{"functions": {"main": "main.py"}}'),
    "no-functions": ("has no \"functions\"", '{"functions": {}}'),
}


def coded(tmp_path: Path, toml: str | None = PYTHON) -> Path:
    root = tmp_path / "agent"
    proc = invoke_workbench("init", "--format", "uipath-coded", str(root))
    assert proc.returncode == 0, proc.stderr
    if toml is not None:
        (root / "workbench.toml").write_text(toml, encoding="utf-8")
    return root


def break_project_file(tmp_path: Path, root: Path, how: str) -> None:
    project_file = root / "uipath.json"
    project_file.unlink()
    content = BROKEN[how][1]
    if content is None:
        outside = tmp_path / "outside.json"
        outside.write_text('{"functions": {"main": "main.py:main"}}', encoding="utf-8")
        os.symlink(outside, project_file)
    else:
        project_file.write_text(content, encoding="utf-8")


def problems(stdout: str) -> list[str]:
    return [line for line in stdout.splitlines() if line.startswith(("problem: ", "warning: "))]


@pytest.mark.parametrize("toml", [PYTHON, None], ids=["with-workbench.toml", "without"])
@pytest.mark.parametrize("how", list(BROKEN))
def test_a_broken_uipath_json_is_one_problem_of_uipath_json(tmp_path: Path, how: str, toml: str | None) -> None:
    root = coded(tmp_path, toml)
    break_project_file(tmp_path, root, how)
    proc = invoke_workbench("check", str(root))
    assert proc.returncode == 1
    found = problems(proc.stdout)
    assert len(found) == 1, found
    assert found[0].startswith("problem: uipath.json: " + BROKEN[how][0]), found
    assert "workbench.toml" not in proc.stdout
    run = invoke_workbench("run", str(root), "--no-history")
    assert run.returncode == 2
    assert run.stderr.startswith("workbench: uipath.json"), run.stderr


def test_the_error_says_which_file_it_is_about(tmp_path: Path) -> None:
    root = coded(tmp_path)
    break_project_file(tmp_path, root, "not-json")
    read_settings(root)  # the settings themselves are fine
    with pytest.raises(ConfigError) as caught:
        load_config(root)
    assert caught.value.file == root.resolve() / "uipath.json"
    problem = settings_problem(root.resolve(), str(caught.value), root / "workbench.toml", file=caught.value.file)
    assert (problem.file, problem.message.split(" at ")[0]) == ("uipath.json", "is not valid JSON")


def test_a_setting_the_format_refuses_stays_a_problem_of_the_settings_file_once(tmp_path: Path) -> None:
    root = coded(tmp_path, PYTHON + '[uipath-coded]\nentrypoint = "nope"\n')
    proc = invoke_workbench("check", str(root))
    assert proc.returncode == 1
    found = problems(proc.stdout)
    assert found == ["problem: workbench.toml: [uipath-coded] entrypoint = 'nope' is not an entry point of "
                     "uipath.json (its functions: 'main')"], found


def test_unreadable_settings_fall_back_to_the_format_s_own_runner(tmp_path: Path) -> None:
    root = coded(tmp_path, '[runner]\ntimeot = 5\n')
    proc = invoke_workbench("check", str(root))
    assert proc.returncode == 1
    found = problems(proc.stdout)
    assert found[0].startswith("problem: workbench.toml: [runner] unknown key 'timeot'; did you mean 'timeout'?")
    assert not any("[runner] says how rows run" in line for line in found), found


def test_the_loop_names_uipath_json_when_it_breaks_between_iterations(tmp_path: Path) -> None:
    root = coded(tmp_path, f'[runner]\ncommand = [{json.dumps(sys.executable)}]\n')

    async def iterate() -> IterationReport | None:
        session = Session(load_config(root), record=False)
        try:
            break_project_file(tmp_path, root, "no-functions")
            return await session.iterate_now(Trigger(TriggerKind.MANUAL))
        finally:
            await session.aclose()

    report = asyncio.run(iterate())
    assert report is not None
    problem = report.problems[0]  # the settings, read again for the iteration, come first
    assert problem.file == "uipath.json", report.problems
    assert problem.message.startswith("has no \"functions\"")
    assert problem.message.endswith("— this iteration used the previous settings")
