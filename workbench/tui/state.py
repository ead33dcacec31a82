"""What the TUI shows, kept apart from widgets: the project, the latest verdicts, row status and logs.

Engine events are applied here as they arrive; the app drains what changed in batches and repaints
only that, so a 10,000-row iteration costs one repaint per batch, not one per event.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from ..dialects import dialect_for
from ..events import Event, IterationFinished, IterationStarted, ResultReady, RowLog, RowStarted
from ..history import HistoryError, HistoryStore
from ..model import EvalSet, Project, Result, ResultKey, Row, RowKey, Verdict, error_problems, row_verdict
from ..progress import IterationSummary
from ..report.metrics import SetMetricLine, set_metrics
from ..rescoring import RowFilter, planned_keys
from ..textsafe import one_line
from .row_logs import RowLogs, run_header

QUEUED, RUNNING, DONE, IDLE = "queued", "running", "done", "idle"

SetKey = tuple[str, str]  # (scope, set file)


def next_iteration_number(history: HistoryStore | None) -> int:
    """The number the next iteration will be recorded under (1 without history)."""
    try:
        latest = history.latest_number() if history is not None else None
    except HistoryError:
        latest = None
    return (latest or 0) + 1


def structure_of(project: Project | None) -> tuple[object, ...]:
    """What decides the shape of the sets tree: sets, their refs, and their rows' ids and names."""
    if project is None:
        return ()
    sets = tuple((s.scope, s.file_name, tuple(s.evaluator_refs), tuple((r.id, r.name) for r in s.rows))
                 for s in project.sets)
    return (*sets, tuple((p.file, p.message) for p in project.problems))


@dataclass(slots=True)
class Changes:
    """What changed since the last drain."""

    rows: set[RowKey] = field(default_factory=set)
    sets: set[SetKey] = field(default_factory=set)  # set lines to redraw (their metric changed)
    logs: set[RowKey] = field(default_factory=set)  # rows whose log has new lines
    structure: bool = False


class RunState:
    def __init__(self, selection: RowFilter | None = None) -> None:
        self.project: Project | None = None
        # The rows this session runs (--tag / --type): the counts leave the others out. None: every row.
        self.selection = selection if selection is not None and selection.partial else None
        self._counted: frozenset[RowKey] | None = None
        self._index: dict[RowKey, tuple[EvalSet, Row]] = {}
        self._verdicts: dict[RowKey, Verdict | None] = {}  # cache of row_verdict, dropped on change
        self._set_passed: dict[tuple[str, str], int] = {}  # cache of set_counts' passing rows
        self._totals: tuple[int, int, int, int] | None = None  # cache of totals(), dropped on change
        self.results: dict[ResultKey, Result] = {}
        self.status: dict[RowKey, str] = {}
        self.logs = RowLogs()
        self.next_number = 1  # the number the next iteration will be recorded under (for log headers)
        self.iteration: int | None = None  # the number of the iteration running (or last run)
        self.clock: Callable[[], datetime] = lambda: datetime.now(UTC)  # when a run started (tests pin it)
        self.set_metrics: dict[SetKey, str] = {}  # a set's classification metric, as its line shows it
        self.running = False
        self.done_rows = 0
        self.total_rows = 0
        self.last_summary: IterationSummary | None = None  # the last iteration recorded (the status line's counts)
        self.iterations_done = 0  # iterations finished in this session
        self._changes = Changes()

    # -- queries -------------------------------------------------------------------------------------

    def row_results(self, eval_set: EvalSet, row: Row) -> list[Result | None]:
        key = eval_set.key_of(row)
        return [self.results.get(ResultKey(*key, ref)) for ref in dialect_for(eval_set.dialect).refs_of(eval_set, row)]

    def row_verdict(self, eval_set: EvalSet, row: Row) -> Verdict | None:
        """ERROR if any result errored, else FAIL if any failed, PASS if all passed; None if unknown."""
        key = eval_set.key_of(row)
        if key not in self._verdicts:
            self._verdicts[key] = self._compute_verdict(eval_set, row)
        return self._verdicts[key]

    def _compute_verdict(self, eval_set: EvalSet, row: Row) -> Verdict | None:
        results = self.row_results(eval_set, row)
        if any(r is None for r in results):
            return None
        return row_verdict(r.verdict for r in results if r is not None)

    def is_failing(self, eval_set: EvalSet, row: Row) -> bool:
        verdict = self.row_verdict(eval_set, row)
        return verdict is not None and verdict is not Verdict.PASS

    def counts(self, key: RowKey) -> bool:
        """The row is one this session runs (every row, unless launched with --tag / --type)."""
        return self._counted is None or key in self._counted

    def counted_rows(self, eval_set: EvalSet) -> list[Row]:
        return [row for row in eval_set.rows if self.counts(eval_set.key_of(row))]

    def totals(self) -> tuple[int, int, int, int]:
        """(rows passing, rows, results passing, results) over the rows this session runs, as the screen
        shows them now."""
        if self._totals is None:
            project = self.project
            sets = project.sets if project is not None else []
            rows = [self.set_counts(eval_set) for eval_set in sets]
            # only the project's rows are kept; a remembered result of a row this session leaves out is not counted
            results_passed = sum(r.passed for r in self.results.values() if self.counts(r.row_key))
            self._totals = (sum(p for p, _ in rows), sum(t for _, t in rows), results_passed,
                            sum(len(dialect_for(s.dialect).refs_of(s, row))
                                for s in sets for row in self.counted_rows(s)))
        return self._totals

    def set_counts(self, eval_set: EvalSet) -> tuple[int, int]:
        """(rows passing, rows) of the set's rows this session runs; counted once, then kept up to date as
        results arrive."""
        key = (eval_set.scope, eval_set.file_name)
        rows = self.counted_rows(eval_set)
        if key not in self._set_passed:
            self._set_passed[key] = sum(self.row_verdict(eval_set, row) is Verdict.PASS for row in rows)
        return self._set_passed[key], len(rows)

    def file_errors(self) -> int:
        """Files the project could not read (an eval set that doesn't parse, ...): the status line marks them."""
        return len(error_problems(self.project.problems)) if self.project is not None else 0

    def find_row(self, key: RowKey) -> tuple[EvalSet, Row] | None:
        return self._index.get(key)

    def rows(self) -> list[tuple[EvalSet, Row]]:
        """Every row of the project, in file order."""
        return list(self._index.values())

    def failing_keys(self) -> frozenset[RowKey]:
        """Rows whose latest verdict is FAIL or ERROR."""
        return frozenset(key for key, (eval_set, row) in self._index.items() if self.is_failing(eval_set, row))

    def any_failing(self) -> bool:
        return any(self.is_failing(eval_set, row) for eval_set, row in self._index.values())

    def set_row_keys(self, scope: str, set_file: str) -> frozenset[RowKey]:
        """The rows of one eval set."""
        return frozenset(key for key in self._index if key.scope == scope and key.set_file == set_file)

    def _set_project(self, project: Project) -> None:
        self.project = project
        self._index = {s.key_of(r): (s, r) for s in project.sets for r in s.rows}
        self._counted = planned_keys(project, self.selection) if self.selection is not None else None
        self._forget_counts()

    def log_of(self, key: RowKey) -> list[str]:
        return self.logs.lines(key)

    def label_of(self, key: RowKey) -> str:
        """The row's display name for notices and the log title (its id if it is gone)."""
        found = self.find_row(key)
        return one_line(found[1].label, 60) if found else key.row_id

    def iteration_recorded(self, summary: IterationSummary) -> None:
        """An iteration ended (recorded as `summary.number`, None when history is off): count it, keep its
        summary for the status line; the next one follows it."""
        self.last_summary = summary
        self.iterations_done += 1
        self.next_number = (summary.number if summary.number is not None else self.next_number) + 1

    def mark_flaky(self, recorded: list[Result]) -> None:
        """History found rows flaky over time as it recorded the iteration: their rows are drawn again."""
        for result in recorded:
            shown = self.results.get(result.key)
            # the shown result may be the report's own object, which history marked after its row was drawn: a
            # row marked flaky is drawn again either way (comparing the two would miss it)
            if shown is not None and (shown.flaky_since != result.flaky_since or result.flaky_since is not None):
                shown.flaky_since = result.flaky_since
                self._changes.rows.add(result.row_key)

    # -- updates -------------------------------------------------------------------------------------

    def seed(self, project: Project | None, results: list[Result]) -> None:
        """Start from what history remembers, before the first iteration finishes."""
        if project is not None:
            self._set_project(project)
        for result in results:
            if project is not None and result.row_key not in self._index:
                continue  # a row the files no longer have
            self.results[result.key] = result
            if not self.logs.added(result.row_key) and result.log:
                self.logs.start_run(result.row_key, "── the last recorded run ──")
                self.logs.add_recorded(result.row_key, result.log)
        self._forget_counts()
        self._measure_sets()
        self._changes.structure = True

    def apply(self, event: Event) -> None:
        changes = self._changes
        if isinstance(event, IterationStarted):
            if structure_of(event.project) != structure_of(self.project):
                changes.structure = True
            self._set_project(event.project)
            self.running = True
            self.iteration = self.next_number
            self.done_rows, self.total_rows = 0, event.total_rows
            self._forget_missing(event.project)
            self.mark_queued(list(event.rows))
        elif isinstance(event, RowStarted):
            self.status[event.key] = RUNNING
            self.logs.start_run(event.key, run_header(self.iteration, self.clock()))
            changes.rows.add(event.key)
            changes.logs.add(event.key)
        elif isinstance(event, RowLog):
            self.logs.add(event.key, event.line)
            changes.logs.add(event.key)
        elif isinstance(event, ResultReady):
            result = event.result
            key = result.row_key
            found = self._index.get(key)
            was_passing = found is not None and self.row_verdict(*found) is Verdict.PASS
            self.results[result.key] = result
            self._verdicts.pop(key, None)
            self._totals = None
            if found is not None and (key.scope, key.set_file) in self._set_passed and self.counts(key):
                self._set_passed[key.scope, key.set_file] += (self.row_verdict(*found) is Verdict.PASS) - was_passing
            self.status[key] = DONE
            self.logs.add_recorded(key, result.log)
            changes.logs.add(key)
            self.done_rows = event.done_rows
            changes.rows.add(key)
        elif isinstance(event, IterationFinished):
            self.running = False
            for key, status in self.status.items():
                if status != DONE:
                    self.status[key] = IDLE
                    changes.rows.add(key)
            self._measure_sets()

    def mark_queued(self, keys: list[RowKey]) -> None:
        """Rows about to run keep showing their last verdict: relabelling 10,000 rows at the start of
        every iteration would freeze the screen for half a second, so this changes no label."""
        for key in keys:
            self.status[key] = QUEUED

    def mark_cancelled(self) -> None:
        """The running iteration was cancelled and none replaced it (a quit, a project that stopped
        loading): rows still running or queued go back to idle and keep their last verdict."""
        self.running = False
        for key, status in self.status.items():
            if status in (RUNNING, QUEUED):
                self.status[key] = IDLE
                self._changes.rows.add(key)

    def _measure_sets(self) -> None:
        """The set-level metrics of classification evaluators that ask for one, over the latest results.
        Measured when an iteration ends (not per row: it reads every result of the set)."""
        found: dict[SetKey, list[SetMetricLine]] = {}
        for line in set_metrics(self.project, self.results.values()) if self.project is not None else []:
            found.setdefault((line.scope, line.set_file), []).append(line)
        shown = {key: " · ".join(line.metric.describe() if len(lines) == 1 else
                                 f"{line.evaluator} {line.metric.describe()}" for line in lines)
                 for key, lines in found.items()}
        self._changes.sets.update(key for key in shown.keys() | self.set_metrics.keys()
                                  if shown.get(key) != self.set_metrics.get(key))
        self.set_metrics = shown

    def _forget_missing(self, project: Project) -> None:
        present = {(s.scope, s.file_name, r.id, ref) for s in project.sets for r in s.rows for ref in s.evaluator_refs}
        for key in [k for k in self.results if k not in present]:
            del self.results[key]
        self._forget_counts()

    def _forget_counts(self) -> None:
        self._verdicts.clear()
        self._set_passed.clear()
        self._totals = None

    def drain(self) -> Changes:
        changes, self._changes = self._changes, Changes()
        return changes

    @property
    def has_changes(self) -> bool:
        c = self._changes
        return bool(c.rows or c.sets or c.logs or c.structure)
