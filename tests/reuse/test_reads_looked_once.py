"""Recording an iteration's runs looks at each read file once, and the rows one worker served share one
answer — without letting a file that changed after a row read it be recorded as unchanged."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from workbench.config import Config
from workbench.project_files import ProjectFiles
from workbench.rescoring import reads as rescoring_reads
from workbench.rescoring.reads import RecordedReads
from workbench.rescoring.world import World
from workbench.runners import RunOutcome
from workbench.runners.read_audit import ReadsFile


def _stat(path: Path) -> tuple[int, ...]:
    info = os.stat(path)
    return (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_dev)


def _looked(tmp_path: Path, digests: list[str]) -> RecordedReads:
    root = tmp_path / "project"
    root.mkdir(exist_ok=True)

    def read_digest(path: str) -> str:
        digests.append(path)
        return "digest:" + path

    return RecordedReads(ProjectFiles.of(Config(root=root)), World(), time.time_ns(), read_digest, cluster=False)


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    data = tmp_path / "data.txt"
    data.write_text("one\n")
    return data


def test_the_rows_one_worker_served_share_one_look_at_each_file(tmp_path: Path, outside: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    stats = {str(outside): _stat(outside)}
    reads = (str(outside),)
    looked_at: list[str] = []
    real_stat = os.stat

    def counting_stat(path: object, *args: object, **kwargs: object) -> os.stat_result:
        looked_at.append(os.fspath(path))  # type: ignore[arg-type]
        return real_stat(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(rescoring_reads.os, "stat", counting_stat)
    digested: list[str] = []
    looked = _looked(tmp_path, digested)
    answers = [looked.reads_of([RunOutcome(output=i, reads=reads, read_stats=stats)]) for i in range(50)]
    assert all(answer == (None, {str(outside): "digest:" + str(outside)}) for answer in answers)
    assert all(answer[1] is answers[0][1] for answer in answers)  # one digests map for all of them
    assert looked_at.count(str(outside)) == 1 and digested == [str(outside)]


def test_a_file_changed_after_a_worker_read_it_is_caught_for_every_row_it_served(tmp_path: Path,
                                                                                 outside: Path) -> None:
    stats = {str(outside): _stat(outside)}
    outside.write_text("two, longer\n")  # after the worker read it: its stat now differs
    looked = _looked(tmp_path, [])
    for i in range(3):
        late, digests = looked.reads_of([RunOutcome(output=i, reads=(str(outside),), read_stats=stats)])
        assert late == str(outside) and digests == {}


def test_workers_that_read_a_file_before_and_after_it_changed_are_decided_apart(tmp_path: Path,
                                                                                outside: Path) -> None:
    """Same reads list, different stat maps (two workers): the one that read the old file is refused, the
    one that read the file as it is now is recorded."""
    before = {str(outside): _stat(outside)}
    outside.write_text("two, longer\n")
    after = {str(outside): _stat(outside)}
    reads = (str(outside),)
    looked = _looked(tmp_path, [])
    assert looked.reads_of([RunOutcome(output=1, reads=reads, read_stats=before)])[0] == str(outside)
    assert looked.reads_of([RunOutcome(output=2, reads=reads, read_stats=after)])[0] is None
    assert looked.reads_of([RunOutcome(output=3, reads=reads, read_stats=before)])[0] == str(outside)


def test_a_file_read_without_a_stat_counts_as_changed_when_it_is_newer_than_the_iteration(
        tmp_path: Path, outside: Path) -> None:
    """Racy timestamps: with no stat from the hook, a file changed within RACY_NS of the iteration's
    start may have changed after the row read it — for every row, remembered or not."""
    looked = _looked(tmp_path, [])
    for i in range(2):
        late, _ = looked.reads_of([RunOutcome(output=i, reads=(str(outside),), read_stats={})])
        assert late == str(outside)


def test_a_file_gone_since_it_was_read_is_caught(tmp_path: Path, outside: Path) -> None:
    stats = {str(outside): _stat(outside)}
    outside.unlink()
    looked = _looked(tmp_path, [])
    assert looked.reads_of([RunOutcome(output=1, reads=(str(outside),), read_stats=stats)])[0] == str(outside)


def test_reads_file_stats_is_one_map_until_new_reads_arrive(tmp_path: Path) -> None:
    reads = ReadsFile(str(tmp_path / "worker.reads"))
    try:
        with open(reads.path, "ab") as records:
            records.write(b"/a\x011,2,3,4,5\x00")
            records.flush()
            reads.paths()
            first = reads.stats()
            reads.paths()
            assert reads.stats() is first and first == {"/a": (1, 2, 3, 4, 5)}
            records.write(b"/b\x016,7,8,9,10\x00")
            records.flush()
            reads.paths()
            second = reads.stats()
        assert second is not first and first == {"/a": (1, 2, 3, 4, 5)}  # the old map is left as it was
        assert second == {"/a": (1, 2, 3, 4, 5), "/b": (6, 7, 8, 9, 10)}
    finally:
        reads.close()
