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
from dataclasses import dataclass, field

from ..config import Config
from ..events import ReuseDecision
from ..model import Project, RowKey
from ..project_files import ProjectFiles
from ..runners import RunOutcome
from .planning import RowFilter, RowPlan, plan, run_fingerprint
from .reads import RecordedReads
from .records import ReuseBook, RowRecord, output_digest
from .world import JsonTexts, World, compute_world, digest_with_shared

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

    def ran_in(self, jobs: list[RowPlan], fingerprints: dict[RowKey, str | None], reused: set[RowKey],
               row_pass_rate: float) -> dict[RowKey, str]:
        """What each row's verdict rests on, for the rows re-scored (`reused`) or whose run was recorded (the
        world held): the world, the row's fingerprint, the files it read outside the world, and its scoring
        (evaluators, criteria, `[gate] row_pass_rate`). Not the sample count: a row passing once and failing in
        another iteration on this same ground is flaky however many times each ran."""
        found: dict[RowKey, str] = {}
        texts = JsonTexts()  # the rows one worker served share its reads map: its text is written once
        no_reads: dict[str, str] = {}
        for job in jobs:
            key = job.key
            run = fingerprints.get(key)
            if run is None or (key not in reused and key not in self.recorded):
                continue
            record = self.book.records.get(key)
            reads = record.reads if record is not None else no_reads  # files it read outside the world, as they were
            scoring = [[scored.ref, scored.evaluator.raw if scored.evaluator else None, scored.criterion,
                        scored.preset.detail if scored.preset else None] for scored in job.plans]
            found[key] = digest_with_shared([self.world.digest, run, reads, scoring, row_pass_rate], 2, texts)
        return found

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


def _named(what: str, names: list[str]) -> str:
    more = f" and {len(names) - _SHOWN} more" if len(names) > _SHOWN else ""
    return f"{what} ({', '.join(names[:_SHOWN])}{more})"


async def decide_now(config: Config, project: Project, policy: ReusePolicy,
                     jobs: list[RowPlan] | None = None) -> dict[RowKey, ReuseDecision]:
    """What an iteration would do with each planned row's recorded run right now (`check`, `--explain-reuse`,
    the session link's proof): re-score it, or run it and why. `jobs`: the rows planned (default: every row,
    within the session's --tag / --type). Runs nothing, records nothing."""
    if jobs is None:
        jobs = plan(project, RowFilter().narrowed(config.overrides.tags, config.overrides.kinds))
    rows = [(job.key, run_fingerprint(job)) for job in jobs]
    return await IterationReuse(policy, config, project).begin([(k, f) for k, f in rows if f is not None])
