"""Workbench's state folder being a link never makes it write outside the project (issue 20, the part of
case 12 beyond replays): `.workbench` (or `.workbench/locks`) linked elsewhere is refused with a message
naming the link, and the run still runs and reports; nothing lands where the link points."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from helpers.cli import cli_env, invoke_workbench
from helpers.project import COMMAND_CONFIG, make_project, row

pytestmark = pytest.mark.hardening


def _snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(folder)): (p.lstat().st_size, p.lstat().st_mtime_ns) for p in folder.rglob("*")}


def _project(tmp_path: Path) -> Path:
    return make_project(tmp_path / "project", sets={"s": [row("a", {"output": {"x": 1}}, {"x": 1})]},
                        config=COMMAND_CONFIG)


def test_a_linked_state_folder_is_refused_and_nothing_is_written_through_it(tmp_path: Path) -> None:
    root = _project(tmp_path)
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "keep.txt").write_text("mine\n")
    before = _snapshot(notes)
    (root / ".workbench").symlink_to(notes, target_is_directory=True)
    proc = invoke_workbench("run", str(root), "--reuse", "--json", env=cli_env())
    assert proc.returncode == 0, proc.stderr  # the run itself still runs and reports
    assert json.loads(proc.stdout)["summary"]["passed"] == 1
    assert ".workbench is a link to" in proc.stderr and str(notes) in proc.stderr
    assert _snapshot(notes) == before


def test_accept_refuses_a_linked_locks_folder_and_writes_nothing(tmp_path: Path) -> None:
    root = make_project(tmp_path / "project", sets={"s": [row("a", {"output": {"x": 2}}, {"x": 1})]},
                        config=COMMAND_CONFIG)
    assert invoke_workbench("run", str(root), env=cli_env()).returncode == 1
    notes = tmp_path / "notes"
    notes.mkdir()
    before = _snapshot(notes)
    locks = root / ".workbench" / "locks"
    if locks.exists():
        for path in locks.iterdir():
            path.unlink()
        locks.rmdir()
    locks.symlink_to(notes, target_is_directory=True)
    proc = invoke_workbench("accept", str(root), "--set", "s", "--row", "a", "--yes", env=cli_env())
    assert proc.returncode == 1, proc.stdout + proc.stderr  # refused, naming the link: nothing written anywhere
    assert "locks is a link to" in proc.stderr and "nothing written" in proc.stderr
    assert json.loads((root / "evals/default/eval-sets/s.json").read_text())["evaluations"][0][
        "evaluationCriterias"]["exact-match-evaluator"]["expectedOutput"] == {"x": 1}
    assert _snapshot(notes) == before
    assert os.path.islink(locks)
