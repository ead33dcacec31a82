"""`kill -9` of workbench at the worst moment: mid-iteration (`run`, `watch --plain`) and mid-`accept`.

On restart the history is consistent (the interrupted iteration is absent, the earlier ones intact and
`workbench history` works), no eval file is damaged (an accepted file holds its old bytes or its new
bytes, never a mix), and the targets that were running do not live on.
"""

from __future__ import annotations

import json
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers.checks import tree_digest
from helpers.cli import cli_env, invoke_workbench
from helpers.hardening import RUNNER_KINDS, WAIT_S, assert_polite, kill_all, recorded_pids, runner_table, survivors
from helpers.project import EXACT, make_project, row

from workbench.project import load_project

pytestmark = [pytest.mark.hardening, pytest.mark.process("kill -9 of the real process")]

ECHO = {"do": "echo"}


def project(root: Path, kind: str) -> Path:
    """Two rows that pass at once, and a third that hangs (with a grandchild) when asked to."""
    rows = [row("quick", ECHO, {"echo": ECHO}), row("also quick", ECHO, {"echo": ECHO}, id="quick2")]
    make_project(root, sets={"s": rows}, config=runner_table(kind, root / "pids.txt", timeout=120, concurrency=2),
                 files={"Workflow.json": "{}\n", "faulty_target.py": (Path(__file__).parent / "faulty_target.py")
                        .read_text(encoding="utf-8")})
    return root


def add_hanging_row(root: Path) -> None:
    path = root / "evals" / "default" / "eval-sets" / "s.json"
    doc = json.loads(path.read_text())
    doc["evaluations"].append(row("hangs", {"do": "hang"}, {"never": True}, id="hangs"))
    path.write_text(json.dumps(doc, indent=2))


def wait_for_pids(root: Path, count: int, proc: subprocess.Popen[bytes]) -> list[int]:
    deadline = time.monotonic() + WAIT_S
    while len(pids := recorded_pids(root)) < count:
        if proc.poll() is not None:
            out, err = proc.communicate()
            pytest.fail(f"workbench exited ({proc.returncode}) before the target started: {out!r} {err!r}")
        assert time.monotonic() < deadline, "the hanging target never started"
        time.sleep(0.02)
    return pids


def kill_9_once_running(root: Path, args: list[str], pids: int) -> list[int]:
    """Start `workbench <args>`, SIGKILL it once its targets have recorded `pids` pids, and return the pids
    still running after the grace period (every recorded one is killed afterwards, whatever happened)."""
    proc = subprocess.Popen([sys.executable, "-m", "workbench", *args], env=cli_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        wait_for_pids(root, pids, proc)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        return survivors(recorded_pids(root))
    finally:
        kill_all(recorded_pids(root))
        if proc.poll() is None:
            proc.kill()


def history_numbers(root: Path) -> list[int]:
    proc = invoke_workbench("history", str(root), "--json")
    assert_polite(proc)
    assert proc.returncode == 0, proc.stderr
    return [entry["number"] for entry in json.loads(proc.stdout)]


def integrity(root: Path) -> str:
    with sqlite3.connect(root / ".workbench" / "history.sqlite3") as db:
        return db.execute("PRAGMA integrity_check").fetchone()[0]


@pytest.mark.parametrize("kind", RUNNER_KINDS)
def test_kill_9_during_run_leaves_history_consistent_files_intact_and_no_target_running(tmp_path, kind):
    root = project(tmp_path / "project", kind)
    first = invoke_workbench("run", str(root))
    assert first.returncode == 0, first.stdout + first.stderr  # iteration 1, recorded
    add_hanging_row(root)
    (root / "pids.txt").unlink()
    evals_before = tree_digest(root / "evals")
    hang_pids = 2 if kind in ("command", "uip") else 1  # per-row processes, or a pool's workers
    left = kill_9_once_running(root, ["run", str(root)], hang_pids + 1)
    assert not left, f"targets outlived a SIGKILLed workbench: {left}"
    assert history_numbers(root) == [1]  # the interrupted iteration is absent, the earlier one intact
    assert integrity(root) == "ok"
    assert tree_digest(root / "evals") == evals_before
    again = invoke_workbench("run", str(root), "--row", "quick")
    assert_polite(again)
    assert again.returncode == 0 and history_numbers(root) == [1, 2]


def test_kill_9_during_watch_leaves_history_consistent_and_no_target_running(tmp_path):
    root = project(tmp_path / "project", "command")
    assert invoke_workbench("run", str(root)).returncode == 0
    add_hanging_row(root)
    (root / "pids.txt").unlink()
    # the two quick rows and the hanging one with its grandchild
    left = kill_9_once_running(root, ["watch", str(root), "--plain"], 4)
    assert not left, f"targets outlived a SIGKILLed watch: {left}"
    assert history_numbers(root) == [1]
    assert integrity(root) == "ok"


# -- accept ------------------------------------------------------------------------------------------------

ACCEPT = """
import os, sys, time
from workbench.cli import main
if os.environ.get("SLOW_FSYNC"):  # make the window between "temp file written" and "renamed" wide
    real_fsync = os.fsync
    def slow_fsync(fd):
        real_fsync(fd)
        open(os.environ["SLOW_FSYNC"], "w").close()
        time.sleep(60)
    os.fsync = slow_fsync
sys.argv = ["workbench", "accept", *sys.argv[1:]]
main()
"""


def accept_project(root: Path, padding_mb: int) -> Path:
    """A set whose row 'r' fails (the target answers {"grade": "NEW"}), padded to make writes slow."""
    rows = [row("r", {"output": {"grade": "NEW"}}, {"grade": "OLD"})]
    doc = {"version": "1.0", "evaluatorRefs": [EXACT], "evaluations": rows, "padding": "p" * (padding_mb << 20)}
    make_project(root, sets={"big": doc},
                 config={"kind": "command", "command": ["{python}", str(Path(__file__).parent.parent / "fixtures"
                                                                         / "target.py")]})
    assert invoke_workbench("run", str(root)).returncode == 1  # records the output to accept
    return root


def start_accept(root: Path, **env: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-c", ACCEPT, str(root), "--set", "big", "--row", "r"],
                            env=cli_env(**env), stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def temp_files(root: Path) -> list[Path]:
    return [p for p in (root / "evals" / "default" / "eval-sets").iterdir() if p.name.startswith(".")]


def test_kill_9_after_the_temp_file_is_written_leaves_the_old_bytes_and_the_next_accept_cleans_up(tmp_path):
    root = accept_project(tmp_path / "project", 1)
    path = root / "evals" / "default" / "eval-sets" / "big.json"
    old = path.read_bytes()
    marker = tmp_path / "fsynced"
    proc = start_accept(root, SLOW_FSYNC=str(marker))
    try:
        deadline = time.monotonic() + WAIT_S
        while not marker.exists():
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "accept never reached the write"
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert path.read_bytes() == old
    assert len(temp_files(root)) == 1  # the killed writer's temp file, ignored by the loader
    assert not [p for p in load_project(root).problems if p.severity == "error"]
    done = invoke_workbench("accept", str(root), "--set", "big", "--row", "r")
    assert_polite(done)
    assert done.returncode == 0, done.stderr
    assert temp_files(root) == []  # the dead writer's temp file was removed
    assert json.loads(path.read_bytes())["evaluations"][0]["evaluationCriterias"][EXACT]["expectedOutput"] == {
        "grade": "NEW"}


@pytest.mark.slow
def test_kill_9_at_any_moment_of_an_accept_leaves_old_or_new_bytes(tmp_path):
    """A slow accept (a 20 MB set) killed at a spread of moments: never a truncated or mixed file."""
    root = accept_project(tmp_path / "project", 20)
    path = root / "evals" / "default" / "eval-sets" / "big.json"
    old = path.read_bytes()
    spare = tmp_path / "new-project"
    shutil.copytree(root, spare)
    finished = invoke_workbench("accept", str(spare), "--set", "big", "--row", "r")
    assert finished.returncode == 0, finished.stderr
    new = (spare / "evals" / "default" / "eval-sets" / "big.json").read_bytes()
    assert new != old
    outcomes = []
    for delay in (0.2, 0.5, 0.8, 1.1, 1.5, 2.0, 3.0):
        proc = start_accept(root)
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
        data = path.read_bytes()
        assert data in (old, new), f"killed after {delay}s: the file is neither the old nor the new bytes"
        outcomes.append("new" if data == new else "old")
        if data == new:
            break
    assert not [p for p in load_project(root).problems if p.severity == "error"]
    assert "old" in outcomes  # the early kills did land mid-accept
