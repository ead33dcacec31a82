"""`[uipath-coded]` and the `[runner]` a coded agent project gets without saying one (`RUNNER_DEFAULTS`): a warm
worker running child_main.py in the project's Python on the entry point uipath.json names; uipath.json read
safely, every refusal naming it."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from workbench.config import ConfigError, load_config
from workbench.dialects.uipath_coded.settings import CHILD_ARG, CHILD_MAIN, CodedConfig
from workbench.runners.base import expand_argv

SETTINGS = "workbench.toml"


def coded(root: Path, project_file: Any = None, toml: str = "") -> Path:
    """A coded agent project at `root`: uipath.json (a document, or text as is), main.py, evaluations/."""
    (root / "evaluations" / "eval-sets").mkdir(parents=True)
    doc = {"functions": {"main": "main.py:main"}} if project_file is None else project_file
    (root / "uipath.json").write_text(doc if isinstance(doc, str) else json.dumps(doc), encoding="utf-8")
    (root / "main.py").write_text("def main(input):\n    return input\n", encoding="utf-8")
    if toml:
        (root / SETTINGS).write_text(toml, encoding="utf-8")
    return root


def refusal(root: Path) -> str:
    with pytest.raises(ConfigError) as caught:
        load_config(root)
    return str(caught.value)


def test_no_settings_run_the_entry_point_in_a_warm_worker_of_workbenchs_python(tmp_path: Path) -> None:
    runner = load_config(coded(tmp_path)).runner
    assert runner.kind == "worker"
    assert runner.command == ["{python}", CHILD_ARG, "main.py", "main", "16.0"]  # the default max_output_mb
    assert expand_argv(runner.command)[1] == str(CHILD_MAIN)  # the child of the workbench that runs the rows


def test_the_projects_venv_is_its_interpreter_unresolved(tmp_path: Path) -> None:
    root = coded(tmp_path)
    (root / ".venv" / "bin").mkdir(parents=True)
    os.symlink(sys.executable, root / ".venv" / "bin" / "python")
    command = load_config(root).runner.command
    assert command is not None and command[0] == str(root.resolve() / ".venv" / "bin" / "python")


@pytest.mark.parametrize(("written", "expected"), [
    ('[".venv/bin/python", "-X", "dev"]', ["{root}/.venv/bin/python", "-X", "dev"]),
    ('["python3"]', ["python3"]),
    ('["/usr/bin/python3"]', ["/usr/bin/python3"]),
    ('["{python}"]', ["{python}"]),
])
def test_runner_command_names_the_interpreter(tmp_path: Path, written: str, expected: list[str]) -> None:
    root = coded(tmp_path, toml=f"[runner]\ncommand = {written}\ntimeout = 5\n")
    runner = load_config(root).runner
    wanted = [part.replace("{root}", str(root.resolve())) for part in expected]
    assert runner.kind == "worker" and runner.timeout == 5
    assert runner.command == [*wanted, CHILD_ARG, "main.py", "main", "16.0"]


def test_the_child_is_told_the_reply_size_the_pool_reads(tmp_path: Path) -> None:
    """`[runner] max_output_mb` as the setting says it: the child says an output over it in words (test_child.py)."""
    runner = load_config(coded(tmp_path, toml="[runner]\nmax_output_mb = 0.01\n")).runner
    assert runner.command is not None and runner.command[-1] == "0.01"


@pytest.mark.parametrize("toml", ['[runner]\nkind = "command"\ncommand = ["python3", "agent.py"]\n',
                                  '[runner]\ncallable = "agent:run"\n'])
def test_a_runner_of_its_own_is_kept(tmp_path: Path, toml: str) -> None:
    runner = load_config(coded(tmp_path, toml=toml)).runner
    assert CHILD_ARG not in (runner.command or [])


def test_a_folder_without_evaluations_is_not_a_coded_project(tmp_path: Path) -> None:
    (tmp_path / "uipath.json").write_text("{}", encoding="utf-8")
    assert load_config(tmp_path).runner.kind is None


@pytest.mark.parametrize(("functions", "toml", "file", "function"), [
    ({"other": "other.py:run", "main": "main.py:main"}, "", "main.py", "main"),
    ({"agent": "src/agent.py:handle"}, "", "src/agent.py", "handle"),
    ({"main": "main.py:main", "other": "pkg/other.py:run"}, '[uipath-coded]\nentrypoint = "other"\n', "pkg/other.py",
     "run"),
])
def test_the_entry_point_is_the_setting_else_main_else_the_only_one(tmp_path: Path, functions: dict[str, str],
                                                                   toml: str, file: str, function: str) -> None:
    command = load_config(coded(tmp_path, {"functions": functions}, toml)).runner.command
    assert command is not None and command[-3:-1] == [file, function]  # as uipath.json writes it: root-relative


@pytest.mark.parametrize(("project_file", "toml", "message"), [
    ('{"functions": {"main": "main.py:main",}}', "", "uipath.json is not valid JSON at line 1, column"),
    ("[1]", "", "uipath.json must be a JSON object"),
    ({"functions": {"a": "a.py:a", "b": "b.py:b"}}, "",
     "uipath.json names several functions ('a', 'b') and none is called 'main': say which one the rows run, "
     "e.g. [uipath-coded] entrypoint = 'a' in workbench.toml"),
    ({"functions": {"main": "main.py"}}, "",
     "uipath.json: functions[\"main\"] is 'main.py'; write \"file.py:function\""),
    ({"functions": {"main": 7}}, "",
     "uipath.json: functions[\"main\"] must be a string \"file.py:function\", not number"),
    ({"agents": {"agent": "main.py:main"}}, "",
     "uipath.json has only \"agents\" entries ('agent'), which workbench does not run"),
    ({"functions": {"main": "main.py:main"}, "agents": {"graph": "g.py:g"}}, '[uipath-coded]\nentrypoint = "graph"\n',
     "[uipath-coded] entrypoint = 'graph' names an \"agents\" entry of uipath.json; workbench runs only \"functions\""),
    ({"functions": {"main": "main.py:main"}}, '[uipath-coded]\nentrypoint = "nope"\n',
     "[uipath-coded] entrypoint = 'nope' is not an entry point of uipath.json (its functions: 'main')"),
    ({}, "", "uipath.json has no \"functions\": add one such as {\"functions\": {\"main\": \"main.py:main\"}}"),
])
def test_a_uipath_json_that_cant_say_what_runs_is_refused_naming_it(tmp_path: Path, project_file: Any, toml: str,
                                                                   message: str) -> None:
    assert message in refusal(coded(tmp_path, project_file, toml))


def test_a_uipath_json_linking_out_of_the_project_is_not_read(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.json"
    outside.write_text(json.dumps({"functions": {"main": "main.py:main"}}), encoding="utf-8")
    root = coded(tmp_path / "project")
    (root / "uipath.json").unlink()
    os.symlink(outside, root / "uipath.json")
    assert refusal(root) == "uipath.json is a link to a file outside the project; not read"


@pytest.mark.parametrize(("toml", "words"), [
    ("[uipath-coded]\npass_threshold = 2\n", "[uipath-coded] pass_threshold must be between 0 and 1"),
    ("[uipath-coded]\nthresholds = {ExactMatch = -0.5}\n",
     "[uipath-coded] thresholds.ExactMatch must be between 0 and 1, not -0.5"),
    ("[uipath-coded]\nthresholds = 0.5\n",
     "[uipath-coded] thresholds must be a table of evaluator ids to numbers between 0 and 1"),
    ("[uipath-coded]\nentrypont = \"main\"\n", "entrypont"),
])
def test_the_section_is_checked_by_its_declaration(tmp_path: Path, toml: str, words: str) -> None:
    assert words in refusal(coded(tmp_path, toml=toml))


def test_the_sections_values_are_read(tmp_path: Path) -> None:
    root = coded(tmp_path, toml="[uipath-coded]\npass_threshold = 0.8\nthresholds = {JsonSim = 0.9}\n")
    section = load_config(root).section(CodedConfig)
    assert section.pass_threshold == 0.8 and section.thresholds == {"JsonSim": 0.9}
    assert load_config(coded(tmp_path / "defaults")).section(CodedConfig).pass_threshold == 1.0
