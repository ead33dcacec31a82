"""The scenario part of the CI gate run (seed 000): in a project with scenarios, `workbench run` judges
them with their own gate — pass-rate minimum (default 0.95), newly failing and token regressions against
`.appilots/eval-baseline.json` — beside the results of every other format, which keep `[baseline]`'s
gate and file. `ScenariosDialect.gate` makes it; the generic gate (`actions/gate.py`) asks it through the
`DialectGate` interface.

`--baseline` names the scenario baseline when the project has scenarios; `--min-pass-rate` sets both
gates and `--max-token-regression` this one (they are settings of `[scenarios]`, laid over it when the
project loads). Nothing here prints.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ...events import IterationReport
from ...model import Project
from ..base import GateAsk, GateUpdate
from .gate import (
    ScenarioBaseline,
    ScenarioBaselineUpdate,
    ScenarioGate,
    evaluate_scenario_gate,
    load_scenario_baseline,
    scenario_runs,
    update_scenario_baseline,
)
from .settings import DIALECT, SECTION, ScenarioSettings


@dataclass(slots=True)
class ScenarioGateRun:
    """What the scenario gate decided, and whether `--update-baseline` wrote its file (a `GateVerdict`)."""

    gate: ScenarioGate
    root: Path
    written: ScenarioBaselineUpdate | None = None

    @property
    def key(self) -> str:
        return SECTION

    @property
    def reasons(self) -> list[str]:
        return self.gate.reasons

    def lines(self) -> list[str]:
        return self.gate.lines(self.root)

    def to_json(self) -> dict[str, Any]:
        doc = self.gate.to_json(self.root)
        if self.written is not None:
            doc["baseline_written"] = self.written.written
        return doc

    def update(self) -> GateUpdate | None:
        written = self.written
        if written is None:
            return None
        where = self.gate.settings.to_json(self.root)["baseline"]
        if not written.written:
            kept = f"the baseline found at {where} is left as it was" if written.found else \
                f"there is none at {where}; none written"
            return GateUpdate(False, f"scenario baseline NOT updated ({kept}): {written.reason}")
        if written.kept:
            what = f"updated the baseline found there, {_count(written.kept, 'other scenario')} kept"
        else:
            what = "replaced the baseline found there" if written.found else "a new file"
        return GateUpdate(True, f"scenario baseline written: {where} ({what}; {_count(self.gate.total, 'scenario')}, "
                                f"pass rate {self.gate.pass_rate:.1%})")


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


@dataclass(slots=True)
class ScenarioPart:
    """A run's scenarios, prepared before it starts (so an unusable baseline stops it early): a `DialectGate`."""

    project: Project
    settings: ScenarioSettings
    baseline: ScenarioBaseline | None
    ask: GateAsk
    takes_baseline: bool = True  # --baseline names the scenario baseline
    found: bool = False  # a baseline file is there (read, or — for a full --update-baseline — to be replaced)

    def others(self, report: IterationReport) -> IterationReport:
        """The report without the scenario results: what the other formats' gate judges."""
        sets = {(s.scope, s.file_name) for s in self.project.sets if s.dialect == DIALECT}
        return replace(report, results=[r for r in report.results if (r.scope, r.set_file) not in sets])

    def judge(self, report: IterationReport) -> ScenarioGateRun | None:
        """The scenario gate over `report`. With --update-baseline, the baseline is written instead of
        compared with (a partial run keeps the entries of the scenarios it did not run). None for a
        partial run that selected no scenario: the gate counts the scenarios a run ran (seed 000), and
        `--set grading` chose to run none, which is not "no scenario ran"."""
        update = self.ask.update
        runs = scenario_runs(report.results, self.project)
        if self.ask.partial and not runs:
            return None
        gate = evaluate_scenario_gate(runs, self.settings, None if update else self.baseline,
                                      allow_empty=self.ask.allow_empty, updating=update, found=self.found)
        written = update_scenario_baseline(runs, self.settings, self.baseline, found=self.found) if update else None
        return ScenarioGateRun(gate, self.project.root, written)


def prepare_scenarios(project: Project, ask: GateAsk) -> ScenarioPart | None:
    """The scenario part of this run, or None when the project has no scenarios. Raises BaselineError
    when the scenario baseline can't be read (unless a full run is about to replace it), ConfigError
    when a settings file puts it outside the project."""
    settings = project.extras.get(DIALECT)
    if not isinstance(settings, ScenarioSettings) or not any(s.dialect == DIALECT for s in project.sets):
        return None
    settings = settings.with_flags(baseline=ask.baseline)
    settings.check_baseline(project.root)
    if ask.update and not ask.partial:  # replaced whole: not read, so a broken one can be replaced
        baseline, found = None, os.path.lexists(settings.baseline)
    else:
        baseline = load_scenario_baseline(settings.baseline)
        found = baseline is not None
    return ScenarioPart(project, settings, baseline, ask, found=found)


__all__ = ["ScenarioGateRun", "ScenarioPart", "prepare_scenarios"]
