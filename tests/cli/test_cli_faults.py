"""Issue 12, point 17 (the CLI's share): huge iteration numbers, a broken set file in accept/add-row,
Ctrl-C during accept, and an honest word about child processes after Ctrl-C."""

from __future__ import annotations

import contextlib
import os
import pty
import select
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.checks import wait_until
from helpers.cli import cli_env, invoke_workbench
from helpers.project import COMMAND_CONFIG, make_project, row

from workbench.actions import signals as signals_module
from workbench.runners import strays

HUGE = "99999999999999999999"
WAIT_S = 60.0


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0] != "Z"
    except OSError:
        return False


@pytest.fixture
def recorded(tmp_path: Path) -> Path:
    root = make_project(tmp_path, sets={"s": [row("a", {"output": {"x": 1}}, {"x": 2}),
                                              row("b", {"output": {"x": 3}}, {"x": 4})]}, config=COMMAND_CONFIG)
    invoke_workbench("run", str(root), env=cli_env())
    return root


def test_iteration_numbers_too_large_for_sqlite_are_answered_not_a_traceback(recorded: Path) -> None:
    shown = invoke_workbench("history", str(recorded), HUGE, env=cli_env())
    assert shown.returncode == 1 and f"no iteration {HUGE}" in shown.stderr, shown.stderr
    listed = invoke_workbench("history", str(recorded), "--limit", HUGE, env=cli_env())
    assert listed.returncode == 0 and "workbench run" in listed.stdout, listed.stderr
    accepted = invoke_workbench("accept", str(recorded), "--set", "s", "--row", "a", "--iteration", HUGE, env=cli_env())
    assert accepted.returncode == 1 and f"iteration {HUGE} did not run row" in accepted.stderr, accepted.stderr
    for proc in (shown, listed, accepted):
        assert "Traceback" not in proc.stderr and "OverflowError" not in proc.stderr


@pytest.mark.parametrize("content", ["", '{"evaluations": ['], ids=["empty", "broken"])
def test_accept_and_add_row_on_a_broken_set_file_say_the_file_is_broken(recorded: Path, content: str) -> None:
    set_file = recorded / "evals" / "default" / "eval-sets" / "s.json"
    set_file.write_text(content)
    for args in (["accept", str(recorded), "--set", "s", "--row", "a"],
                 ["add-row", str(recorded), "--set", "s", "--name", "new", "--inputs", "{}"]):
        proc = invoke_workbench(*args, env=cli_env())
        assert proc.returncode == 1, proc.stderr
        assert "eval set 's' can't be read: evals/default/eval-sets/s.json: is not valid JSON" in proc.stderr
        assert "no eval set" not in proc.stderr
    assert set_file.read_text() == content


@pytest.mark.process("Ctrl-C (SIGINT) at the real process's question, and its exit code")
def test_ctrl_c_at_the_accept_question_exits_130_and_writes_nothing(recorded: Path) -> None:
    set_file = recorded / "evals" / "default" / "eval-sets" / "s.json"
    before = set_file.read_bytes()
    leader, follower = pty.openpty()  # a terminal, so accept asks before writing several rows
    proc = subprocess.Popen([sys.executable, "-m", "workbench", "accept", str(recorded), "--all-failing"],
                            stdin=follower, stdout=follower, stderr=follower, env=cli_env())
    os.close(follower)
    screen = bytearray()
    try:
        wait_until(lambda: b"Accept 2 rows" in _read_terminal(leader, screen), "the question")
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=WAIT_S)
        _read_terminal(leader, screen)
    finally:
        os.close(leader)
        if proc.poll() is None:
            proc.kill()
    shown = screen.decode(errors="replace")
    assert proc.returncode == 130, shown
    assert "interrupted; nothing was written" in shown and "Aborted" not in shown
    assert set_file.read_bytes() == before


def _read_terminal(fd: int, screen: bytearray) -> bytes:
    """Everything the child has written to the terminal so far."""
    while select.select([fd], [], [], 0.05)[0]:
        try:
            chunk = os.read(fd, 4096)
        except OSError:  # the child closed it
            break
        if not chunk:
            break
        screen.extend(chunk)
    return bytes(screen)


ESCAPING_TARGET = """
import json, subprocess, sys, time
inputs = json.load(sys.stdin)
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], start_new_session=True)
open(inputs["pidfile"], "w").write(str(child.pid))
time.sleep(600)
"""


@pytest.mark.process("Ctrl-C (SIGINT) sent to the real process, and what outlives it")
def test_after_ctrl_c_a_child_that_left_its_process_group_is_stopped_too(tmp_path: Path) -> None:
    pidfile = tmp_path / "escaped.pid"
    root = make_project(tmp_path / "p", sets={"s": [row("a", {"pidfile": str(pidfile)}, {"x": 1})]},
                        files={"target.py": ESCAPING_TARGET},
                        config={"kind": "command", "command": ["{python}", "target.py"], "timeout": 300})
    proc = subprocess.Popen([sys.executable, "-m", "workbench", "run", str(root)], env=cli_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    escaped = 0
    try:
        wait_until(lambda: pidfile.exists() and pidfile.read_text().strip(), "the escaped child's pid")
        escaped = int(pidfile.read_text())
        proc.send_signal(signal.SIGINT)
        _out, err = proc.communicate(timeout=WAIT_S)
        assert proc.returncode == 130, err
        assert "interrupted; every child process was stopped" in err
        wait_until(lambda: not _alive(escaped), "the escaped child to be gone")
    finally:
        if proc.poll() is None:
            proc.kill()
        if escaped:
            with contextlib.suppress(OSError):
                os.kill(escaped, signal.SIGKILL)


def test_the_message_names_strays_that_could_not_be_stopped(monkeypatch: pytest.MonkeyPatch) -> None:
    survivor = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], start_new_session=True)
    try:
        wait_until(lambda: survivor.pid in (strays.stray_processes() or []), "the child to carry the mark")
        monkeypatch.setattr(strays, "kill", lambda pid: None)  # as if it could not be killed
        monkeypatch.setattr(strays, "SETTLE_S", 0.1)
        note = signals_module.children_note()
        assert "every child process was stopped" not in note
        assert f"could not be stopped (pid {survivor.pid}" in note
    finally:
        survivor.kill()
        survivor.wait()
