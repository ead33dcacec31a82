"""The CI gate run (`workbench run`): check, run one iteration (stopping cleanly on a signal), record
it, compare it with the baseline, judge the gate and, when asked, bless it as the new baseline.

Returns a `GateRun` the front-end renders; nothing here prints. Usage and project problems raise
WorkbenchErrors (exit 2), an interrupted run raises `Stopped`."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..baseline import Baseline, BaselineCheck, configured_baseline, load_baseline, write_baseline
from ..config import Config
from ..dialects import all_dialects
from ..dialects.base import DialectGate, GateAsk, Gates, GateVerdict, relative
from ..engine import Engine, RunnerFactory
from ..errors import WorkbenchError
from ..events import EventSink, IterationReport, Trigger, TriggerKind
from ..gate import GateOutcome, GateSettings, joined_gate, judge_generic
from ..history import HistoryError, HistoryStore, read_identity
from ..model import Problem, Project, RowKey
from ..rescoring import ReuseBook, ReusePolicy, RowFilter, outcomes_from_results
from ..runners import RunOutcome, make_runner
from .checks import check_runnable
from .signals import run_until_stopped


@dataclass(slots=True)
class GateRequest:
    """What to run and how to judge it; `gate_request` fills the defaults from the settings."""

    settings: GateSettings
    baseline_path: Path
    sets: tuple[str, ...] = ()
    rows: tuple[str, ...] = ()
    update_baseline: bool = False
    record: bool = True  # keep the run in .workbench/ history
    reuse: bool = False  # re-score rows whose recorded run is proven unchanged (run --reuse)
    baseline_flag: Path | None = None  # --baseline as given: a format's own gate may take it for its baseline
    tags: tuple[str, ...] = ()  # --tag
    kinds: tuple[str, ...] = ()  # --type

    @property
    def partial(self) -> bool:
        """Does the run leave rows out (--set, --row, --tag, --type)? Then the gates judge what it ran, the
        baseline update keeps the entries it did not run, and history records it as partial."""
        return bool(self.sets or self.rows or self.tags or self.kinds)

    def ask(self) -> GateAsk:
        """What the formats' own gates are asked with."""
        return GateAsk(self.baseline_flag, self.update_baseline, self.partial, self.settings.allow_empty)


def gate_request(config: Config, *, sets: tuple[str, ...] = (), rows: tuple[str, ...] = (),
                 min_pass_rate: float | None = None, max_slowdown: float | None = None,
                 max_token_increase: float | None = None, allow_empty: bool = False,
                 baseline_path: str | None = None, update_baseline: bool = False,
                 record: bool = True, reuse: bool = False) -> GateRequest:
    """A request from command-line values; each one left as None falls back to `[baseline]`. --tag and
    --type are the config's overrides (they hold for `watch` too)."""
    settings = GateSettings(
        min_pass_rate=min_pass_rate if min_pass_rate is not None else config.baseline.min_pass_rate,
        max_slowdown=max_slowdown if max_slowdown is not None else config.baseline.max_slowdown,
        max_token_increase=(max_token_increase if max_token_increase is not None
                            else config.baseline.max_token_increase),
        allow_empty=allow_empty,
        flaky=config.gate.flaky,
    )
    path = Path(baseline_path) if baseline_path else configured_baseline(config)
    flag = Path(baseline_path) if baseline_path else None
    return GateRequest(settings, path, sets, rows, update_baseline, record, reuse, flag,
                       config.overrides.tags, config.overrides.kinds)


@dataclass(slots=True)
class BaselineUpdate:
    path: Path
    written: bool
    problem: str | None = None  # why it was not written


@dataclass(slots=True)
class GateRun:
    """Everything `workbench run` shows: the iteration, the baseline comparison, the gate's verdict."""

    request: GateRequest
    report: IterationReport
    gate: GateOutcome
    check: BaselineCheck | None = None  # None without a baseline file (or with --update-baseline)
    history_problem: str | None = None  # why the run was not recorded
    baseline_update: BaselineUpdate | None = None
    verdicts: list[GateVerdict] = field(default_factory=list)  # the formats' own gates (Gates.gate)
    # A narrowed run's problems of files none of its rows are in: shown, not counted (`split_problems`)
    elsewhere: list[Problem] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        """Exit 0? With --update-baseline: the baselines were written; otherwise the gate passed."""
        updates = [update.written for update in (self.baseline_update, *(v.update() for v in self.verdicts))
                   if update is not None]
        return all(updates) if updates else self.gate.passed

    def json_fields(self) -> dict[str, Any]:
        """The gate's part of the `--json` document."""
        fields: dict[str, Any] = {"gate": self.gate.to_json(self.request.settings), "passed": self.gate.passed}
        if self.check is not None:
            fields["baseline"] = {
                "path": str(self.request.baseline_path),
                "newly_failing": [r.to_json() for r in self.check.newly_failing],
                "slowdowns": [r.to_json() for r in self.check.slowdowns],
                "token_increases": [r.to_json() for r in self.check.token_increases],
            }
        if self.baseline_update is not None:
            fields["baseline_written"] = self.baseline_update.written
        for verdict in self.verdicts:
            fields["gate"][verdict.key] = verdict.to_json()
        if self.elsewhere:
            fields["problems_not_counted"] = [p.to_json() for p in self.elsewhere]
        return fields


def run_gate(config: Config, request: GateRequest, on_event: EventSink | None = None, *,
             runner_factory: RunnerFactory = make_runner) -> GateRun:
    """One headless iteration judged as a CI gate. Events stream to `on_event` while it runs."""
    project = check_runnable(config, watching=False)
    gates = dialect_gates(project, config, request.ask())
    if any(gate.takes_baseline for gate in gates):  # --baseline names that one; the rest keep [baseline]'s file
        request = replace(request, baseline_path=configured_baseline(config))
    # A partial run's update keeps the entries it does not run: it needs the file, as a comparison does.
    stored = None if request.update_baseline and not request.partial else load_baseline(request.baseline_path)
    selection = RowFilter(sets=request.sets, rows=request.rows).narrowed(config.overrides.tags,
                                                                      config.overrides.kinds)
    unmatched = selection.unmatched(project)
    if unmatched:
        raise WorkbenchError(f"nothing matches {' and '.join(unmatched)} ({known_names(project, selection)})")
    engine = Engine(config, runner_factory)
    policy = reuse_policy(config, reuse=request.reuse, record=request.record)
    report = run_until_stopped(engine.run_iteration(Trigger(TriggerKind.RUN), selection, on_event, project=project,
                                                    reuse=policy))
    history_problem = record_run(config, report, partial=request.partial) if request.record else None
    policy.book.numbered(report.number, {r.row_key for r in report.results})
    policy.book.save()
    elsewhere: list[Problem] = []
    if request.partial:  # judged on the rows it ran: other files' problems are shown, not counted
        counted, elsewhere = split_problems(project, report)
        report = replace(report, problems=counted)
    if request.update_baseline:
        run = judge_run(request, report, None, gates, history_problem, keep=stored)
    else:
        run = judge_run(request, report, stored, gates, history_problem)
    run.elsewhere = elsewhere
    return run


def split_problems(project: Project, report: IterationReport) -> tuple[list[Problem], list[Problem]]:
    """A narrowed run's problems: (those that count into its verdict, those of files none of its rows are
    in). Only what is surely another file's is left out: a problem pinned to a row that did not run, or of
    an eval file (a set, a row's own file — broken ones too) that holds none of the rows that ran. Settings,
    evaluators and every other file still count: a false green is the worst outcome."""
    ran = {result.row_key for result in report.results}
    ran_files: set[str] = set()
    for eval_set in project.sets:
        for row in eval_set.rows:
            if eval_set.key_of(row) in ran:
                ran_files.update({relative(project.root, eval_set.path),
                                  relative(project.root, eval_set.source_of(row))})
    evaluator_files = {relative(project.root, evaluator.path) for evaluator in project.evaluators.values()}
    evaluator_files |= {dialect.evaluator_file(key.scope, key.ref) for dialect in all_dialects()
                        for key in project.broken_evaluators}  # where each format keeps them
    counted: list[Problem] = []
    elsewhere: list[Problem] = []
    for problem in report.problems:
        if problem.row is not None:
            other = problem.row not in ran
        else:
            other = (problem.file in project.eval_files and problem.file not in ran_files
                     and problem.file not in evaluator_files)
        (elsewhere if other else counted).append(problem)
    return counted, elsewhere


def dialect_gates(project: Project, config: Config, ask: GateAsk) -> list[DialectGate]:
    """The gates of their own of the formats in `project` (raising when one's baseline can't be used)."""
    return [gate for dialect in all_dialects()
            if isinstance(dialect, Gates) and (gate := dialect.gate(project, config, ask)) is not None]


def judge_run(request: GateRequest, report: IterationReport, baseline: Baseline | None, gates: list[DialectGate],
              history_problem: str | None = None, *, keep: Baseline | None = None) -> GateRun:
    """The gate over `report` (`gate.py` decides: the generic gate over the results no format judges
    itself, joined with the formats' own gates); with --update-baseline, the baselines blessed (`keep`:
    the baseline a partial run's update keeps the other entries of)."""
    judged, check, outcome = judge_generic(report, request.settings, baseline, gates)
    blessing = request.update_baseline and (not gates or bool(judged.results))
    update = bless_as_baseline(request.baseline_path, judged, outcome, keep) if blessing else None
    run = GateRun(request, report, outcome, check, history_problem, update)
    if gates:
        run.verdicts = [verdict for gate in gates if (verdict := gate.judge(report)) is not None]
        run.gate = joined_gate(report, outcome, run.verdicts)
    return run


def reuse_policy(config: Config, *, reuse: bool, record: bool = True, persist: bool = True) -> ReusePolicy:
    """What `run` does with recorded runs: with `reuse` (--reuse), re-score the rows whose run is proven
    unchanged; either way, record what ran (when history is kept, and `persist`) for the next
    `run --reuse`, `watch` or TUI session. Without `record` (--no-history: this run is not recorded) what is
    recorded is still read, and nothing is written: a record must point at an iteration history keeps."""
    history_id: str | None = None
    if not persist or not record:
        history_id = read_identity(config)  # look without creating the database
    else:
        try:
            with HistoryStore.open(config) as store:
                history_id = store.identity
        except HistoryError:
            history_id = None

    def outcomes(iteration: int) -> dict[RowKey, list[RunOutcome]]:
        with HistoryStore.open(config) as store:
            return outcomes_from_results(store.results(iteration))

    book = ReuseBook(config.state_dir, history_id, outcomes, persist=persist and record and history_id is not None)
    if not reuse:
        return ReusePolicy(book, False, "`run` without --reuse runs every row")
    if not config.cache.reuse:
        return ReusePolicy(book, False, "re-scoring is off ([cache] reuse = false)")
    return ReusePolicy(book, True)


def known_names(project: Project, selection: RowFilter, shown: int = 10) -> str:
    """What the user could have meant: a close name for a typo ('greting' → 'greeting'), the eval sets,
    the rows of the selected sets and, with --tag, the tags they have."""
    stems = [s.stem for s in project.sets]
    chosen = [s for s in project.sets if selection.wants_set(s)]
    names = [r.label for s in chosen for r in s.rows]
    tags = sorted({tag for s in chosen for r in s.rows for tag in r.tags})
    close = [_close(name, stems) for name in selection.sets if not any(s.answers_to(name) for s in project.sets)]
    close += [_close(name, names) for name in selection.rows
              if not any(r.id == name or r.name == name for s in chosen for r in s.rows)]
    close += [_close(tag, tags) for tag in selection.tags if tag not in tags]
    meant = [name for name in close if name is not None]
    text = "did you mean " + " and ".join(repr(n) for n in meant) + "? " if meant else ""
    text += "eval sets: " + (", ".join(stems) or "none")
    if selection.rows:
        more = f", … ({len(names) - shown} more)" if len(names) > shown else ""
        text += "; rows: " + (", ".join(repr(n) for n in names[:shown]) + more if names else "none")
    if selection.tags:
        text += "; tags: " + (", ".join(tags) if tags else "none (no row of these sets has tags)")
    return text


def _close(name: str, known: list[str]) -> str | None:
    found = difflib.get_close_matches(name, known, n=1, cutoff=0.75)
    return found[0] if found else None


def record_run(config: Config, report: IterationReport, *, partial: bool) -> str | None:
    """Keep the run in history; the reason when it could not be (the run itself still counts)."""
    try:
        with HistoryStore.open(config) as store:
            store.record(report, partial=partial)
    except (HistoryError, ValueError) as exc:  # ValueError: text SQLite can't store (a lone surrogate)
        return f"not recorded in history: {exc}"
    return None


def bless_as_baseline(path: Path, report: IterationReport, gate: GateOutcome,
                      keep: Baseline | None = None) -> BaselineUpdate:
    """Write this run as the baseline, unless it isn't good enough (then the file is left untouched). With
    `keep` (a partial run's), its entries for results that did not run stay as they were."""
    if gate.reasons:
        return BaselineUpdate(path, False, f"baseline NOT updated ({path.name} left as it was): "
                              + "; ".join(gate.reasons))
    try:
        write_baseline(path, Baseline.from_results(report.results, keep))
    except OSError as exc:
        return BaselineUpdate(path, False, f"cannot write the baseline {path}: {exc.strerror or exc}")
    return BaselineUpdate(path, True)
