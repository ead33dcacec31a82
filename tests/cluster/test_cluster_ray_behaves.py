"""Issue 20, case 20: `workbench run --cluster local` behaves as it does without a cluster. A FIFO in the
project neither blocks shipping nor Ctrl-C; Ray's "worker died" message stays out of the `--json`
document on stdout; SIGTERM exits 143 (not Ray's abort, 134); nothing the local Ray started (its
dashboard and runtime-env agents included) outlives workbench after Ctrl-C or SIGTERM; and no
`workbench-ship-*` folder is left behind.

Each test runs the real CLI in a fresh interpreter, which starts its own local Ray; they are in the
"ray" xdist group with the other Ray tests, so the local Rays never run side by side. Everything is
waited for on files, pids and exit codes, never on sleeps.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers.checks import wait_until
from helpers.cli import cli_env
from helpers.project import make_project, row

pytest.importorskip("ray")

pytestmark = pytest.mark.xdist_group("ray")

START_S = 180.0  # a local Ray starts in about 10 s on a loaded 2-core machine; generous, reached only on failure
EXIT_S = 90.0

TARGET = '''\
import json
import os
import signal
import sys
import time

inputs = json.load(sys.stdin)
if inputs.get("kill_worker"):
    os.kill(os.getppid(), signal.SIGKILL)  # the Ray worker running this row
    time.sleep(60)
if inputs.get("hang"):
    with open(inputs["hang"] + ".tmp", "w") as handle:
        handle.write(str(os.getpid()))
    os.replace(inputs["hang"] + ".tmp", inputs["hang"])
    time.sleep(600)
print(json.dumps({"n": inputs["n"]}))
'''


# -- the process table, read here so these tests need nothing of workbench's ------------------------------


def _stat(pid: int) -> tuple[int, int, str] | None:
    """(parent pid, start time, state) of a process, or None when it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return int(fields[1]), int(fields[19]), fields[0]


def descendants(root: int) -> dict[int, int]:
    """{pid: start time} of every process below `root` now."""
    table = {int(name): _stat(int(name)) for name in os.listdir("/proc") if name.isdigit()}
    children: dict[int, list[int]] = {}
    for pid, info in table.items():
        if info is not None:
            children.setdefault(info[0], []).append(pid)
    found: dict[int, int] = {}
    frontier = [root]
    while frontier:
        for pid in children.get(frontier.pop(), []):
            info = table[pid]
            if info is not None:
                found[pid] = info[1]
                frontier.append(pid)
    return found


def still_running(processes: dict[int, int]) -> dict[int, str]:
    """{pid: command line} of the listed processes still running (the same process: same start time)."""
    left: dict[int, str] = {}
    for pid, started in processes.items():
        info = _stat(pid)
        if info is not None and info[1] == started and info[2] not in ("Z", "X"):
            with contextlib.suppress(OSError):
                left[pid] = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()[:120]
    return left


def kill_all(processes: dict[int, int]) -> None:
    for pid in still_running(processes):
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def ship_folders() -> set[str]:
    return {name for name in os.listdir(tempfile.gettempdir()) if name.startswith("workbench-ship-")}


# -- running the CLI -------------------------------------------------------------------------------------


@contextlib.contextmanager
def workbench(root: Path, *args: str, out: Path) -> Iterator[subprocess.Popen[bytes]]:
    """`workbench run ROOT --cluster local ARGS` with stdout and stderr in files; whatever happens, the
    process and everything it started are killed afterwards (so a failing test leaves nothing)."""
    with open(out / "stdout", "wb") as stdout, open(out / "stderr", "wb") as stderr:
        proc = subprocess.Popen([sys.executable, "-m", "workbench", "run", str(root), "--cluster", "local", *args],
                                env=cli_env(), stdout=stdout, stderr=stderr)
    seen: dict[int, int] = {}
    try:
        yield proc
    finally:
        seen.update(descendants(proc.pid))
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        kill_all(seen)


def project(root: Path, rows: list[dict], files: dict[str, str] | None = None) -> Path:
    return make_project(root, sets={"rows": rows},
                        config={"kind": "command", "command": ["{python}", "target.py"], "timeout": 120},
                        files={"target.py": TARGET, **(files or {})})


# -- the tests -------------------------------------------------------------------------------------------


@pytest.mark.process("stdout purity of the real process while a Ray worker dies")
def test_json_stays_valid_when_a_ray_worker_dies(tmp_path: Path) -> None:
    before = ship_folders()
    root = project(tmp_path / "p", [row("worker killed", {"n": 1, "kill_worker": True}, {"n": 1}),
                                    row("fine", {"n": 2}, {"n": 2})])
    with workbench(root, "--json", out=tmp_path) as proc:
        proc.wait(timeout=START_S)
    stdout = (tmp_path / "stdout").read_text()
    try:
        doc = json.loads(stdout)
    except json.JSONDecodeError:
        pytest.fail(f"stdout is not one JSON document:\n{stdout[:2000]}")
    verdicts = {r["row_name"]: r["verdict"] for r in doc["results"]}
    assert verdicts == {"worker killed": "ERROR", "fine": "PASS"}
    assert proc.returncode == 1
    assert ship_folders() <= before


@pytest.mark.process("a stop signal sent to the real process, and what Ray started outliving it")
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_a_stop_signal_exits_as_locally_and_nothing_ray_started_outlives_workbench(tmp_path: Path, signum) -> None:
    before = ship_folders()
    started = tmp_path / "started.pid"
    root = project(tmp_path / "p", [row("hangs", {"n": 1, "hang": str(started)}, {"n": 1})])
    with workbench(root, out=tmp_path) as proc:
        wait_until(lambda: started.exists() or proc.poll() is not None, "the row to start on the cluster", START_S)
        assert proc.poll() is None, (tmp_path / "stderr").read_text()
        ray_started = descendants(proc.pid)
        names = " ".join(still_running(ray_started).values())
        assert "raylet" in names and "ray::" in names, f"no Ray processes found below workbench: {names}"
        proc.send_signal(signum)
        proc.wait(timeout=EXIT_S)
        stderr = (tmp_path / "stderr").read_text()
        assert proc.returncode == 128 + signum, stderr[-3000:]
        assert "SIGTERM received" not in stderr  # Ray's crash handler did not take the signal over
        wait_until(lambda: not still_running(ray_started), "every process the local Ray started to stop", EXIT_S)
    assert ship_folders() <= before


@pytest.mark.process("a stop signal sent to the real process, and what Ray started outliving it")
def test_a_fifo_in_the_project_blocks_neither_shipping_nor_ctrl_c(tmp_path: Path) -> None:
    before = ship_folders()
    started = tmp_path / "started.pid"
    root = project(tmp_path / "p", [row("hangs", {"n": 1, "hang": str(started)}, {"n": 1})])
    os.mkfifo(root / "pipe")
    os.symlink("pipe", root / "link-to-pipe")
    try:
        with workbench(root, out=tmp_path) as proc:
            wait_until(lambda: started.exists() or proc.poll() is not None, "the row to start on the cluster "
                       "(shipping the project must not wait on the FIFO)", START_S)
            assert proc.poll() is None, (tmp_path / "stderr").read_text()
            proc.send_signal(signal.SIGINT)
            proc.wait(timeout=EXIT_S)
            assert proc.returncode == 130, (tmp_path / "stderr").read_text()[-3000:]
    finally:
        with contextlib.suppress(OSError):  # a reader still blocked on the FIFO gets end-of-file
            os.close(os.open(root / "pipe", os.O_WRONLY | os.O_NONBLOCK))
    assert ship_folders() <= before
