"""The scenario part of the CI gate run (seed 000): in a project with scenarios, `workbench run` judges
them with their own gate — pass-rate minimum (default 0.95), newly failing and token regressions against
`.appilots/eval-baseline.json` — beside the results of every other format, which keep `[baseline]`'s
gate and file.

The command line's `--baseline` and `--max-token-regression` set the scenario gate when the project has
scenarios; `--min-pass-rate` sets both gates. Nothing here prints.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..dialects.scenarios import DIALECT, ScenarioSettings
from ..events import IterationReport
from ..gate import GateOutcome, pass_rate
from ..model import Project
from ..scenario_gate import (
    ScenarioBaseline,
    ScenarioBaselineUpdate,
    ScenarioGate,
    evaluate_scenario_gate,
    load_scenario_baseline,
    scenario_runs,
    update_scenario_baseline,
)


@dataclass(frozen=True, slots=True)
class ScenarioFlags:
    """`--baseline`, `--min-pass-rate`, `--max-token-regression` as given (None: not given)."""

    baseline: Path | None = None
    min_pass_rate: float | None = None
    max_token_regression: float | None = None


@dataclass(slots=True)
class ScenarioGateRun:
    """What the scenario gate decided, and whether `--update-baseline` wrote its file."""

    gate: ScenarioGate
    root: Path
    update: ScenarioBaselineUpdate | None = None

    def lines(self) -> list[str]:
        return self.gate.lines(self.root)

    def to_json(self) -> dict[str, Any]:
        doc = self.gate.to_json(self.root)
        if self.update is not None:
            doc["baseline_written"] = self.update.written
        return doc


@dataclass(slots=True)
class ScenarioPart:
    """A run's scenarios, prepared before it starts (so an unusable baseline stops it early)."""

    project: Project
    settings: ScenarioSettings
    baseline: ScenarioBaseline | None

    def others(self, report: IterationReport) -> IterationReport:
        """The report without the scenario results: what the other formats' gate judges."""
        sets = {(s.scope, s.file_name) for s in self.project.sets if s.dialect == DIALECT}
        return replace(report, results=[r for r in report.results if (r.scope, r.set_file) not in sets])

    def judge(self, report: IterationReport, outcome: GateOutcome, *, allow_empty: bool,
              update: bool) -> tuple[GateOutcome, ScenarioGateRun]:
        """The scenario gate over `report`, and `outcome` (the other results' gate) joined with it. With
        `update`, the baseline is written instead of compared with (a partial run keeps the entries of
        the scenarios it did not run)."""
        runs = scenario_runs(report.results, self.project)
        gate = evaluate_scenario_gate(runs, self.settings, None if update else self.baseline,
                                      allow_empty=allow_empty)
        written = update_scenario_baseline(runs, self.settings, self.baseline) if update else None
        reasons = [*outcome.reasons, *gate.reasons]
        joined = GateOutcome(not reasons, pass_rate(report), reasons)
        return joined, ScenarioGateRun(gate, self.project.root, written)


def prepare_scenarios(project: Project, flags: ScenarioFlags, *, update: bool,
                      partial: bool) -> ScenarioPart | None:
    """The scenario part of this run, or None when the project has no scenarios. Raises BaselineError
    when the scenario baseline can't be read (unless a full run is about to replace it), ConfigError
    when a settings file puts it outside the project."""
    settings = project.extras.get(DIALECT)
    if not isinstance(settings, ScenarioSettings) or not any(s.dialect == DIALECT for s in project.sets):
        return None
    settings = settings.with_flags(baseline=flags.baseline, min_pass_rate=flags.min_pass_rate,
                                   max_token_regression=flags.max_token_regression)
    settings.check_baseline(project.root)
    baseline = None if update and not partial else load_scenario_baseline(settings.baseline)
    return ScenarioPart(project, settings, baseline)


__all__ = ["ScenarioFlags", "ScenarioGateRun", "ScenarioPart", "prepare_scenarios"]
