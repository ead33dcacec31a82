"""Issue 20, case 19: a process a target moves into a session of its own (a double fork, `setsid`,
`start_new_session=True`) is stopped at the end of every run, not only after Ctrl-C: after `workbench
run`, and after each iteration of the watch loop (a Session), while the worker process the loop keeps
for the next iteration survives. Another workbench's processes are never touched."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.checks import process_alive, wait_until
from helpers.cli import invoke_workbench
from helpers.project import eval_set, make_project, row
from helpers.watch import watching

from workbench.runners.strays import MARK_ENV

WAIT_S = 60.0

DAEMONIZER = '''\
import json
import os
import sys


def double_fork_sleeper():
    """Start a sleeper the way a daemon does: fork, setsid, fork again, the middle one exits."""
    read_end, write_end = os.pipe()
    middle = os.fork()
    if middle == 0:
        os.close(read_end)
        os.setsid()
        sleeper = os.fork()
        if sleeper == 0:
            os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(600)"])
        os.write(write_end, str(sleeper).encode())
        os._exit(0)
    os.close(write_end)
    os.waitpid(middle, 0)
    with os.fdopen(read_end) as pipe:
        return int(pipe.read())


def answer(inputs):
    sleeper = double_fork_sleeper()
    record = os.path.join(os.environ["PIDS"], f"{inputs['n']}.json")
    with open(record + ".tmp", "w") as handle:
        json.dump({"worker": os.getpid(), "sleeper": sleeper}, handle)
    os.replace(record + ".tmp", record)
    return {"n": inputs["n"]}


if __name__ == "__main__":
    print(json.dumps(answer(json.load(sys.stdin))))
'''


def gone(pid: int) -> bool:
    """Polls the pid (os.kill(pid, 0), a zombie counting as gone)."""
    return not process_alive(pid)


def recorded(pids: Path, n: int) -> dict[str, int]:
    return json.loads((pids / f"{n}.json").read_text())


@pytest.fixture
def pids(tmp_path: Path):
    folder = tmp_path / "pids"
    folder.mkdir()
    yield folder
    for path in folder.glob("*.json"):  # nothing may outlive the test, whatever it found
        with contextlib.suppress(OSError, ValueError):
            os.kill(json.loads(path.read_text())["sleeper"], signal.SIGKILL)


def test_after_workbench_run_a_double_forked_sleeper_is_gone(tmp_path: Path, pids: Path) -> None:
    root = make_project(tmp_path / "p", sets={"s": [row("daemonizes", {"n": 1}, {"n": 1})]},
                        config={"kind": "command", "command": ["{python}", "daemonizer.py"], "timeout": 60,
                                "env": {"PIDS": str(pids)}},
                        files={"daemonizer.py": DAEMONIZER})
    proc = invoke_workbench("run", str(root))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    sleeper = recorded(pids, 1)["sleeper"]
    wait_until(lambda: gone(sleeper), f"the double-forked sleeper (pid {sleeper}) to be stopped")


def test_each_watch_iteration_stops_escaped_processes_and_keeps_its_worker(tmp_path: Path, pids: Path) -> None:
    """A `kind = "python"` worker kept for the next iteration (only evals/ changed) survives; what the
    target double-forked in each iteration does not."""
    first_row = row("first", {"n": 1}, {"n": 1})
    root = make_project(tmp_path / "p", sets={"s": eval_set([first_row], id="set-s")},
                        # The target starts a program (the sleeper): trusted here, else what that program read
                        # could not be known and the worker would (rightly) not be kept for the next iteration.
                        config={"runner": {"kind": "python", "callable": "daemonizer:answer", "timeout": 60,
                                           "concurrency": 1, "env": {"PIDS": str(pids)}},
                                "cache": {"trust_subprocesses": True}},
                        files={"daemonizer.py": DAEMONIZER})
    stranger = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], start_new_session=True,
                                env={**os.environ, MARK_ENV: "another-workbench"})

    async def scenario() -> None:
        async with watching(root) as harness:
            first = recorded(pids, 1)
            wait_until(lambda: gone(first["sleeper"]), "the first iteration's sleeper to be stopped")
            assert process_alive(first["worker"]), "the worker kept for the next iteration was killed"
            make_project(root, sets={"s": eval_set([first_row, row("second", {"n": 2}, {"n": 2})], id="set-s")},
                         evaluators={})
            await harness.wait_for(2)
            second = recorded(pids, 2)
            assert second["worker"] == first["worker"], "the second iteration did not run on the kept worker"
            wait_until(lambda: gone(second["sleeper"]), "the second iteration's sleeper to be stopped")
            assert process_alive(second["worker"])

    try:
        asyncio.run(scenario())
        assert stranger.poll() is None, "a process of another workbench was killed"
    finally:
        stranger.kill()
        stranger.wait()


EDITOR_LEAVING_A_DAEMON = '''\
import json, os, subprocess, sys
daemon = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], start_new_session=True)
with open(sys.argv[1] + ".tmp", "w") as handle:
    json.dump({"daemon": daemon.pid, "marked": os.environ.get("WORKBENCH_RUN_MARK")}, handle)
os.replace(sys.argv[1] + ".tmp", sys.argv[1])
'''


async def test_a_daemon_the_users_editor_leaves_is_not_taken_for_a_stray(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """`e` in the TUI opens $EDITOR; a GUI editor's server it leaves running is the user's, not a target's:
    it carries no mark, and the next iteration's sweep leaves it alone."""
    from helpers.tui import SIZE, app_for, press_and_wait, to_first_row, wait_idle, write_project
    from textual.app import App

    record = tmp_path / "editor.json"
    script = tmp_path / "editor.py"
    script.write_text(EDITOR_LEAVING_A_DAEMON)
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", f"{sys.executable} {script} {record}")
    monkeypatch.setattr(App, "suspend", lambda self: contextlib.nullcontext())
    app = app_for(write_project(tmp_path / "project"))
    daemon = 0
    try:
        async with app.run_test(size=SIZE) as pilot:
            await wait_idle(app, pilot)
            await to_first_row(app, pilot)
            await pilot.press("e")
            wait_until(record.exists, "the editor to run")
            opened = json.loads(record.read_text())
            daemon = opened["daemon"]
            assert opened["marked"] is None
            await press_and_wait(app, pilot, "r")  # run the row again: the iteration ends with the sweep
            assert process_alive(daemon), "the editor's daemon was killed by the end-of-iteration sweep"
    finally:
        if daemon:
            with contextlib.suppress(OSError):
                os.kill(daemon, signal.SIGKILL)
