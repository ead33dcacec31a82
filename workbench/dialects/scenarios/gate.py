"""The Appilots gate (seed 000): scenarios checked against their committed baseline.

The baseline (`.appilots/eval-baseline.json` unless configured) records per scenario *name* whether it
passed and how many tokens it cost. Against it a run flags **newly failing** scenarios (passed on the
baseline, not now) and **token regressions** (still passing, but above `(1 + maxTokenRegression)` ×
the baseline's tokens; exactly at that limit is fine). A scenario with no baseline entry never
regresses. The gate fails on either, and when the pass rate is below the minimum.

`--update-baseline` writes the file (atomically) only when the pass rate reaches the minimum, and says
which baseline it found (replaced, or left as it was) or that there was none; the
comparison is exact (fractions, not floats), so 19 of 20 reaches 0.95 and 100 × 1.25 is 125.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from fractions import Fraction
from pathlib import Path
from typing import Any

from ... import jsonio
from ...baseline import BaselineError
from ...compare import type_name
from ...model import Project, Result, Verdict, results_by_row, row_verdict
from ...trace import trace_tokens
from ...writeback.atomic import write_atomically
from .settings import DIALECT, ScenarioSettings

SCENARIO_BASELINE_VERSION = 1


@dataclass(frozen=True, slots=True)
class ScenarioRun:
    """One scenario's outcome in this run."""

    name: str
    verdict: Verdict
    tokens: int | None = None

    @property
    def passed(self) -> bool:
        return self.verdict is Verdict.PASS


def _count(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < float("inf"):
        return None
    return int(value)


def response_tokens(output: Any) -> int | None:
    """`usage.tokens` (or `usage.input_tokens + usage.output_tokens`) of a response, or None."""
    usage = output.get("usage") if isinstance(output, dict) else None
    if not isinstance(usage, dict):
        return None
    tokens = _count(usage.get("tokens"))
    if tokens is not None:
        return tokens
    parts = [_count(usage.get(key)) for key in ("input_tokens", "output_tokens")]
    return None if all(part is None for part in parts) else sum(part or 0 for part in parts)


def result_tokens(result: Result) -> int | None:
    """A scenario's tokens: the trace's `usage` events, else the response's `usage`."""
    tokens = trace_tokens(result.trace)
    return tokens if tokens is not None else response_tokens(result.actual)


def scenario_runs(results: Iterable[Result], project: Project) -> list[ScenarioRun]:
    """The scenarios among `results` (rows of the scenario dialect's sets), one per row, in order."""
    sets = {(s.scope, s.file_name) for s in project.sets if s.dialect == DIALECT}
    runs = []
    for key, row_results in results_by_row(results).items():
        if (key.scope, key.set_file) not in sets:
            continue
        verdict = row_verdict(r.verdict for r in row_results) or Verdict.ERROR
        tokens = next((t for t in map(result_tokens, row_results) if t is not None), None)
        runs.append(ScenarioRun(key.row_id, verdict, tokens))
    return runs


# -- the baseline file ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ScenarioEntry:
    passed: bool
    tokens: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"passed": self.passed, **({"tokens": self.tokens} if self.tokens is not None else {})}


@dataclass(slots=True)
class ScenarioBaseline:
    entries: dict[str, ScenarioEntry]
    created_at: str = ""

    @classmethod
    def from_runs(cls, runs: Iterable[ScenarioRun], keep: ScenarioBaseline | None = None) -> ScenarioBaseline:
        """This run's scenarios; with `keep`, the entries of scenarios that did not run are kept."""
        entries = dict(keep.entries) if keep is not None else {}
        entries.update({run.name: ScenarioEntry(run.passed, run.tokens) for run in runs})
        return cls(entries, datetime.now(UTC).replace(microsecond=0).isoformat())

    def to_json(self) -> dict[str, Any]:
        passed = sum(entry.passed for entry in self.entries.values())
        total = len(self.entries)
        return {"version": SCENARIO_BASELINE_VERSION, "createdAt": self.created_at,
                "summary": {"total": total, "passed": passed, "passRate": round(passed / total, 4) if total else 0},
                "scenarios": {name: self.entries[name].to_json() for name in sorted(self.entries)}}


def load_scenario_baseline(path: Path) -> ScenarioBaseline | None:
    """The baseline at `path`, None when there is none, BaselineError when it can't be used."""
    try:
        doc = jsonio.loads(path.read_bytes())
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise BaselineError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except jsonio.JsonError as exc:
        raise BaselineError(f"{path}: not valid JSON: {exc}") from None
    scenarios = _scenarios(path, doc)
    entries = {}
    for name, item in scenarios.items():
        if not isinstance(item, dict) or not isinstance(item.get("passed"), bool):
            raise BaselineError(f"{path}: scenario {name!r} has no boolean \"passed\"; {REGENERATE}")
        entries[name] = ScenarioEntry(item["passed"], _count(item.get("tokens")))
    return ScenarioBaseline(entries, str(doc.get("createdAt", "")))


REGENERATE = "regenerate it with `workbench run --update-baseline`"
SHAPE = '{"scenarios": {"<scenario name>": {"passed": true, "tokens": 120}}}'


def _scenarios(path: Path, doc: Any) -> dict[str, Any]:
    """The baseline's entries by scenario name; BaselineError saying what is there instead of that shape."""
    scenarios = doc.get("scenarios") if isinstance(doc, dict) else None
    if isinstance(scenarios, list):  # [{"name": ..., "passed": ...}] is accepted too
        listed: dict[str, Any] = {}
        for number, item in enumerate(scenarios):
            name = item.get("name") if isinstance(item, dict) else None
            if not isinstance(name, str):
                raise BaselineError(f"{path}: scenarios[{number}] has no \"name\" (a string); {REGENERATE}")
            listed[name] = item
        return listed
    if isinstance(scenarios, dict):
        return scenarios
    if not isinstance(doc, dict):
        what = f"it is {type_name(doc)}"
    elif "scenarios" not in doc:
        what = 'it has no "scenarios"'
    else:
        what = f'"scenarios" is {type_name(scenarios)}'
    raise BaselineError(f"{path}: not a scenario baseline: {what}; expected an object such as {SHAPE}; {REGENERATE}")


def write_scenario_baseline(path: Path, baseline: ScenarioBaseline) -> None:
    """Replace the file whole or not at all (OSError when it can't; the old file stays)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, jsonio.dumps(baseline.to_json(), indent=True).encode("utf-8") + b"\n")


# -- comparing and gating ------------------------------------------------------------------------------


def _exact(value: float) -> Fraction:
    """A setting as the decimal the user wrote (0.95 is 19/20, not the float just below it)."""
    return Fraction(repr(float(value)))


def token_limit(baseline_tokens: int, max_token_regression: float) -> Fraction:
    return baseline_tokens * (1 + _exact(max_token_regression))


def reaches(passed: int, total: int, min_pass_rate: float) -> bool:
    return total > 0 and Fraction(passed, total) >= _exact(min_pass_rate)


@dataclass(frozen=True, slots=True)
class ScenarioRegression:
    kind: str  # "newly_failing" or "token_regression"
    run: ScenarioRun
    entry: ScenarioEntry
    limit: Fraction | None = None

    def describe(self) -> str:
        if self.kind == "newly_failing":
            return f"newly failing: {self.run.name} passed on the baseline, now {self.run.verdict.value}"
        return (f"token regression: {self.run.name} used {self.run.tokens} tokens, baseline {self.entry.tokens} "
                f"(limit {float(self.limit or 0):g})")

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"kind": self.kind, "scenario": self.run.name, "verdict": self.run.verdict.value,
                               "tokens": self.run.tokens, "baseline": self.entry.to_json(), "detail": self.describe()}
        if self.limit is not None:
            doc["limit"] = float(self.limit)
        return doc


@dataclass(slots=True)
class ScenarioCheck:
    newly_failing: list[ScenarioRegression] = field(default_factory=list)
    token_regressions: list[ScenarioRegression] = field(default_factory=list)
    new: list[str] = field(default_factory=list)  # no baseline entry: never a regression

    @property
    def regressions(self) -> list[ScenarioRegression]:
        return [*self.newly_failing, *self.token_regressions]


def compare_scenarios(runs: Iterable[ScenarioRun], baseline: ScenarioBaseline,
                      max_token_regression: float) -> ScenarioCheck:
    check = ScenarioCheck()
    for run in runs:
        entry = baseline.entries.get(run.name)
        if entry is None:
            check.new.append(run.name)
        elif entry.passed and not run.passed:
            check.newly_failing.append(ScenarioRegression("newly_failing", run, entry))
        elif entry.passed and entry.tokens and run.tokens is not None:
            limit = token_limit(entry.tokens, max_token_regression)
            if run.tokens > limit:
                check.token_regressions.append(ScenarioRegression("token_regression", run, entry, limit))
    return check


@dataclass(slots=True)
class ScenarioGate:
    settings: ScenarioSettings
    total: int
    passed_count: int
    check: ScenarioCheck | None  # None: no baseline file yet, or --update-baseline (nothing compared)
    reasons: list[str] = field(default_factory=list)
    found: bool = False  # a baseline file is there (with --update-baseline: the one to be replaced)
    updating: bool = False  # --update-baseline: the gate line says which baseline it found, not "against"

    @property
    def passed(self) -> bool:
        return not self.reasons

    @property
    def pass_rate(self) -> float:
        return self.passed_count / self.total if self.total else 0.0

    def lines(self, root: Path) -> list[str]:
        """The report's lines: the pass rate against the minimum, then each regression."""
        where = self.settings.to_json(root)["baseline"]
        if self.updating:
            against = f"updating the baseline found at {where}" if self.found else f"no baseline yet ({where})"
        else:
            against = f"against {where}" if self.check is not None else f"no baseline yet ({where})"
        lines = [f"scenarios: {self.passed_count}/{self.total} pass ({self.pass_rate:.1%}, minimum "
                 f"{self.settings.min_pass_rate:.1%}), {against}"]
        lines += [f"  {regression.describe()}" for regression in (self.check.regressions if self.check else [])]
        return lines

    def to_json(self, root: Path) -> dict[str, Any]:
        check = self.check
        return {"passed": self.passed, "total": self.total, "passed_count": self.passed_count,
                "pass_rate": round(self.pass_rate, 4), **self.settings.to_json(root),
                "baseline_found": self.found,
                "newly_failing": [r.to_json() for r in check.newly_failing] if check else [],
                "token_regressions": [r.to_json() for r in check.token_regressions] if check else [],
                "new": list(check.new) if check else [], "reasons": list(self.reasons)}


def evaluate_scenario_gate(runs: list[ScenarioRun], settings: ScenarioSettings, baseline: ScenarioBaseline | None,
                           *, allow_empty: bool = False, updating: bool = False,
                           found: bool | None = None) -> ScenarioGate:
    """The gate over `runs` against `baseline` (None: nothing to compare with). `found`: whether a baseline
    file is there (default: whether `baseline` was given); `updating`: --update-baseline is about to write it."""
    passed = sum(run.passed for run in runs)
    check = compare_scenarios(runs, baseline, settings.max_token_regression) if baseline is not None else None
    gate = ScenarioGate(settings, len(runs), passed, check, found=baseline is not None if found is None else found,
                        updating=updating)
    if not runs:
        if not allow_empty:
            gate.reasons.append("no scenario ran")
    elif not reaches(passed, len(runs), settings.min_pass_rate):
        gate.reasons.append(f"scenario pass rate {passed}/{len(runs)} ({gate.pass_rate:.1%}) is below the minimum "
                            f"{settings.min_pass_rate:.1%}")
    if check is not None and check.newly_failing:
        names = ", ".join(r.run.name for r in check.newly_failing)
        gate.reasons.append(f"{len(check.newly_failing)} scenario(s) newly failing against the baseline: {names}")
    if check is not None and check.token_regressions:
        names = ", ".join(r.run.name for r in check.token_regressions)
        gate.reasons.append(f"{len(check.token_regressions)} token regression(s) over "
                            f"+{settings.max_token_regression:.0%}: {names}")
    return gate


@dataclass(frozen=True, slots=True)
class ScenarioBaselineUpdate:
    written: bool
    path: Path
    reason: str = ""
    found: bool = False  # a baseline was there before (replaced, or left as it was)
    kept: int = 0  # a partial run's update: entries of scenarios that did not run, kept as they were


def update_scenario_baseline(runs: list[ScenarioRun], settings: ScenarioSettings,
                             keep: ScenarioBaseline | None = None, *, found: bool = False) -> ScenarioBaselineUpdate:
    """Write the baseline from `runs` when their pass rate reaches the minimum; otherwise leave the
    file exactly as it is. `keep`: a partial run's baseline, whose other entries stay; `found`: a baseline
    file was there (the words say which one was replaced or kept)."""
    passed = sum(run.passed for run in runs)
    if not reaches(passed, len(runs), settings.min_pass_rate):
        rate = f"{passed}/{len(runs)} ({passed / len(runs):.1%})" if runs else "nothing (no scenario ran)"
        return ScenarioBaselineUpdate(False, settings.baseline, f"scenario pass rate {rate} is below the minimum "
                                      f"{settings.min_pass_rate:.1%}; fix the failures first", found)
    try:
        write_scenario_baseline(settings.baseline, ScenarioBaseline.from_runs(runs, keep))
    except OSError as exc:
        return ScenarioBaselineUpdate(False, settings.baseline,
                                      f"cannot write {settings.baseline}: {exc.strerror or exc}", found)
    ran = {run.name for run in runs}
    kept = sum(name not in ran for name in keep.entries) if keep is not None else 0
    return ScenarioBaselineUpdate(True, settings.baseline, found=found, kept=kept)


__all__ = ["ScenarioBaseline", "ScenarioBaselineUpdate", "ScenarioCheck", "ScenarioEntry", "ScenarioGate",
           "ScenarioRegression", "ScenarioRun", "compare_scenarios", "evaluate_scenario_gate",
           "load_scenario_baseline", "reaches", "response_tokens", "result_tokens", "scenario_runs",
           "token_limit", "update_scenario_baseline", "write_scenario_baseline"]
