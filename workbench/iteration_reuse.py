"""One iteration's part in re-scoring: the world it runs in, each row's decision (re-score or run, and
why), and afterwards the records of what ran — unless something changed while it ran.

The world is fingerprinted twice, before the first row starts and after the last one ends. A project
file that differs between the two (by content or by stat: an edit, even one put back) means the runs
may have seen either version, so none of them is recorded for re-scoring; a file a row read outside
the project that changed after the iteration began does the same for that row.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from .config import Config
from .events import ReuseDecision
from .fingerprint import World, compute_world
from .model import Project, RowKey
from .project_files import ProjectFiles
from .reuse import ReuseBook, RowRecord, output_digest, read_after_change, tracked_reads
from .runners import RunOutcome

_SHOWN = 3


@dataclass(slots=True)
class ReusePolicy:
    """What an iteration may do with recorded runs: re-score from `book` when `allowed`, else run
    every row (`why_not` says why, for `--explain-reuse`); it records what ran into `book` either way."""

    book: ReuseBook
    allowed: bool = True
    why_not: str = "every row runs"


@dataclass(slots=True)
class KeptState:
    """What a runner kept between iterations was serving: its processes may hold imported code, so they
    serve again only in the same world, while every file they were seen to read is unchanged."""

    world: str
    reads: dict[str, str] = field(default_factory=dict)
    unknown: bool = False  # a row it served read what can't be known (started a program, read too much)


class IterationReuse:
    def __init__(self, policy: ReusePolicy, config: Config, project: Project) -> None:
        self.policy = policy
        self.book = policy.book
        self.config = config
        self.project = project
        self.world = World()
        self.started_ns = 0
        self._memo: dict[str, str] = {}
        self._ran: list[tuple[RowKey, str, list[RunOutcome], str | None]] = []
        self.recorded: set[RowKey] = set()  # rows whose run was recorded: the world held while they ran
        self.cluster = config.cluster.engine is not None  # reads on other machines mean nothing here

    def read_digest(self, path: str) -> str:
        """A file's digest, looked at once per iteration."""
        if path not in self._memo:
            self._memo[path] = self.book.digests.file(path)
        return self._memo[path]

    async def begin(self, rows: list[tuple[RowKey, str]]) -> dict[RowKey, ReuseDecision]:
        """Fingerprint the world and decide each row (`rows`: its key and its row fingerprint)."""
        self.started_ns = time.time_ns()
        return await asyncio.to_thread(self._begin, rows)

    def _begin(self, rows: list[tuple[RowKey, str]]) -> dict[RowKey, ReuseDecision]:
        self.world = compute_world(self.config, self.project.eval_files, self.book.digests, self.book.key)
        if not self.policy.allowed:
            denied = ReuseDecision(False, f"runs: {self.policy.why_not}")  # frozen: one for every row
            return {key: denied for key, _ in rows}
        samples = self.config.runner.repeat
        return {key: self.book.decide(key, run, self.world, self.read_digest, samples) for key, run in rows}

    def may_keep_serving(self, kept: KeptState | None) -> bool:
        """Whether a runner kept from an earlier iteration may serve this one."""
        if kept is None or not self.policy.allowed or kept.world != self.world.digest or kept.unknown:
            return False
        return all(self.read_digest(path) == known for path, known in kept.reads.items())

    def ran(self, key: RowKey, run: str, outcomes: list[RunOutcome], error: str | None) -> None:
        """A row's target ran, once or `[runner] repeat` times (`error`: why a run failed, per its dialect)."""
        self._ran.append((key, run, outcomes, error))

    async def finish(self, kept: KeptState | None = None) -> KeptState:
        """Record what ran in the book (after the world is fingerprinted again; the caller saves it once
        history has numbered the iteration); the state a kept runner now has."""
        return await asyncio.to_thread(self._finish, kept)

    def _finish(self, kept: KeptState | None) -> KeptState:
        state = KeptState(self.world.digest, dict(kept.reads) if kept is not None else {},
                          kept.unknown if kept is not None else False)
        if not self._ran:
            return state
        after = compute_world(self.config, self.project.eval_files, self.book.digests, self.book.key,
                              same_programs_as=self.world)
        edited = self.world.edited_during(after)
        during = _named("the project changed while it ran", edited) if edited else None
        self._memo.clear()  # what is recorded is looked at now, after the rows read it, not at the start
        if during is not None:
            for key, _run, _outcomes, _error in self._ran:
                self.book.refuse(key, during)
            state.unknown = True  # its processes may hold what changed: fresh ones next time
            return state
        looked = RecordedReads(ProjectFiles.of(self.config), self.world, self.started_ns, self.read_digest,
                               self.cluster)
        for key, run, outcomes, error in self._ran:
            late, digests = looked.reads_of(outcomes)
            if late is not None:
                self.book.refuse(key, f"{late}, which it read, changed while it ran")
                state.unknown = True
                continue
            if looked.fresh:  # a set of reads not seen in an earlier row: what a kept runner now holds
                state.reads.update({p: d for p, d in digests.items() if not p.startswith("\x00")})
                state.unknown = state.unknown or any(p.startswith("\x00") for p in digests)
            record = RowRecord(run, self.world.digest, digests, None, error, output_digest(outcomes), len(outcomes))
            self.book.remember(key, record, outcomes, self.world)
            self.recorded.add(key)
        return state


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


def _named(what: str, names: list[str]) -> str:
    more = f" and {len(names) - _SHOWN} more" if len(names) > _SHOWN else ""
    return f"{what} ({', '.join(names[:_SHOWN])}{more})"
