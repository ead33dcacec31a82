"""Iteration history in SQLite under `.workbench/` (never under `evals/`).

An iteration is written in ONE transaction when it completes, so a crash or a cancelled iteration
leaves no half-recorded iteration behind; earlier iterations are untouched. Numbers are assigned at
commit time (max + 1 inside an IMMEDIATE transaction), so two workbench processes on one project
never collide. Old iterations are pruned to `[history] retention`.
"""

from __future__ import annotations

import shlex
import sqlite3
import threading
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from . import jsonio, snapshots
from .config import Config
from .errors import WorkbenchError
from .events import IterationReport, Trigger, TriggerKind
from .model import (
    Problem,
    Result,
    ResultKey,
    RowKey,
    Sample,
    Severity,
    Verdict,
    results_by_row,
    row_passes,
    row_verdict,
)
from .safe_paths import private_database
from .snapshots import SnapshotStore

T = TypeVar("T")
DB_NAME = "history.sqlite3"
SCHEMA_VERSION = 1
LOG_KEEP_CHARS = 16 * 1024

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS iterations (
    number        INTEGER PRIMARY KEY,
    started_at    TEXT NOT NULL,
    finished_at   TEXT NOT NULL,
    trigger_kind  TEXT NOT NULL,
    trigger_files TEXT NOT NULL,
    partial       INTEGER NOT NULL,
    total         INTEGER NOT NULL,
    passed        INTEGER NOT NULL,
    failed        INTEGER NOT NULL,
    errors        INTEGER NOT NULL,
    rows_total    INTEGER NOT NULL,
    rows_passed   INTEGER NOT NULL,
    duration_s    REAL NOT NULL,
    problems      TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS results (
    iteration      INTEGER NOT NULL REFERENCES iterations(number) ON DELETE CASCADE,
    position       INTEGER NOT NULL,
    scope          TEXT NOT NULL,
    set_file       TEXT NOT NULL,
    row_id         TEXT NOT NULL,
    row_name       TEXT NOT NULL,
    evaluator      TEXT NOT NULL,
    evaluator_type TEXT,
    verdict        TEXT NOT NULL,
    score          REAL NOT NULL,
    detail         TEXT NOT NULL,
    actual         TEXT,
    expected       TEXT,
    duration_ms    REAL NOT NULL,
    trace          TEXT NOT NULL,
    log            TEXT NOT NULL,
    PRIMARY KEY (iteration, position)
);
CREATE INDEX IF NOT EXISTS results_by_key ON results (scope, set_file, row_id, evaluator, iteration);
CREATE TABLE IF NOT EXISTS row_inputs (
    iteration INTEGER NOT NULL REFERENCES iterations(number) ON DELETE CASCADE,
    scope     TEXT NOT NULL,
    set_file  TEXT NOT NULL,
    row_id    TEXT NOT NULL,
    inputs    TEXT NOT NULL,
    PRIMARY KEY (iteration, scope, set_file, row_id)
);
CREATE TABLE IF NOT EXISTS samples (
    iteration   INTEGER NOT NULL REFERENCES iterations(number) ON DELETE CASCADE,
    position    INTEGER NOT NULL,
    sample      INTEGER NOT NULL,
    verdict     TEXT NOT NULL,
    score       REAL NOT NULL,
    detail      TEXT NOT NULL,
    actual      TEXT,
    duration_ms REAL NOT NULL,
    trace       TEXT NOT NULL,
    log         TEXT NOT NULL,
    PRIMARY KEY (iteration, position, sample)
);
CREATE TABLE IF NOT EXISTS row_runs (
    iteration   INTEGER NOT NULL REFERENCES iterations(number) ON DELETE CASCADE,
    scope       TEXT NOT NULL,
    set_file    TEXT NOT NULL,
    row_id      TEXT NOT NULL,
    ran_in      TEXT NOT NULL,
    verdict     TEXT NOT NULL,
    ran         INTEGER NOT NULL,
    flaky_since INTEGER,
    PRIMARY KEY (iteration, scope, set_file, row_id)
);
CREATE INDEX IF NOT EXISTS row_runs_by_run ON row_runs (scope, set_file, row_id, ran_in);
CREATE TABLE IF NOT EXISTS reused_rows (
    iteration INTEGER NOT NULL REFERENCES iterations(number) ON DELETE CASCADE,
    scope     TEXT NOT NULL,
    set_file  TEXT NOT NULL,
    row_id    TEXT NOT NULL,
    PRIMARY KEY (iteration, scope, set_file, row_id)
);
"""


def read_identity(config: Config) -> str | None:
    """The id of the project's history database without creating or changing anything (None when there is
    none yet, or it can't be read): for looking at recorded runs from `workbench check`."""
    path = config.state_dir / DB_NAME
    if not path.is_file():
        return None
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=10)
        try:
            row = db.execute("SELECT value FROM meta WHERE key = 'id'").fetchone()
        finally:
            db.close()
    except (sqlite3.Error, OSError, UnicodeDecodeError):
        return None
    return row[0] if row and isinstance(row[0], str) else None


def last_row_verdicts(config: Config, *, scan: int = 50) -> dict[RowKey, bool]:
    """Whether each row passed the last time it ran, read without creating or changing anything (empty when
    there is no history, or it can't be read): the newest iterations back to the newest full one, a row's
    newest verdict winning. What the engine starts failing rows first by when no session keeps it."""
    path = config.state_dir / DB_NAME
    if not path.is_file():
        return {}
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=10)
        try:
            return _verdicts_back_to_full(db, scan)
        finally:
            db.close()
    except (sqlite3.Error, OSError, UnicodeDecodeError, TypeError, ValueError):
        return {}


def _verdicts_back_to_full(db: sqlite3.Connection, scan: int) -> dict[RowKey, bool]:
    verdicts: dict[RowKey, bool] = {}
    for number, partial in db.execute("SELECT number, partial FROM iterations ORDER BY number DESC LIMIT ?", (scan,)):
        seen: dict[RowKey, bool] = {}
        for scope, set_file, row_id, verdict in db.execute(
                "SELECT scope, set_file, row_id, verdict FROM results WHERE iteration = ?", (number,)):
            key = RowKey(str(scope), str(set_file), str(row_id))
            seen[key] = seen.get(key, True) and verdict == Verdict.PASS.value
        for key, passed in seen.items():
            verdicts.setdefault(key, passed)
        if not partial:
            break
    return verdicts


class HistoryError(WorkbenchError):
    """History can't be read or written (read-only project, full disk, corrupt file)."""


@dataclass(slots=True)
class IterationInfo:
    """One line of `workbench history`."""

    number: int
    started_at: datetime
    finished_at: datetime
    trigger: Trigger
    partial: bool
    total: int
    passed: int
    failed: int
    errors: int
    rows_total: int
    rows_passed: int
    duration_s: float
    problems: list[Problem] = field(default_factory=list)
    change: int | None = None  # passed results vs the previous full iteration

    def to_json(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "started_at": self.started_at.isoformat(),
            "finished_at": self.finished_at.isoformat(),
            "trigger": self.trigger.to_json(),
            "partial": self.partial,
            "total": self.total,
            "passed": self.passed,
            "failed": self.failed,
            "errors": self.errors,
            "rows_total": self.rows_total,
            "rows_passed": self.rows_passed,
            "duration_s": round(self.duration_s, 3),
            "problems": [p.to_json() for p in self.problems],
            "change": self.change,
        }


def row_pass_counts(results: list[Result], rows: dict[RowKey, list[Result]] | None = None) -> tuple[int, int]:
    """(rows passing, rows): a row passes when every one of its results passes (`rows`: the results
    already grouped by `results_by_row`, when the caller has them)."""
    rows = results_by_row(results) if rows is None else rows
    return sum(row_passes(group) for group in rows.values()), len(rows)


def _storable(text: str) -> str:
    """SQLite stores UTF-8; a lone surrogate (valid in JSON strings) becomes its `\\udXXX` escape,
    which inside a JSON document still decodes back to the same string."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


def _json_or_none(value: Any) -> str | None:
    return None if value is None else _storable(jsonio.dumps(value))


def _load_json(text: str | None) -> Any:
    if text is None:
        return None
    try:
        return jsonio.loads(text)
    except jsonio.JsonError:
        return None


def _parse_time(text: str) -> datetime:
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        return datetime.fromtimestamp(0, UTC)


# What a damaged file looks like from here: SQLite's own verdicts, text that is not UTF-8, and stored
# values of the wrong kind (a verdict reading "PAQS", a number stored as text).
_DAMAGE_WORDS = ("malformed", "not a database", "corrupt", "disk image")
_DECODE_ERRORS = (ValueError, TypeError, KeyError, IndexError, AttributeError)  # ValueError: UnicodeDecodeError too


def _trouble(path: Path, doing: str, exc: BaseException) -> HistoryError:
    """The HistoryError for `exc`. A damaged file says how to start afresh: the history is only a record, so
    moving it aside loses nothing else, and workbench carries on without it meanwhile."""
    damaged = isinstance(exc, _DECODE_ERRORS) or (
        isinstance(exc, sqlite3.DatabaseError) and any(word in str(exc).lower() for word in _DAMAGE_WORDS))
    if not damaged:
        return HistoryError(f"cannot {doing} history at {path}: {exc}")
    why = "it holds text that is not UTF-8" if isinstance(exc, UnicodeDecodeError) else str(exc)[:200]
    aside = shlex.quote(str(path.parent / "damaged"))
    return HistoryError(f"the history file {path} is damaged ({why}). Everything else works without it; to start "
                        f"a fresh history, move it aside with its -wal/-shm files: mkdir -p {aside} && "
                        f"mv {shlex.quote(str(path))}* {aside}/")


_INFO_TYPES = (int, str, str, str, str, int, int, int, int, int, int, int, (int, float), str)
_RESULT_TYPES = (int, int, str, str, str, str, str, (str, type(None)), str, (int, float), str, (str, type(None)),
                 (str, type(None)), (int, float), str, str)


def _checked(row: tuple[Any, ...], types: tuple[Any, ...]) -> tuple[Any, ...]:
    """`row` when every column holds the kind of value the schema promises (a damaged file can hold any)."""
    if len(row) != len(types) or not all(isinstance(v, t) and v is not True and v is not False
                                         for v, t in zip(row, types, strict=False)):
        raise TypeError("a stored row holds values of the wrong kind")
    return row


_SQLITE_INT_MAX = 2**63 - 1


def _as_sqlite_int(value: Any) -> Any:
    """An integer argument SQLite can take: `history 99999999999999999999` asks for an iteration that can't
    exist (no iteration is numbered beyond 2**63 - 1), so the largest one stands in for it."""
    if isinstance(value, int) and not isinstance(value, bool) and not -_SQLITE_INT_MAX <= value <= _SQLITE_INT_MAX:
        return _SQLITE_INT_MAX if value > 0 else -_SQLITE_INT_MAX
    return value


def _json_list(text: str | None) -> list[Any]:
    value = _load_json(text)
    return value if isinstance(value, list) else []


class HistoryStore:
    """The project's iteration history. Use `HistoryStore.open(config)`; close when done.

    One connection, usable from any thread: the session records from a worker thread while the TUI reads
    from others, so every use of the connection holds `_lock` (a read never lands inside a half-written
    iteration's transaction, and two transactions never interleave on the connection)."""

    def __init__(self, path: Path, retention: int = 500, files: SnapshotStore | None = None) -> None:
        self.path = path
        self.retention = retention
        self.files = files  # the project's changed files per iteration (snapshots.py), when it is known
        self._lock = threading.RLock()
        try:
            private_database(path)  # 0600, and so its -wal/-shm: it holds every output the targets gave
            self._db = sqlite3.connect(path, timeout=10, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.executescript(_SCHEMA)
            self._db.executescript(snapshots.SCHEMA)
            self._db.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
            # Which database this is: records of runs kept beside it (.workbench/reuse.json) name it, so
            # after it is moved aside nothing recorded for the old one is taken from the new one.
            self._db.execute("INSERT OR IGNORE INTO meta VALUES ('id', ?)", (uuid.uuid4().hex,))
            (self.identity,) = self._db.execute("SELECT value FROM meta WHERE key = 'id'").fetchone()
        except (sqlite3.Error, OSError, UnicodeDecodeError) as exc:
            raise _trouble(path, "open", exc) from None

    @classmethod
    def open(cls, config: Config) -> HistoryStore:
        return cls(config.state_dir / DB_NAME, config.history.retention, SnapshotStore.of(config))

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> HistoryStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        with self._lock, self._transaction() as db:
            yield db

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        try:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
        except (sqlite3.Error, UnicodeDecodeError) as exc:
            raise _trouble(self.path, "write", exc) from None

    # -- writing -----------------------------------------------------------------------------------

    def record(self, report: IterationReport, *, partial: bool = False) -> int:
        """Store a completed iteration; returns its number (also set on `report.number`)."""
        if not report.complete:
            raise ValueError("only completed iterations are recorded")
        summary = report.summary
        by_row = results_by_row(report.results)  # grouped once: the counts, row_inputs and row_runs use it
        rows_passed, rows_total = row_pass_counts(report.results, by_row)
        finished = datetime.now(UTC)
        files = self.files.scan(report.project) if self.files is not None else None  # outside the lock: slow
        with self._write() as db:
            (latest,) = db.execute("SELECT COALESCE(MAX(number), 0) FROM iterations").fetchone()
            if not isinstance(latest, int):
                raise _trouble(self.path, "write", TypeError("the newest iteration number is not a number"))
            number = latest + 1
            db.execute(
                "INSERT INTO iterations VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (number, report.started_at.isoformat(), finished.isoformat(), report.trigger.kind,
                 _json_or_none(list(report.trigger.files)), int(partial), summary.total, summary.passed,
                 summary.failed, summary.errors, rows_total, rows_passed, report.duration_s,
                 _json_or_none([p.to_json() for p in report.problems])),
            )
            db.executemany(
                "INSERT INTO results VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                ((number, position, _storable(r.scope), _storable(r.set_file), _storable(r.row_id),
                  _storable(r.row_name), _storable(r.evaluator), r.evaluator_type, r.verdict.value, r.score,
                  _storable(r.detail), _json_or_none(r.actual), _json_or_none(r.expected), r.duration_ms,
                  _json_or_none(r.trace), _storable(r.log[-LOG_KEEP_CHARS:]))
                 for position, r in enumerate(report.results)),
            )
            # Once per row (its results share them): what `add-row --from-run` builds a row from.
            db.executemany("INSERT OR IGNORE INTO row_inputs VALUES (?,?,?,?,?)",
                           ((number, _storable(key.scope), _storable(key.set_file), _storable(key.row_id),
                             _json_or_none(group[0].inputs)) for key, group in by_row.items()))
            # Rows re-scored from an earlier run instead of running (nothing but evals/ changed).
            db.executemany("INSERT OR IGNORE INTO reused_rows VALUES (?,?,?,?)",
                           ((number, _storable(r.scope), _storable(r.set_file), _storable(r.row_id))
                            for r in report.results if r.reused))
            self._record_samples(db, number, report.results)
            self._record_flaky(db, number, report, by_row)
            if self.files is not None and files is not None:
                self.files.record(db, number, files)
            cutoff = number - self.retention
            if cutoff > 0:
                if self.files is not None:
                    self.files.prune(db, cutoff)
                for table in ("results", "row_inputs", "reused_rows", "samples", "row_runs"):
                    db.execute(f"DELETE FROM {table} WHERE iteration <= ?", (cutoff,))  # table names are ours
                db.execute("DELETE FROM iterations WHERE number <= ?", (cutoff,))
        if self.files is not None:
            with self._lock:
                self.files.committed(self._db)
        report.number = number
        return number

    @staticmethod
    def _record_samples(db: sqlite3.Connection, number: int, results: list[Result]) -> None:
        """Every sample of a repeated row, under its result's position (a row run once has none)."""
        db.executemany(
            "INSERT INTO samples VALUES (?,?,?,?,?,?,?,?,?,?)",
            ((number, position, s.index, s.verdict.value, s.score, _storable(s.detail), _json_or_none(s.actual),
              s.duration_ms, _json_or_none(s.trace), _storable(s.log[-LOG_KEEP_CHARS:]))
             for position, r in enumerate(results) for s in r.samples))

    @staticmethod
    def _record_flaky(db: sqlite3.Connection, number: int, report: IterationReport,
                      by_row: dict[RowKey, list[Result]]) -> None:
        """Mark rows flaky over time: an earlier iteration gave the row another verdict on the very same
        ground (`IterationReport.ran_in`: world, row fingerprint, scoring). A re-scored row adds no run of
        its own, but stays flaky when its ground already is. One query for every row (the rows and their
        grounds in a temporary table, joined on `row_runs_by_run`), not one a row."""
        probes: list[tuple[str, str, str, str, str]] = []
        groups: dict[tuple[str, str, str], list[Result]] = {}
        for key, group in by_row.items():
            ground = report.ran_in.get(key)
            verdict = row_verdict(r.verdict for r in group)
            if ground is None or verdict is None:
                continue
            stored = (_storable(key.scope), _storable(key.set_file), _storable(key.row_id))
            probes.append((*stored, ground, verdict.value))
            groups[stored] = group
        if not probes:
            return
        db.execute("CREATE TEMP TABLE IF NOT EXISTS flaky_probe "
                   "(scope TEXT, set_file TEXT, row_id TEXT, ran_in TEXT, verdict TEXT)")
        db.execute("DELETE FROM flaky_probe")
        db.executemany("INSERT INTO flaky_probe VALUES (?,?,?,?,?)", probes)
        since_of: dict[tuple[str, str, str], int] = {}
        for scope, set_file, row_id, since in db.execute(
                "SELECT p.scope, p.set_file, p.row_id, MAX(r.iteration) FROM flaky_probe p JOIN row_runs r "
                "ON r.scope = p.scope AND r.set_file = p.set_file AND r.row_id = p.row_id AND r.ran_in = p.ran_in "
                "WHERE r.ran = 1 AND r.verdict != p.verdict GROUP BY p.scope, p.set_file, p.row_id"):
            if isinstance(since, int):
                since_of[(scope, set_file, row_id)] = since
        db.execute("DELETE FROM flaky_probe")
        rows = []
        for scope, set_file, row_id, ground, said in probes:
            group = groups[(scope, set_file, row_id)]
            since = since_of.get((scope, set_file, row_id))
            rows.append((number, scope, set_file, row_id, ground, said, int(not any(r.reused for r in group)), since))
            for result in group:
                result.flaky_since = since
        db.executemany("INSERT OR REPLACE INTO row_runs VALUES (?,?,?,?,?,?,?,?)", rows)

    # -- reading -----------------------------------------------------------------------------------

    def _query(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        args = tuple(_as_sqlite_int(arg) for arg in args)
        try:
            with self._lock:
                return self._db.execute(sql, args).fetchall()
        except (sqlite3.Error, UnicodeDecodeError) as exc:
            raise _trouble(self.path, "read", exc) from None

    def read_with(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """`work(connection)` under the lock, its SQLite trouble a HistoryError (snapshots.py's queries)."""
        try:
            with self._lock:
                return work(self._db)
        except (sqlite3.Error, UnicodeDecodeError) as exc:
            raise _trouble(self.path, "read", exc) from None

    def latest_number(self) -> int | None:
        (number,) = self._query("SELECT MAX(number) FROM iterations")[0]
        if number is not None and not isinstance(number, int):
            raise _trouble(self.path, "read", TypeError("an iteration number is not a number"))
        return number

    def last_verdicts(self) -> dict[RowKey, bool]:
        """Whether each row passed the last time it ran (see `last_row_verdicts`)."""
        try:
            with self._lock:
                return _verdicts_back_to_full(self._db, 50)
        except (sqlite3.Error, UnicodeDecodeError) as exc:
            raise _trouble(self.path, "read", exc) from None

    def iterations(self, limit: int | None = None) -> list[IterationInfo]:
        """Iterations oldest first (the newest `limit` when given), each with its change in passes."""
        sql = "SELECT * FROM iterations ORDER BY number DESC"
        rows = self._query(sql + (" LIMIT ?" if limit else ""), (limit,) if limit else ())
        infos = [self._info(row) for row in reversed(rows)]
        previous_full = self._previous_full_passed(infos[0].number) if infos else None
        for info in infos:
            if not info.partial:
                info.change = None if previous_full is None else info.passed - previous_full
                previous_full = info.passed
        return infos

    def _previous_full_passed(self, before: int) -> int | None:
        rows = self._query("SELECT passed FROM iterations WHERE number < ? AND partial = 0 "
                           "ORDER BY number DESC LIMIT 1", (before,))
        return self._column_rows(rows, (int,))[0][0] if rows else None

    def iteration(self, number: int) -> IterationInfo | None:
        rows = self._query("SELECT * FROM iterations WHERE number = ?", (number,))
        if not rows:
            return None
        info = self._info(rows[0])
        if not info.partial:
            previous = self._previous_full_passed(number)
            info.change = None if previous is None else info.passed - previous
        return info

    def _column_rows(self, rows: list[tuple[Any, ...]], types: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        try:
            return [_checked(row, types) for row in rows]
        except TypeError as exc:
            raise _trouble(self.path, "read", exc) from None

    def _info(self, row: tuple[Any, ...]) -> IterationInfo:
        """One iteration's line; HistoryError when what is stored can't be one."""
        try:
            (number, started, finished, kind, files, partial, total, passed, failed, errors, rows_total,
             rows_passed, duration, problems) = _checked(row, _INFO_TYPES)
            problem_list = [Problem(str(p.get("file", "?")), str(p.get("message", "")),
                                    Severity(str(p.get("severity", Severity.ERROR))))
                            for p in _json_list(problems) if isinstance(p, dict)]
            return IterationInfo(number, _parse_time(started), _parse_time(finished),
                                 Trigger(TriggerKind(kind), tuple(str(f) for f in _json_list(files))), bool(partial),
                                 total,
                                 passed, failed, errors, rows_total, rows_passed, duration, problem_list)
        except _DECODE_ERRORS as exc:
            raise _trouble(self.path, "read", exc) from None

    def results(self, number: int) -> list[Result]:
        rows = self._query("SELECT * FROM results WHERE iteration = ? ORDER BY position", (number,))
        results = [self._result(row) for row in rows]
        inputs = {RowKey(scope, set_file, row_id): _load_json(text) for scope, set_file, row_id, text in self._query(
            "SELECT scope, set_file, row_id, inputs FROM row_inputs WHERE iteration = ?", (number,))}
        reused = {RowKey(*key) for key in self._query(
            "SELECT scope, set_file, row_id FROM reused_rows WHERE iteration = ?", (number,))}
        flaky = {RowKey(scope, set_file, row_id): since for scope, set_file, row_id, since in self._query(
            "SELECT scope, set_file, row_id, flaky_since FROM row_runs WHERE iteration = ? AND flaky_since IS NOT NULL",
            (number,))}
        samples = self._samples(number)
        for position, result in enumerate(results):
            recorded = inputs.get(result.row_key)
            result.inputs = recorded if isinstance(recorded, dict) else {}
            result.reused = result.row_key in reused
            result.samples = samples.get(position, [])
            since = flaky.get(result.row_key)
            result.flaky_since = since if isinstance(since, int) else None
        return results

    def _samples(self, number: int) -> dict[int, list[Sample]]:
        """The samples of a repeated iteration's results, by result position (none in older histories)."""
        rows = self._query("SELECT position, sample, verdict, score, detail, actual, duration_ms, trace, log "
                           "FROM samples WHERE iteration = ? ORDER BY position, sample", (number,))
        found: dict[int, list[Sample]] = {}
        try:
            for position, index, verdict, score, detail, actual, duration, trace, log in self._column_rows(
                    rows, (int, int, str, (int, float), str, (str, type(None)), (int, float), str, str)):
                found.setdefault(position, []).append(Sample(
                    index, Verdict(verdict), score, detail, _load_json(actual), duration,
                    log, [e for e in _json_list(trace) if isinstance(e, dict)]))
        except _DECODE_ERRORS as exc:
            raise _trouble(self.path, "read", exc) from None
        return found

    def flaky_rows(self, limit: int = 50) -> list[FlakyRow]:
        """Rows found flaky in the newest `limit` iterations — over time (another verdict on the same ground)
        or by their samples (0 < k < N) — newest first, each row once."""
        rows = self._query("SELECT number FROM iterations ORDER BY number DESC LIMIT ?", (limit,))
        found: dict[RowKey, FlakyRow] = {}
        for (number,) in self._column_rows(rows, (int,)):
            for key, group in results_by_row(self.results(number)).items():
                if key in found or not any(r.flaky for r in group):
                    continue
                first = group[0]
                sampled = next((r for r in group if r.sample_flaky), None)
                found[key] = FlakyRow(key, first.label, number, row_verdict(r.verdict for r in group) or Verdict.ERROR,
                                      first.flaky_since, sampled.samples_text if sampled is not None else "")
        return list(found.values())

    # -- reading -----------------------------------------------------------------------------------


    def find_result(self, key: ResultKey, iteration: int | None = None) -> tuple[int, Result] | None:
        """The result for `key` in `iteration`, or in the newest iteration that has one."""
        scope, set_file, row_id, evaluator = key
        sql = "SELECT * FROM results WHERE scope = ? AND set_file = ? AND row_id = ? AND evaluator = ?"
        args: tuple[Any, ...] = (scope, set_file, row_id, evaluator)
        if iteration is not None:
            sql += " AND iteration = ?"
            args += (iteration,)
        rows = self._query(sql + " ORDER BY iteration DESC LIMIT 1", args)
        return (rows[0][0], self._result(rows[0])) if rows else None

    def pass_counts(self, limit: int = 200) -> list[tuple[int, int, int]]:
        """(number, passed, total) of recent full iterations, oldest first: for sparklines."""
        rows = self._query("SELECT number, passed, total FROM iterations WHERE partial = 0 "
                           "ORDER BY number DESC LIMIT ?", (limit,))
        return list(reversed(self._column_rows(rows, (int, int, int))))

    def _result(self, row: tuple[Any, ...]) -> Result:
        """One stored result; HistoryError when what is stored can't be one (a verdict reading "PAQS")."""
        try:
            (_, _, scope, set_file, row_id, row_name, evaluator, evaluator_type, verdict, score, detail, actual,
             expected, duration_ms, trace, log) = _checked(row, _RESULT_TYPES)
            return Result(scope=scope, set_file=set_file, row_id=row_id, row_name=row_name, evaluator=evaluator,
                          verdict=Verdict(verdict), score=score, detail=detail, actual=_load_json(actual),
                          expected=_load_json(expected), duration_ms=duration_ms, evaluator_type=evaluator_type,
                          trace=[e for e in _json_list(trace) if isinstance(e, dict)], log=log)
        except _DECODE_ERRORS as exc:
            raise _trouble(self.path, "read", exc) from None


@dataclass(slots=True)
class FlakyRow:
    """One line of `workbench history --flaky`: a row, the newest iteration it was flaky in, and how."""

    key: RowKey
    label: str
    iteration: int
    verdict: Verdict
    since: int | None  # flaky over time: the earlier iteration with the other verdict on the same ground
    samples: str  # flaky by its samples: "3/5"

    def to_json(self) -> dict[str, Any]:
        return {"scope": self.key.scope, "set": self.key.set_file, "row_id": self.key.row_id, "row_name": self.label,
                "iteration": self.iteration, "verdict": self.verdict.value, "flaky_since": self.since,
                "samples": self.samples or None}


@dataclass(slots=True)
class Flips:
    """How results changed between two iterations."""

    newly_passing: list[Result] = field(default_factory=list)
    newly_failing: list[Result] = field(default_factory=list)
    still_failing: list[Result] = field(default_factory=list)
    added: list[Result] = field(default_factory=list)
    removed: list[Result] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        def keys(items: list[Result]) -> list[dict[str, Any]]:
            return [{"set": r.set_file, "scope": r.scope, "row_id": r.row_id, "row_name": r.row_name,
                     "evaluator": r.evaluator, "verdict": r.verdict.value} for r in items]

        return {"newly_passing": keys(self.newly_passing), "newly_failing": keys(self.newly_failing),
                "still_failing": keys(self.still_failing), "added": keys(self.added),
                "removed": keys(self.removed)}


def compare_results(previous: list[Result], current: list[Result], *, only_current: bool = False) -> Flips:
    """Flips from `previous` to `current`. With `only_current`, results that did not run now (a partial
    re-run) are not reported as removed."""
    before = {r.key: r for r in previous}
    flips = Flips()
    for result in current:
        old = before.get(result.key)
        if old is None:
            flips.added.append(result)
        elif result.passed and not old.passed:
            flips.newly_passing.append(result)
        elif not result.passed and old.passed:
            flips.newly_failing.append(result)
        elif not result.passed:
            flips.still_failing.append(result)
    if not only_current:
        now = {r.key for r in current}
        flips.removed = [r for r in previous if r.key not in now]
    return flips
