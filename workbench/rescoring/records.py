"""Pay once, never stale: re-score a row from its recorded run instead of running its target again,
only when everything that went into that run is known to be the same now.

A recorded run (`RowRecord`) names what it ran on: the row's own fingerprint (everything the row hands
its target: inputs, name, id, set, setup — `row_fingerprint`), the `World` it ran in (settings,
environment, programs, project files: `world.py`), and the digests of the files its target was
seen to read outside that world (Python targets). It is reused when all three are equal now, its run
was not an ERROR, nothing changed while it ran, and it belongs to this history database. Otherwise the
row runs, and `ReuseDecision.reason` says why — `workbench check` and `run --explain-reuse` print it.

Records live in `.workbench/reuse.json` (written by `run`, `watch` and the TUI alike), the outputs
they stand for in the history database; a session also keeps its own outcomes in memory.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import jsonio
from ..events import ReuseDecision
from ..file_digests import FileDigests
from ..model import EvalSet, Result, Row, RowKey, Verdict, results_by_row, wrap_output
from ..regular_files import open_regular
from ..runners import RunOutcome
from ..safe_paths import real_folder
from ..writeback.atomic import write_atomically
from .reads import UNBOUNDED_READS, UNSEEN_READS
from .world import World, digest, load_key

RECORD_FILE = "reuse.json"
RECORD_VERSION = 2
_MAX_RECORD_BYTES = 256 * 2**20
_SEP = "\x1f"


def row_fingerprint(dialect_name: str, eval_set: EvalSet, row: Row, run: Any) -> str:
    """Everything a row hands its target: what its dialect says decides the output (`run`: the inputs,
    a conversation's turns and setup, a replay's steps and tools), and its identity, which the target
    sees too (WORKBENCH_ROW_ID / _NAME / _SET / _SCOPE): renaming a row runs it again."""
    return digest({"dialect": dialect_name, "run": run, "id": row.id, "name": row.name,
                   "set": eval_set.file_name, "scope": eval_set.scope})


@dataclass(slots=True)
class RowRecord:
    """What one row's last recorded run ran on."""

    run: str  # row_fingerprint
    world: str  # World.digest
    reads: dict[str, str] = field(default_factory=dict)  # files read outside the world → digest
    iteration: int | None = None  # where history keeps its output (None: only in this session's memory)
    failed: str | None = None  # why the run was an ERROR: such runs are never reused
    output: str = ""  # digest of the output as recorded: what history gives back must be the very same
    samples: int = 1  # how many independent runs it recorded ([runner] repeat): re-scored only as that many

    def to_json(self, reads_id: str) -> dict[str, Any]:
        """The record with its reads as a reference into the file's shared table (rows of one target
        mostly read the same files: the interpreter's standard library, a data folder)."""
        doc = {"run": self.run, "world": self.world, "reads": reads_id, "iteration": self.iteration,
               "failed": self.failed, "output": self.output}
        return {**doc, "samples": self.samples} if self.samples != 1 else doc

    @classmethod
    def from_json(cls, doc: Any, read_sets: dict[str, Any], *, checked: bool = False) -> RowRecord | None:
        """The record `doc` describes, or None when it is malformed (`checked`: every map of `read_sets` is
        already known to map paths to digests, as `checked_read_sets` leaves it)."""
        if not isinstance(doc, dict) or not isinstance(doc.get("run"), str) or not isinstance(doc.get("world"), str):
            return None
        reads = read_sets.get(doc["reads"]) if isinstance(doc.get("reads"), str) else None
        iteration = doc.get("iteration")
        failed = doc.get("failed")
        if not isinstance(reads, dict) or (not checked and not all(isinstance(v, str) for v in reads.values())):
            return None
        if iteration is not None and (not isinstance(iteration, int) or isinstance(iteration, bool)):
            return None
        output = doc.get("output")
        if not isinstance(output, str) or not output:
            return None
        samples = doc.get("samples", 1)  # records written before repeats hold one run
        if not isinstance(samples, int) or isinstance(samples, bool) or samples < 1:
            return None
        return cls(doc["run"], doc["world"], reads, iteration, failed if isinstance(failed, str) else None, output,
                   samples)


def checked_read_sets(listed: Any) -> dict[str, dict[str, str]]:
    """The file's shared reads table without its malformed maps, each map checked once (not once per row
    that refers to it): a record naming a dropped map is dropped too."""
    if not isinstance(listed, dict):
        return {}
    return {name: reads for name, reads in listed.items()
            if isinstance(reads, dict) and all(isinstance(v, str) for v in reads.values())}


def output_digest(outcomes: list[RunOutcome]) -> str:
    """What a record says its runs produced, compared with what history gives back for them (one run: the
    digest records made before repeats hold)."""
    if len(outcomes) == 1:
        return digest(wrap_output(outcomes[0].output))
    return digest([wrap_output(outcome.output) for outcome in outcomes])


def outcomes_from_results(results: Iterable[Result]) -> dict[RowKey, list[RunOutcome]]:
    """Each row's runs as history stored them — one, or every sample of a repeated row: the output every
    evaluator saw, its trace, log, duration."""
    found: dict[RowKey, list[RunOutcome]] = {}
    for key, group in results_by_row(results).items():
        first = group[0]
        if first.samples:
            if any(len(r.samples) != len(first.samples) for r in group):
                continue  # not one set of runs: nothing to re-score
            runs = []
            for index, sample in enumerate(first.samples):
                produced = next((r.samples[index] for r in group if r.samples[index].actual is not None), None)
                runs.append(RunOutcome(output=produced.actual, duration_ms=sample.duration_ms, log=sample.log,
                                       trace=sample.trace) if produced is not None else
                            RunOutcome(error=sample.detail or "no output", duration_ms=sample.duration_ms,
                                       log=sample.log, trace=sample.trace))
            found[key] = runs
            continue
        single = next((r for r in group if r.actual is not None), None)
        if single is not None:
            found[key] = [RunOutcome(output=single.actual, duration_ms=first.duration_ms, log=first.log,
                                     trace=first.trace)]
        elif all(r.verdict is Verdict.ERROR for r in group) and first.detail:
            found[key] = [RunOutcome(error=first.detail, duration_ms=first.duration_ms, log=first.log,
                                     trace=first.trace)]
    return found


OutcomeSource = Callable[[int], Mapping[RowKey, list[RunOutcome]]]


class ReuseBook:
    """Every row's last recorded run, and whether it may be re-scored in a given world.

    `history_id` names the history database the records' outputs live in; records made for another
    (the history was moved aside or replaced) are never reused. `outcomes` reads an iteration's
    outputs back from history when this process did not keep them itself."""

    def __init__(self, state_dir: Path | None, history_id: str | None, outcomes: OutcomeSource | None = None,
                 *, persist: bool = True) -> None:
        self.path = state_dir / RECORD_FILE if state_dir is not None else None
        self.writable = persist  # False: read what other runs recorded, write nothing (check, a test session)
        self.history_id = history_id
        self.digests = FileDigests(state_dir)
        self.key = load_key(state_dir, create=persist)  # keys the environment's digests
        self.records: dict[RowKey, RowRecord] = {}
        self.worlds: dict[str, World] = {}
        self.unrecorded: dict[RowKey, str] = {}  # why a row's newest run could not be recorded
        self.foreign = False  # the file on disk belongs to another history: nothing in it is reused
        self._outcomes: dict[RowKey, list[RunOutcome]] = {}
        self._by_iteration: dict[int, Mapping[RowKey, list[RunOutcome]]] = {}
        self._source = outcomes
        self._changed: set[RowKey] = set()
        if self.path is not None and history_id is not None:  # without history, records' outputs can't be found
            self._load()

    # -- deciding ----------------------------------------------------------------------------------

    def decide(self, key: RowKey, run: str, world: World, read_digest: Callable[[str], str],
               samples: int = 1) -> ReuseDecision:
        """May `key`, about to run with fingerprint `run` in `world` `samples` times ([runner] repeat), be
        re-scored from its record?"""
        record = self.records.get(key)
        if record is None:
            why = self.unrecorded.get(key)
            if why:
                return ReuseDecision(False, f"runs: its last run could not be recorded: {why}")
            if self.foreign:
                return ReuseDecision(False, "runs: the recorded runs belong to another history database (moved aside "
                                       "or replaced), so none is reused")
            return ReuseDecision(False, "runs: no earlier run of it is recorded")
        if record.failed is not None:
            return ReuseDecision(False, f"runs: its last run can't be re-scored: {_first_line(record.failed)}")
        if record.run != run:
            return ReuseDecision(False, "runs: what it hands the target changed (inputs, name, id, set or setup)")
        if record.samples != samples:
            return ReuseDecision(False, f"runs: its last run recorded {record.samples} "
                                        f"sample{'s' if record.samples != 1 else ''}, and repeat = {samples} now")
        if record.world != world.digest:
            before = self.worlds.get(record.world)
            changes = world.differences(before) if before is not None else []
            return ReuseDecision(False, "runs: " + ("; ".join(changes) if changes else "the project changed") +
                            " since its last run")
        for path, known in record.reads.items():
            if path == UNBOUNDED_READS:
                return ReuseDecision(False, "runs: it read more files than workbench keeps track of")
            if path.startswith(UNSEEN_READS):
                return ReuseDecision(False, f"runs: {path[len(UNSEEN_READS):]}, so what it read can't be known")
            if path.startswith("\x00"):
                return ReuseDecision(False, "runs: what it read can't be known")
            if read_digest(path) != known:
                return ReuseDecision(False, f"runs: a file it read changed: {path}")
        outcomes = self.outcomes(key, record)
        if outcomes is None or len(outcomes) != record.samples:
            return ReuseDecision(False, f"runs: the output of its last run (iteration {record.iteration}) is no longer "
                                   "in history")
        if output_digest(outcomes) != record.output:  # an older copy of the history put back, a hand edit
            return ReuseDecision(False, f"runs: history's iteration {record.iteration} no longer holds the output "
                                   "its record names")
        where = f"iteration {record.iteration}" if record.iteration is not None else "its last run"
        return ReuseDecision(True, f"re-scored from {where}: nothing it depends on changed", record.iteration)

    def outcomes(self, key: RowKey, record: RowRecord) -> list[RunOutcome] | None:
        """The recorded runs of `key` (every sample), from this session's memory or from history."""
        if key in self._outcomes:
            return self._outcomes[key]
        if record.iteration is None or self._source is None:
            return None
        if record.iteration not in self._by_iteration:
            try:
                self._by_iteration[record.iteration] = self._source(record.iteration)
            except Exception:  # unreadable history: nothing from it is reused
                self._by_iteration[record.iteration] = {}
        return self._by_iteration[record.iteration].get(key)

    # -- recording ---------------------------------------------------------------------------------

    def remember(self, key: RowKey, record: RowRecord, outcomes: list[RunOutcome] | None, world: World) -> None:
        self.records[key] = record
        self.worlds[world.digest] = world
        self.unrecorded.pop(key, None)
        if outcomes is not None:
            self._outcomes[key] = outcomes
        self._changed.add(key)

    def refuse(self, key: RowKey, why: str) -> None:
        """The row ran, but its run can't stand for the next ones (something changed while it ran)."""
        self.records.pop(key, None)
        self._outcomes.pop(key, None)
        self.unrecorded[key] = why
        self._changed.add(key)

    def numbered(self, iteration: int | None, keys: Iterable[RowKey]) -> None:
        """History gave the iteration that ran (or re-scored) these rows its number: their outputs are
        found there from now on."""
        if iteration is None:
            return
        for key in keys:
            record = self.records.get(key)
            if record is not None:
                record.iteration = iteration
                self._changed.add(key)

    def forget(self) -> None:
        """Drop this session's memory of outputs (a runner change, a history moved aside)."""
        self._outcomes.clear()

    # -- the file ------------------------------------------------------------------------------------

    def _read_file(self) -> dict[str, Any] | None:
        assert self.path is not None
        try:
            if self.path.stat().st_size > _MAX_RECORD_BYTES:
                return None
            with open_regular(self.path) as handle:
                doc = jsonio.loads(handle.read())
        except (OSError, jsonio.JsonError):
            return None
        if not isinstance(doc, dict) or doc.get("version") != RECORD_VERSION:
            return None
        return doc

    def _load(self) -> None:
        doc = self._read_file()
        if doc is None:
            return
        if doc.get("history") != self.history_id:
            self.foreign = True
            return
        worlds = doc.get("worlds")
        for name, value in (worlds.items() if isinstance(worlds, dict) else ()):
            world = World.from_json(value)
            if world is not None and world.digest == name:
                self.worlds[name] = world
        rows = doc.get("rows")
        read_sets = checked_read_sets(doc.get("reads"))
        for text, value in (rows.items() if isinstance(rows, dict) else ()):
            parts = str(text).split(_SEP)
            record = RowRecord.from_json(value, read_sets, checked=True)
            if len(parts) == 3 and record is not None:
                self.records[RowKey(*parts)] = record
        unrecorded = doc.get("unrecorded")
        for text, value in (unrecorded.items() if isinstance(unrecorded, dict) else ()):
            parts = str(text).split(_SEP)
            if len(parts) == 3 and isinstance(value, str):
                self.unrecorded[RowKey(*parts)] = value

    def save(self) -> None:
        """Write what changed over what is on disk now (another workbench process may have recorded rows
        meanwhile: every record stands on its own, so merging row by row is always consistent)."""
        if not self.writable:
            return
        self.digests.save()
        if self.path is None or not self._changed:
            return
        doc = self._read_file()
        if doc is None or doc.get("history") != self.history_id:
            doc = {"version": RECORD_VERSION, "history": self.history_id, "worlds": {}, "rows": {}, "unrecorded": {}}
        rows: dict[str, Any] = doc["rows"] if isinstance(doc.get("rows"), dict) else {}
        unrecorded: dict[str, Any] = doc["unrecorded"] if isinstance(doc.get("unrecorded"), dict) else {}
        worlds: dict[str, Any] = doc["worlds"] if isinstance(doc.get("worlds"), dict) else {}
        read_sets: dict[str, Any] = doc["reads"] if isinstance(doc.get("reads"), dict) else {}
        # The rows one worker served share one reads map (iteration.py): named once, not once per row. The
        # maps live in self.records for the whole loop, so an id is never reused for another map meanwhile.
        named: dict[int, str] = {}
        for key in self._changed:
            name = _SEP.join(key)
            record = self.records.get(key)
            if record is not None:
                if record.iteration is None:
                    continue  # its output is only in this process's memory: useless to another one
                reads_id = named.get(id(record.reads))
                if reads_id is None:
                    reads_id = named[id(record.reads)] = digest(record.reads)[:24]
                read_sets[reads_id] = record.reads
                rows[name] = record.to_json(reads_id)
                unrecorded.pop(name, None)
            else:
                rows.pop(name, None)
                if key in self.unrecorded:
                    unrecorded[name] = self.unrecorded[key]
        for name, world in self.worlds.items():
            worlds.setdefault(name, world.to_json())
        used = {value.get("world") for value in rows.values() if isinstance(value, dict)}
        doc["worlds"] = {name: value for name, value in worlds.items() if name in used}
        used = {value.get("reads") for value in rows.values() if isinstance(value, dict)}
        doc["reads"] = {name: value for name, value in read_sets.items() if name in used}
        doc["rows"], doc["unrecorded"] = rows, unrecorded
        self._changed.clear()
        try:
            real_folder(self.path.parent)
            write_atomically(self.path, jsonio.dumps(doc).encode("utf-8", "surrogatepass"), private=True)
        except OSError:
            pass  # without the file, the next process runs these rows again: never wrong, only slower


def _first_line(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else "no detail"
    return line if len(line) <= 120 else line[:119] + "…"
