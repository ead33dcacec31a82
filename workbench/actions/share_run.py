"""A run to share (the Markdown digest): from the run that just finished (`run --md`) or from history
(`workbench report --md`, default the last iteration), with the iteration before it for the flips and, for a
recorded one, the gate judged again by today's settings and baseline."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from ..baseline import load_baseline
from ..config import Config
from ..errors import WorkbenchError
from ..events import IterationReport
from ..history import HistoryError, HistoryStore
from ..model import Problem, Project, Result
from ..project import load_project
from .gate import GateRun, dialect_gates, gate_request, judge_run

_LOOK_BACK = 50


@dataclass(slots=True)
class SharedRun:
    """What a shared report tells (the Markdown digest): one iteration's results and problems, its gate, the
    iteration before it."""

    results: Sequence[Result]
    project: Project | None
    problems: Sequence[Problem] = ()
    iteration: int | None = None
    gate_passed: bool | None = None  # None: no gate was judged
    gate_reasons: Sequence[str] = ()
    gate_lines: Sequence[str] = ()  # the formats' own gates, in their words
    gate_warnings: Sequence[str] = ()
    previous: Sequence[Result] | None = None
    previous_number: int | None = None
    rescored: int = 0
    duration_s: float = 0.0
    complete: bool = True
    title: str = "workbench"


def previous_iteration(config: Config, before: int | None) -> tuple[int, list[Result]] | None:
    """The newest recorded iteration before `before` (before any, when None) and its results."""
    try:
        with HistoryStore.open(config) as store:
            newest = store.latest_number()
            if newest is None:
                return None
            start = newest if before is None else min(before - 1, newest)
            for number in range(start, max(0, start - _LOOK_BACK), -1):  # numbers may have gaps (retention)
                if store.iteration(number) is not None:
                    return number, store.results(number)
            return None
    except HistoryError:
        return None


def from_gate_run(config: Config, run: GateRun) -> SharedRun:
    """The digest's view of the run that just finished."""
    report = run.report
    before = previous_iteration(config, report.number)
    return SharedRun(
        results=report.results, project=report.project, problems=report.problems, iteration=report.number,
        gate_passed=run.gate.passed, gate_reasons=run.gate.reasons,
        gate_lines=[line for verdict in run.verdicts for line in verdict.lines()], gate_warnings=run.gate.warnings,
        previous=before[1] if before else None, previous_number=before[0] if before else None,
        rescored=report.reused_rows, duration_s=report.duration_s, complete=report.complete)


def from_history(config: Config, iteration: int | None) -> SharedRun:
    """The digest's view of a recorded iteration (default the last); WorkbenchError when there is none."""
    with HistoryStore.open(config) as store:
        number = iteration if iteration is not None else store.latest_number()
        info = store.iteration(number) if number is not None else None
        if number is None or info is None:
            raise WorkbenchError("no iteration recorded yet: run `workbench run` first" if iteration is None
                                 else f"iteration {iteration} is not in history ({config.state_dir / 'history'})")
        results = store.results(number)
    try:
        project = load_project(config.root, config)
    except WorkbenchError:
        project = None
    report = IterationReport(info.trigger, started_at=info.started_at, results=results, problems=info.problems,
                             duration_s=info.duration_s, complete=True, project=project, number=number)
    run = SharedRun(results=results, project=project, problems=info.problems, iteration=number,
                      duration_s=info.duration_s)
    if project is not None and not info.partial:
        try:
            request = gate_request(config)
            gates = dialect_gates(project, config, request.ask())
            judged = judge_run(request, report, load_baseline(request.baseline_path), gates)
        except WorkbenchError:
            judged = None
        if judged is not None:
            run = replace(run, gate_passed=judged.gate.passed, gate_reasons=judged.gate.reasons,
                          gate_lines=[line for verdict in judged.verdicts for line in verdict.lines()],
                          gate_warnings=judged.gate.warnings)
    before = previous_iteration(config, number)
    if before is not None:
        run = replace(run, previous=before[1], previous_number=before[0])
    return run
