"""Issue 12, point 13: two workbench writers on one eval set take turns, so neither loses the other's edit.

Two processes (started with sys.executable) accept different rows of a multi-megabyte set at the same
moment, round after round: every round, both succeed and the file holds both edits. The driver plans
its accept first and then waits for a shared "go" file, so both writes really overlap — the window
that used to lose an edit is the re-read and compare of the whole file just before the rename."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers.cli import cli_env, invoke_workbench
from helpers.project import COMMAND_CONFIG, EXACT, eval_set, make_project, row

pytestmark = pytest.mark.hardening

ROUNDS = 25
PADDING = 5 * 2**20  # the set is ~5 MB: reading and comparing it takes milliseconds

DRIVER = r"""
import os, sys, time
from pathlib import Path
from workbench.actions.accept import preview_recorded_accept
from workbench.actions.writing import Refused, write_plan
from workbench.config import load_config

root, row_ref, go = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
preview = preview_recorded_accept(load_config(root), "big", row_ref)
Path(f"{go}.{row_ref}.ready").touch()
deadline = time.monotonic() + 600  # a test that died never says go: don't spin on after it
while not go.exists():
    if time.monotonic() > deadline:
        sys.exit(3)
    time.sleep(0.0005)
try:
    write_plan(preview.plan)
except Refused as exc:
    print(f"refused: {exc}", file=sys.stderr)
    sys.exit(1)
"""


def _big_set(root: Path) -> Path:
    rows = [row("left", {"output": {"v": "left-new"}}, {"v": "left-old"}),
            row("right", {"output": {"v": "right-new"}}, {"v": "right-old"})]
    document = eval_set(rows, notes="x" * PADDING)  # an unknown field: ignored, but read on every write
    make_project(root, sets={"big": document}, config=COMMAND_CONFIG)
    proc = invoke_workbench("run", str(root), env=cli_env())  # records both rows' outputs in history
    assert proc.returncode == 1, proc.stdout + proc.stderr
    return root / "evals" / "default" / "eval-sets" / "big.json"


def _expected_values(path: Path) -> dict[str, str]:
    doc = json.loads(path.read_bytes())
    return {r["id"]: r["evaluationCriterias"][EXACT]["expectedOutput"]["v"] for r in doc["evaluations"]}


def _wait_for(paths: list[Path], procs: list[subprocess.Popen[str]]) -> None:
    deadline = time.monotonic() + 60
    while not all(p.exists() for p in paths):
        if any(proc.poll() is not None for proc in procs) or time.monotonic() > deadline:
            outputs = [proc.communicate() for proc in procs]
            pytest.fail(f"a driver stopped before it was ready: {outputs}")
        time.sleep(0.005)


@pytest.mark.slow
def test_two_concurrent_accepts_on_different_rows_never_lose_an_edit(tmp_path: Path) -> None:
    path = _big_set(tmp_path)
    original = path.read_bytes()
    lost = []
    for round_number in range(ROUNDS):
        path.write_bytes(original)
        go = tmp_path / f"go-{round_number}"
        procs = [subprocess.Popen([sys.executable, "-c", DRIVER, str(tmp_path), ref, str(go)], env=cli_env(),
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for ref in ("left", "right")]
        _wait_for([Path(f"{go}.{ref}.ready") for ref in ("left", "right")], procs)
        go.touch()
        results = [(proc.wait(timeout=120), proc.communicate()[1]) for proc in procs]
        assert [code for code, _ in results] == [0, 0], results  # neither was refused
        values = _expected_values(path)
        if values != {"left": "left-new", "right": "right-new"}:
            lost.append((round_number, values))
    assert not lost, f"edits lost in {len(lost)} of {ROUNDS} rounds: {lost[:3]}"


@pytest.mark.process("two accept processes racing for one set's lock")
def test_two_concurrent_accept_commands_keep_both_edits(tmp_path: Path) -> None:
    """The same through the real `workbench accept` command, a few rounds."""
    path = _big_set(tmp_path)
    original = path.read_bytes()
    for _ in range(5):
        path.write_bytes(original)
        procs = [subprocess.Popen([sys.executable, "-m", "workbench", "accept", str(tmp_path), "--set", "big",
                                   "--row", ref], env=cli_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True) for ref in ("left", "right")]
        results = [(proc.wait(timeout=120), proc.communicate()[1]) for proc in procs]
        assert [code for code, _ in results] == [0, 0], results
        assert _expected_values(path) == {"left": "left-new", "right": "right-new"}
