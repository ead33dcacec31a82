"""The files a row's target was seen to read outside the `World` (Python targets' audit hook, `runners/read_audit.py`):
which of them a record keeps (`tracked_reads`), whether one changed after the target read it (`read_after_change`),
and, when an iteration's runs are recorded, each file looked at once for all the rows that read it
(`RecordedReads`). A record holds each kept read's digest; `ReuseBook.decide` compares them with the files now.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping

from ..config import STATE_DIR
from ..file_digests import key_changed_since, stat_key
from ..project_files import ProjectFiles
from ..runners import RunOutcome
from .world import World

UNBOUNDED_READS = "\x00unbounded"  # the last of `RunOutcome.reads` when the target read more than is tracked
UNSEEN_READS = "\x00unseen:"  # + why: what the target read can't be known (it started another program, ...)


def tracked_reads(reads: Iterable[str], files: ProjectFiles, world: World,
                  memo: dict[str, bool] | None = None) -> list[str]:
    """The reads a record must keep: those the world does not already cover (outside the project, in
    ignored or dependency folders, eval files, through a symlinked folder), in a stable order. `memo` keeps
    each path's answer across the rows of one iteration's recording (the project and world are the same for
    all of them), so a worker's hundred reads are looked at once, not once per row it served."""
    memo = {} if memo is None else memo
    kept: set[str] = set()
    for path in reads:
        keep = memo.get(path)
        if keep is None:
            keep = memo[path] = _kept_read(path, files, world)
        if keep:
            kept.add(path)
    return sorted(kept, key=lambda p: (p.startswith("\x00"), p))


def _kept_read(path: str, files: ProjectFiles, world: World) -> bool:
    """Whether a record must keep this one read (see `tracked_reads`)."""
    if path.startswith("\x00"):  # a marker: the reads are incomplete or unknown
        return True
    root = os.fspath(files.root)
    prefix = root + os.sep
    if path == root or path.startswith(prefix):
        rel = path[len(prefix):].replace(os.sep, "/")
        if rel.split("/", 1)[0] == STATE_DIR:  # workbench's own files
            return False
        if os.path.isdir(path):
            # A real project folder's listing is covered by its files in the world — unless it is
            # ignored, a dependency folder's inside, or reached through a link.
            if (os.path.realpath(path) == path and not files.ignored(rel, is_dir=True)
                    and not files.inside_dependency(rel + "/x")):
                return False
        elif rel in world.files:
            return False
    return True


_GONE = None  # `read_after_change`'s memo: the file is not there now


def read_after_change(paths: Iterable[str], stats: Mapping[str, tuple[int, ...]], moment_ns: int,
                      now: dict[str, tuple[int, int, int, int, int] | None] | None = None) -> str | None:
    """A read file that changed after the target read it, if any: its stat now differs from its stat when
    the target opened it (`stats`, from the audit hook) — or, where that is not known, it changed at or after
    `moment_ns` (the iteration's start), allowing for timestamp granularity. `now` keeps each file's stat
    key (None: gone) across the rows recorded after one iteration: every one of them ended before the
    first stat, so one look per file says for all of them whether it changed since they read it."""
    now = {} if now is None else now
    for path in paths:
        if path.startswith("\x00"):
            continue
        if path in now:
            current = now[path]
        else:
            try:
                current = now[path] = stat_key(os.stat(path))
            except OSError:
                current = now[path] = _GONE
        if current is _GONE:
            if path in stats:
                return path  # it was there when read and is gone now
            continue
        known = stats.get(path)
        if known is not None:
            if tuple(known) != current:
                return path
        elif key_changed_since(current, moment_ns):
            return path
    return None


class RecordedReads:
    """The reads of the rows one iteration recorded, each file looked at once. Rows served by one worker
    share its reads list and stat map (the same objects), so they share one answer and one digests map;
    every row has ended before the first look, so a file unchanged at that look is unchanged for all."""

    def __init__(self, scope: ProjectFiles, world: World, started_ns: int, read_digest: Callable[[str], str],
                 cluster: bool) -> None:
        self.scope, self.world, self.started_ns, self.read_digest, self.cluster = (
            scope, world, started_ns, read_digest, cluster)
        self.kept: dict[str, bool] = {}  # path -> whether a record keeps it (tracked_reads)
        self.now: dict[str, tuple[int, int, int, int, int] | None] = {}  # path -> its stat key now
        # (each outcome's reads tuple, id of its stat map) -> answer; the maps are held so no id is reused
        self.answers: dict[tuple[tuple[tuple[str, ...], int], ...],
                           tuple[str | None, dict[str, str], list[dict[str, tuple[int, ...]]]]] = {}
        self.fresh = False  # the last answer was computed, not remembered

    def reads_of(self, outcomes: list[RunOutcome]) -> tuple[str | None, dict[str, str]]:
        """(a read file that changed after the row read it, else None; each read kept → its digest)."""
        group = tuple((outcome.reads, id(outcome.read_stats)) for outcome in outcomes)
        known = self.answers.get(group)
        self.fresh = known is None
        if known is None:
            late, digests = self._compute(outcomes)
            known = self.answers[group] = (late, digests, [outcome.read_stats for outcome in outcomes])
        return known[0], known[1]

    def _compute(self, outcomes: list[RunOutcome]) -> tuple[str | None, dict[str, str]]:
        read_stats = {path: stat for outcome in outcomes for path, stat in outcome.read_stats.items()}
        reads = tracked_reads({path for outcome in outcomes for path in outcome.reads}, self.scope, self.world,
                              self.kept)
        if self.cluster:  # paths on the cluster's machines mean nothing here; what can't be known still counts
            reads = [path for path in reads if path.startswith("\x00")]
        late = read_after_change(reads, read_stats, self.started_ns, self.now)
        if late is not None:
            return late, {}
        return None, {path: path if path.startswith("\x00") else self.read_digest(path) for path in reads}
