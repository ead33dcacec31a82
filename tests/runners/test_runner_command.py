"""`kind = "command"`: inputs on stdin, output JSON on stdout, stderr as the log, clear ERRORs, no orphans."""

from __future__ import annotations

import asyncio
import sys
import time

import pytest
from helpers.checks import survivors
from helpers.project import COMMAND_CONFIG, TARGET, make_project, row
from helpers.runners import row_error, run_row

from workbench.config import load_config
from workbench.engine import Engine
from workbench.events import Trigger
from workbench.runners.command import CommandRunner


def command_runner(root, **runner):
    make_project(root, config={**COMMAND_CONFIG, **runner})
    return CommandRunner(load_config(root))


def test_inputs_go_in_as_json_on_stdin_and_stdout_is_the_output(tmp_path):
    inputs = {"score": 85, "big": 2**64 + 1, "f": 85.0, "text": "é ✓", "nested": {"list": [True, None]}}
    outcome = run_row(command_runner(tmp_path), inputs)
    assert outcome.ok, outcome.error
    assert outcome.output == {"echo": inputs}
    assert type(outcome.output["echo"]["big"]) is int and outcome.output["echo"]["big"] == 2**64 + 1
    assert outcome.duration_ms > 0


def test_a_bare_value_on_stdout_is_returned_unwrapped(tmp_path):
    outcome = run_row(command_runner(tmp_path), {"output": [1, "two"]})
    assert outcome.output == [1, "two"]  # the engine wraps it as {"result": ...}, the runner does not


def test_the_row_identity_reaches_the_child_in_its_environment(tmp_path):
    outcome = run_row(command_runner(tmp_path), {"env": True}, row_id="id-42", row_name="naïve $(name) `x`",
                      set_file="grading.json", scope="billing")
    assert outcome.output == {"WORKBENCH_ROW_ID": "id-42", "WORKBENCH_ROW_NAME": "naïve $(name) `x`",
                              "WORKBENCH_SET": "grading.json", "WORKBENCH_SCOPE": "billing"}


def test_shell_metacharacters_in_inputs_arrive_as_data(tmp_path):
    canary = tmp_path / "pwned"
    nasty = (f"$(touch {canary}) `touch {canary}` ; touch {canary} | cat > {canary} && rm -rf / "
             f"'single' \"double\" \\ * ? ~ # \n newline \x00 nul")
    outcome = run_row(command_runner(tmp_path), {"s": nasty, nasty: "as a key"})
    assert outcome.output == {"echo": {"s": nasty, nasty: "as a key"}}
    assert not canary.exists()


def test_awkward_but_valid_json_inputs_arrive_exactly(tmp_path):
    inputs = {"lone surrogate": "\ud800x", "big": -(2**70), "float": 85.0}
    outcome = run_row(command_runner(tmp_path), {"output": inputs})
    assert outcome.ok, outcome.error
    assert outcome.output == inputs


def test_a_command_string_is_split_like_a_shell_but_never_run_by_one(tmp_path):
    canary = tmp_path / "pwned"
    runner = command_runner(tmp_path, command=f'{{python}} "{TARGET}" "; touch {canary}" "$(touch {canary})"')
    assert runner.argv == [sys.executable, str(TARGET), f"; touch {canary}", f"$(touch {canary})"]
    assert run_row(runner, {"output": {"ok": 1}}).output == {"ok": 1}
    assert not canary.exists()


def test_stderr_is_the_rows_log_and_streams_line_by_line(tmp_path):
    lines: list[str] = []
    outcome = run_row(command_runner(tmp_path), {"stderr": "step 1\nstep 2", "output": {}}, on_log=lines.append)
    assert outcome.ok
    assert "step 1\nstep 2" in outcome.log
    assert lines[:2] == ["step 1", "step 2"]


def test_a_non_zero_exit_is_an_error_with_the_code_stderr_tail_and_stdout(tmp_path):
    error = row_error(command_runner(tmp_path), {"stderr": "Traceback: KeyError 'score'", "exit": 3})
    assert error.startswith("the target exited with code 3")
    assert "Traceback: KeyError 'score'" in error
    assert "stdout began: '{\"partial\": true}\\n'" in error


def test_stdout_that_is_not_json_is_an_error_showing_its_first_200_characters(tmp_path):
    text = "Hello! " + "x" * 193 + "BEYOND-200" + "y" * 50
    error = row_error(command_runner(tmp_path), {"stdout": text, "stderr": "log line"})
    assert "the target's stdout is not JSON" in error
    assert "line 1, column 1" in error
    assert repr(text[:200]) in error and "BEYOND" not in error
    assert "log line" in error


def test_json_followed_by_chatter_is_not_json(tmp_path):
    outcome = run_row(command_runner(tmp_path), {"stdout": '{"a": 1}\nDone.\n'})
    assert not outcome.ok and "Extra data" in outcome.error


def test_empty_stdout_is_an_error_that_says_what_to_print(tmp_path):
    assert "printed nothing on stdout" in row_error(command_runner(tmp_path), {"stdout": ""})


def test_a_program_that_does_not_exist_is_an_error(tmp_path):
    missing = "/no/such/program-xyz"
    assert f"could not start '{missing}'" in row_error(command_runner(tmp_path, command=[missing]), {})


def test_a_hanging_target_times_out_and_its_whole_process_group_dies(tmp_path):
    pidfile = tmp_path / "pids"
    started = time.monotonic()
    # 5 s: the target must start and write its pids before the timeout, also on a loaded machine.
    outcome = run_row(command_runner(tmp_path, timeout=5), {"hang": str(pidfile)})
    assert time.monotonic() - started < 60, "the run waited for the target's 120 s sleep"  # a hang guard only
    assert not outcome.ok
    assert outcome.error.startswith("the target timed out after 5s; the process group was killed")
    pids = [int(p) for p in pidfile.read_text().split()]
    assert len(pids) == 2, "the target and its grandchild"
    assert survivors(pids, 30) == [], "the target or its grandchild outlived the timeout"


def _barrier_project(root, rows, meet):
    """`rows` rows that each wait (up to a hang guard) until `meet` of them have started."""
    folder, live = root / "barrier", root / "live"
    folder.mkdir(parents=True)
    live.mkdir()
    inputs = {"barrier": [str(folder), meet, 60.0], "live": str(live)}
    make_project(root, sets={"s": [row(f"r{i}", inputs, {"met": True}) for i in range(rows)]}, config=COMMAND_CONFIG)


@pytest.mark.parametrize("concurrency", [3, 2])
def test_rows_run_concurrently_up_to_the_limit(tmp_path, concurrency):
    # Each row waits until `concurrency` rows have started: they can only all get past that barrier if
    # that many run at once (with fewer in flight they would wait out the 60 s guard and report met=false).
    # Each row also reports the most rows it saw running at once: never more than the limit.
    _barrier_project(tmp_path, 3, concurrency)
    config = load_config(tmp_path)
    config.runner.concurrency = concurrency
    config.runner.timeout = 120  # past the barrier's own guard, so a missed meeting reads met=false
    report = asyncio.run(Engine(config).run_iteration(Trigger("run")))
    assert all(isinstance(r.actual, dict) for r in report.results), [r.detail for r in report.results]
    assert [r.actual["met"] for r in report.results] == [True, True, True], [r.actual for r in report.results]
    assert max(r.actual["peak"] for r in report.results) == concurrency, [r.actual for r in report.results]
    assert [r.row_name for r in report.results] == ["r0", "r1", "r2"], "results keep the file's row order"
