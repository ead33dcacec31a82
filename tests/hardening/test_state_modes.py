"""Issue 32, point 1: everything workbench keeps under `.workbench/` is its user's only — folders 0700,
files 0600 — whatever the umask, after a run, an accept, a watch iteration, `report --html`/`--md`, a
snapshot write and a judge answer remembered; a `.workbench` an older version made 0755 (with 0644 files)
is tightened when it is next used. The user's own files keep their modes."""

from __future__ import annotations

import asyncio
import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers.cli import invoke_json, invoke_workbench
from helpers.project import make_project, row
from helpers.watch import watching

from workbench.scoring.judge_memory import JudgeMemory
from workbench.snapshots import BLOB_FOLDER

TARGET = "import json, sys\nprint(json.dumps(json.load(sys.stdin)))\n"


@pytest.fixture
def permissive_umask() -> Iterator[None]:
    """Files and folders created with umask 0: whatever is not 0600/0700 was made so by workbench."""
    before = os.umask(0)
    try:
        yield
    finally:
        os.umask(before)


def project(tmp_path: Path) -> Path:
    return make_project(tmp_path / "project", sets={"echo": [row("one", {"n": 1}, {"n": 1}),
                                                             row("two", {"n": 2}, {"n": 3})]},
                        config=f'[runner]\nkind = "command"\ncommand = ["{sys.executable}", "agent.py"]\n'
                               'timeout = 30\n',
                        files={"agent.py": TARGET, "helper.py": "VALUE = 1\n"})


def modes(state: Path) -> dict[str, int]:
    """The permission bits of `.workbench` and of everything under it, by path relative to the project."""
    found = {state.name: stat.S_IMODE(state.lstat().st_mode)}
    for folder, folders, files in os.walk(state):
        for name in [*folders, *files]:
            path = Path(folder, name)
            found[str(path.relative_to(state.parent))] = stat.S_IMODE(path.lstat().st_mode)
    return found


def assert_owner_only(state: Path) -> None:
    wrong = {}
    for rel, mode in modes(state).items():
        info = (state.parent / rel).lstat()
        assert stat.S_ISDIR(info.st_mode) or stat.S_ISREG(info.st_mode), f"{rel} is neither a file nor a folder"
        wanted = 0o700 if stat.S_ISDIR(info.st_mode) else 0o600
        if mode != wanted:
            wrong[rel] = oct(mode)
    assert not wrong, f"not owner-only under {state}: {wrong}"


def test_everything_under_the_state_folder_is_owner_only(tmp_path: Path, permissive_umask: None) -> None:
    root = project(tmp_path)
    set_file = root / "evals" / "default" / "eval-sets" / "echo.json"
    set_file.chmod(0o664)
    proc, doc = invoke_json("run", str(root))
    assert doc["summary"]["failed"] == 1, proc.stderr
    accepted = invoke_workbench("accept", str(root), "--set", "echo", "--row", "two")
    assert accepted.returncode == 0, accepted.stderr

    async def watch_one_change() -> None:
        async with watching(root) as harness:
            (root / "helper.py").write_text("VALUE = 2\n")
            await harness.wait_for(2)

    asyncio.run(watch_one_change())
    out = tmp_path / "out"
    out.mkdir()
    shared = invoke_workbench("report", str(root), "--html", str(out / "report.html"), "--md", str(out / "digest.md"))
    assert shared.returncode == 0, shared.stderr
    JudgeMemory(root / ".workbench").put("a key", 1.0, "a remembered judge answer")

    state = root / ".workbench"
    found = modes(state)
    for expected in ("history.sqlite3", "reuse.json", "fingerprints.json", "fingerprint.key", "locks",
                     BLOB_FOLDER, "judge-cache.sqlite"):
        assert f".workbench/{expected}" in found, sorted(found)
    assert any(rel.endswith(".z") for rel in found) and any(rel.endswith(".lock") for rel in found)
    assert_owner_only(state)
    # The user's files are theirs: the accepted set keeps its mode, a shared report is an ordinary file.
    assert stat.S_IMODE(set_file.stat().st_mode) == 0o664
    assert stat.S_IMODE((out / "report.html").stat().st_mode) == 0o644
    assert stat.S_IMODE((out / "digest.md").stat().st_mode) == 0o644


def test_a_state_folder_an_older_version_left_open_is_tightened(tmp_path: Path, permissive_umask: None) -> None:
    root = project(tmp_path)
    invoke_json("run", str(root))
    state = root / ".workbench"
    for rel in modes(state):  # as versions before issue 32 left it
        path = root / rel
        path.chmod(0o755 if path.is_dir() else 0o644)
    (state / "history.sqlite3-wal").write_bytes(b"")  # a sidecar an older process left 0644
    (state / "history.sqlite3-wal").chmod(0o644)
    assert stat.S_IMODE(state.stat().st_mode) == 0o755
    (root / "helper.py").write_text("VALUE = 3\n")  # a change: a snapshot blob is written too
    invoke_json("run", str(root))
    assert_owner_only(state)
