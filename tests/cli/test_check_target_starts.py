"""Issue 22 point 6: `check` verifies the target can start — the program is found (on the target's PATH or
as a path), the script it names exists, `uip` is on PATH — and `run` stops before any row with the same
message (not an ERROR on every row). A project of scripted replays only needs no target: no warning.
Point 11's wording: a settings problem names its file once; counts agree with their number."""

from __future__ import annotations

import os
import shutil
import stat
import sys
from pathlib import Path

import pytest
from helpers.cli import cli_env, invoke_workbench
from helpers.paths import EXAMPLES
from helpers.project import EXACT, UIP_CONFIG, WORKFLOW_JSON, make_project, row


def _bin(tmp_path: Path, *names: str) -> str:
    """A PATH of one folder holding executables called `names` (each a stand-in that exits 0)."""
    folder = tmp_path / "bin"
    folder.mkdir(exist_ok=True)
    for name in names:
        program = folder / name
        program.write_text("#!/bin/sh\nexit 0\n")
        program.chmod(program.stat().st_mode | stat.S_IXUSR)
    return str(folder)


def _project(tmp_path: Path, runner: dict, rows: int = 3, **files: str) -> Path:
    return make_project(tmp_path / "p", sets={"s": [row(f"r{i}", {"output": i}, i) for i in range(rows)]},
                        config=runner, files=files or None)


def _check_and_run(root: Path, **env: str) -> tuple[str, str]:
    """`check`'s first problem line and `run`'s message; both must fail, run before any row."""
    check = invoke_workbench("check", str(root), env=cli_env(**env))
    assert check.returncode == 1, check.stdout
    problem = next(line for line in check.stdout.splitlines() if line.startswith("problem: "))
    run = invoke_workbench("run", str(root), env=cli_env(**env))
    assert run.returncode == 2 and run.stdout == "", run.stdout  # no row ran, no ERROR lines
    assert run.stderr.startswith("workbench: ")
    return problem, run.stderr.strip()


def test_a_typo_in_the_program_is_a_check_error_and_run_stops_before_any_row(tmp_path: Path) -> None:
    root = _project(tmp_path, {"kind": "command", "command": ["pyhton3", "agent.py"]}, rows=200,
                    **{"agent.py": "print(1)\n"})
    problem, message = _check_and_run(root, PATH=_bin(tmp_path, "python3"))
    assert problem == ("problem: workbench.toml: [runner] command can't start: 'pyhton3' is not on PATH "
                       "(did you mean 'python3'?).")
    assert message == f"workbench: {root / 'workbench.toml'}: {problem.removeprefix('problem: workbench.toml: ')}"


def test_a_missing_script_is_named_with_the_file_it_may_have_meant(tmp_path: Path) -> None:
    root = _project(tmp_path, {"kind": "command", "command": ["{python}", "agnet.py"]}, **{"agent.py": "0\n"})
    problem, message = _check_and_run(root)
    assert "[runner] command runs the script 'agnet.py', which does not exist" in problem
    assert "did you mean 'agent.py'?" in problem and "did you mean 'agent.py'?" in message


def test_a_program_given_as_a_path_must_exist_and_be_executable(tmp_path: Path) -> None:
    root = _project(tmp_path, {"kind": "command", "command": ["./bin/agent"]})
    assert "'./bin/agent' does not exist" in _check_and_run(root)[0]
    (root / "bin").mkdir()
    (root / "bin" / "agent").write_text("#!/bin/sh\n")
    assert "'./bin/agent' is not an executable file" in _check_and_run(root)[0]


def test_uip_not_on_path_is_a_check_error(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p", sets={"s": [row("a", {}, {})]}, files={"Workflow.json": WORKFLOW_JSON})
    problem, message = _check_and_run(root, PATH=str(tmp_path / "nothing-here"))
    assert "[runner] uip (its default) can't start: 'uip' is not on PATH" in problem
    assert "UiPath CLI installed" in message


def test_a_missing_workflow_and_a_missing_callable_module(tmp_path: Path) -> None:
    root = _project(tmp_path, {**UIP_CONFIG, "workflow": "Flow.json"})
    assert "[runner] workflow = 'Flow.json': no such file" in _check_and_run(root)[0]
    other = make_project(tmp_path / "q", sets={"s": [row("a", {}, {})]},
                         config={"kind": "python", "callable": "no_such_agent_module:reply"})
    assert "no module 'no_such_agent_module'" in _check_and_run(other)[0]


def test_targets_that_can_start_pass_check(tmp_path: Path) -> None:
    runners = [{"kind": "command", "command": ["{python}", "agent.py"]},  # a script in the project
               {"kind": "command", "command": [sys.executable, "-c", "print(1)"]},  # no script file
               {"kind": "command", "command": ["sh", "-c", "echo 1"]},
               {"kind": "python", "callable": "agent:reply"},
               {"kind": "python", "callable": "json:dumps"}]  # an installed module
    for index, runner in enumerate(runners):
        root = make_project(tmp_path / str(index), sets={"s": [row("a", {}, {})]}, config=runner,
                            files={"agent.py": "def reply(x):\n    return x\n"})
        check = invoke_workbench("check", str(root))
        assert check.returncode == 0, (runner, check.stdout)
    src_layout = make_project(tmp_path / "src-layout", sets={"s": [row("a", {}, {})]},
                              files={"src/pkg/__init__.py": ""},
                              config={"kind": "python", "callable": "pkg:reply", "env": {"PYTHONPATH": "src"}})
    assert invoke_workbench("check", str(src_layout)).returncode == 0  # found where the worker's sys.path looks


def test_a_replay_only_project_gets_no_nothing_runs_warning(tmp_path: Path) -> None:
    root = tmp_path / "refund-agent"
    shutil.copytree(EXAMPLES / "refund-agent", root)
    for config in (True, False):
        if not config:
            (root / "workbench.toml").unlink()
        check = invoke_workbench("check", str(root))
        assert check.returncode == 0, check.stdout
        assert "nothing runs the rows" not in check.stdout and "warning:" not in check.stdout


def test_a_project_without_a_way_to_run_is_an_error_naming_its_file_once(tmp_path: Path) -> None:
    """An error, not a warning, since `run` refuses to start there (tests/actions/test_check_agrees_with_run.py)."""
    root = make_project(tmp_path / "p", sets={"s": [row("a", {}, {})]})
    check = invoke_workbench("check", str(root))
    assert check.returncode == 1
    [error] = [line for line in check.stdout.splitlines() if "nothing runs the rows" in line]
    assert error.startswith("problem: workbench.toml: nothing runs the rows yet: no way to run the target")


@pytest.mark.parametrize(("name", "text", "section"), [
    ("workbench.toml", '[runner]\ntimeout = "x"\n', "[runner]"),
    ("pyproject.toml", '[tool.workbench.runner]\ntimeout = "x"\n', "[tool.workbench.runner]"),
])
def test_a_settings_problem_names_its_file_once(tmp_path: Path, name: str, text: str, section: str) -> None:
    root = make_project(tmp_path / "p", sets={"s": [row("a", {}, {})]}, files={name: text})
    check = invoke_workbench("check", str(root))
    problem = next(line for line in check.stdout.splitlines() if line.startswith("problem: "))
    assert problem == f"problem: {name}: {section} timeout must be a number, not 'x'"
    assert check.stdout.count(name) == 1, check.stdout
    assert check.stdout.splitlines()[-1].startswith("check failed: 1 error, 0 warnings (1 set, 1 row, 1 evaluator")


def test_a_uipath_row_without_inputs_is_a_check_error_naming_file_and_row(tmp_path: Path) -> None:
    doc = {"id": "s", "name": "s", "version": "1.0", "evaluatorRefs": [EXACT], "evaluations": [
        {"id": "r1", "name": "has inputs", "inputs": {"output": 1},
         "evaluationCriterias": {EXACT: {"expectedOutput": 1}}},
        {"id": "r2", "name": "no inputs", "evaluationCriterias": {EXACT: {"expectedOutput": 1}}}]}
    for folder, files in (("plain", None), ("workflow", {"Workflow.json": WORKFLOW_JSON})):
        root = make_project(tmp_path / folder, sets={"s": doc}, config=UIP_CONFIG, files=files)
        check = invoke_workbench("check", str(root))
        assert check.returncode == 1 and "Traceback" not in check.stdout + check.stderr
        assert ("problem: evals/default/eval-sets/s.json: evaluations[1] ('no inputs') has no \"inputs\"; the target "
                "would get {}") in check.stdout


def test_a_missing_main_field_in_every_format_is_named_never_a_traceback(tmp_path: Path) -> None:
    """The other formats have no `inputs`: their rows' main field missing is a problem naming the file once."""
    bot = make_project(tmp_path / "bot", config={"kind": "command", "command": ["{python}", "-c", "0"]})
    (bot / "evals" / "a.eval.json").write_text('{"name": "x"}')
    replay = tmp_path / "replay"
    (replay / "evals").mkdir(parents=True)
    (replay / "evals" / "a.script.json").write_text('{"description": "x"}')
    scenario = tmp_path / "scenario"
    shutil.copytree(EXAMPLES / "form-agent", scenario)
    (scenario / ".appilots" / "scenarios" / "fills-signup.json").write_text('{"name": "s", "given": {}, "expect": {}}')
    for root, file, words in ((bot, "evals/a.eval.json", "conversation is required"),
                              (replay, "evals/a.script.json", 'has no "script"'),
                              (scenario, ".appilots/scenarios/fills-signup.json", "when is missing")):
        check = invoke_workbench("check", str(root), env=cli_env(PATH=os.environ["PATH"]))
        assert check.returncode == 1 and "Traceback" not in check.stdout + check.stderr
        lines = [line for line in check.stdout.splitlines() if words in line]
        assert lines and all(line.startswith(f"problem: {file}: ") and line.count(Path(file).name) == 1
                             for line in lines), check.stdout


def test_a_typo_given_with_the_command_flag_is_named_as_the_flag_not_the_file(tmp_path: Path) -> None:
    """The file's command is right; the flag's is wrong: the message must blame --command, never workbench.toml."""
    root = _project(tmp_path, {"kind": "command", "command": ["{python}", "agent.py"]}, **{"agent.py": "print(1)\n"})
    env = cli_env(PATH=_bin(tmp_path, "python3"))
    run = invoke_workbench("run", str(root), "--command", "pyhton3 agent.py", env=env)
    assert run.returncode == 2 and run.stdout == "", run.stdout
    assert run.stderr.strip() == ("workbench: --command can't start: 'pyhton3' is not on PATH "
                                  "(did you mean 'python3'?).")
    script = invoke_workbench("run", str(root), "--command", f"{sys.executable} agnet.py", env=env)
    assert script.returncode == 2 and "workbench.toml" not in script.stderr, script.stderr
    assert script.stderr.startswith("workbench: --command runs the script 'agnet.py', which does not exist")
