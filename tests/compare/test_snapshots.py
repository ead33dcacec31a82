"""Issue 24, the snapshot store: each recorded iteration keeps the content of the project files that
changed (content-addressed, compressed, deduplicated under `.workbench/files/`), never a secret (noted by
its digest only), a `.gitignore`d file, a link or a FIFO; files over the size bound are named, not kept; retention and
`[history] keep_files_mb` bound the store."""

from __future__ import annotations

import asyncio
import os
import random
import sys
import zlib
from pathlib import Path

from helpers.project import make_project, row

from workbench.actions.compare import compare_runs
from workbench.config import load_config
from workbench.engine import Engine
from workbench.events import Trigger, TriggerKind
from workbench.history import HistoryStore
from workbench.snapshots import BLOB_FOLDER, MAX_FILE_BYTES

TARGET = "import json, sys\nprint(json.dumps(json.load(sys.stdin)))\n"


def project(tmp_path: Path, history: str = "") -> Path:
    root = tmp_path / "project"
    make_project(root, sets={"echo": [row("one", {"n": 1}, {"n": 1})]},
                 config=f'[runner]\nkind = "command"\ncommand = ["{sys.executable}", "agent.py"]\ntimeout = 30\n'
                        + history,
                 files={"agent.py": TARGET})
    return root


def run(root: Path) -> int:
    config = load_config(root)
    report = asyncio.run(Engine(config).run_iteration(Trigger(TriggerKind.RUN)))
    with HistoryStore.open(config) as store:
        return store.record(report)


def blobs(root: Path) -> list[bytes]:
    folder = root / ".workbench" / BLOB_FOLDER
    return [zlib.decompress(path.read_bytes()) for path in sorted(folder.glob("*.z"))]


def stored(root: Path) -> int:
    return sum(path.stat().st_size for path in (root / ".workbench" / BLOB_FOLDER).glob("*.z"))


def test_secrets_ignored_files_links_and_fifos_are_never_snapshotted(tmp_path: Path) -> None:
    root = project(tmp_path)
    outside = tmp_path / "outside.txt"
    outside.write_text("OUTSIDE-SECRET 0\n")
    (root / ".gitignore").write_text("private.txt\n")

    def secrets(n: int) -> None:
        (root / ".appilotsrc").write_text(f"token=APPILOTS-SECRET {n}\n")
        (root / ".env").write_text(f"KEY=ENV-SECRET {n}\n")
        (root / "private.txt").write_text(f"IGNORED-SECRET {n}\n")
        outside.write_text(f"OUTSIDE-SECRET {n}\n")
        (root / "helper.py").write_text(f"VALUE = {n}\n")

    secrets(1)
    os.symlink(outside, root / "linked.txt")
    os.symlink(root / "helper.py", root / "inner_link.py")
    os.mkfifo(root / "pipe")
    run(root)
    secrets(2)
    run(root)
    comparison = compare_runs(load_config(root))
    assert [d.summary for d in comparison.files or []] == [  # secrets noted by their digests only (issue 32)
        ".appilotsrc changed (contents not kept)", ".env changed (contents not kept)", "helper.py +1 −1"]
    everything = b"".join(blobs(root))
    for secret in (b"APPILOTS-SECRET", b"ENV-SECRET", b"IGNORED-SECRET", b"OUTSIDE-SECRET"):
        assert secret not in everything
    assert b"[runner]" in everything and b"VALUE = 2" in everything  # the rest is kept


def test_a_file_over_the_size_bound_is_named_not_kept(tmp_path: Path) -> None:
    root = project(tmp_path)
    big = root / "model.bin"
    big.write_bytes(b"a" * (MAX_FILE_BYTES + 1))
    run(root)
    big.write_bytes(b"b" * (MAX_FILE_BYTES + 1))
    run(root)
    comparison = compare_runs(load_config(root))
    (diff,) = comparison.files or []
    assert diff.path == "model.bin" and not diff.diff and "larger than 1 MiB" in diff.note
    assert "model.bin: larger than 1 MiB, its content is not kept" in comparison.files_note
    assert all(len(blob) <= MAX_FILE_BYTES for blob in blobs(root))


def test_identical_content_is_stored_once(tmp_path: Path) -> None:
    root = project(tmp_path)
    (root / "a.py").write_text("SAME = 1\n")
    (root / "b.py").write_text("SAME = 1\n")
    run(root)
    count = len(blobs(root))
    run(root)  # nothing changed: nothing stored
    assert len(blobs(root)) == count
    assert blobs(root).count(b"SAME = 1\n") == 1


def test_retention_prunes_the_snapshots_with_their_iterations(tmp_path: Path) -> None:
    root = project(tmp_path, "[history]\nretention = 3\n")
    stray = root / ".workbench" / BLOB_FOLDER / f"{'0' * 64}.z"  # a blob whose transaction failed
    for n in range(10):
        (root / "agent.py").write_text(TARGET + f"# edit {n}\n")
        run(root)
        if n == 0:
            stray.write_bytes(zlib.compress(b"never named"))
    assert not stray.exists()
    versions = [blob for blob in blobs(root) if blob.startswith(b"import json")]
    assert sorted(versions) == sorted((TARGET + f"# edit {n}\n").encode() for n in (7, 8, 9))
    comparison = compare_runs(load_config(root), "9", "10")
    assert [d.summary for d in comparison.files or []] == ["agent.py +1 −1"]
    assert "+# edit 9" in (comparison.files or [])[0].diff
    oldest = compare_runs(load_config(root), "8", "10")  # the oldest kept iteration still has its base
    assert "-# edit 7" in (oldest.files or [])[0].diff


def test_keep_files_mb_bounds_the_store(tmp_path: Path) -> None:
    bound = 0.05  # MiB
    root = project(tmp_path, f"[history]\nkeep_files_mb = {bound}\n")
    rng = random.Random(7)
    for _ in range(6):
        (root / "data.txt").write_text("".join(f"{rng.getrandbits(64):016x}\n" for _ in range(1500)))
        run(root)
        assert stored(root) <= bound * 2**20
    newest = compare_runs(load_config(root), "5", "6")
    assert (newest.files or [])[0].diff  # the newest versions are kept
    first = compare_runs(load_config(root), "1", "2")
    assert "content not kept" in (first.files or [])[0].note  # the oldest went first


def test_keep_files_mb_zero_keeps_no_content(tmp_path: Path) -> None:
    root = project(tmp_path, "[history]\nkeep_files_mb = 0\n")
    run(root)
    (root / "agent.py").write_text(TARGET + "# edited\n")
    run(root)
    assert blobs(root) == []
    comparison = compare_runs(load_config(root))
    assert [d.path for d in comparison.files or []] == ["agent.py"]  # still named as changed
