"""The CI gate: does this iteration pass, given the pass-rate minimum and the baseline checks, and the
gates of their own that formats bring (`Gates.gate`: scenarios')? What decides lives here, without
I/O; `actions/gate.py` runs the iteration, records it and blesses the baselines."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from .baseline import DEFAULT_SLOWDOWN, DEFAULT_TOKEN_INCREASE, Baseline, BaselineCheck, compare_with_baseline
from .events import IterationReport

if TYPE_CHECKING:
    from .dialects.base import DialectGate, GateVerdict


@dataclass(slots=True)
class GateSettings:
    min_pass_rate: float = 1.0
    max_slowdown: float | None = None
    max_token_increase: float | None = None
    allow_empty: bool = False
    flaky: str = "fail"  # [gate] flaky: what a row flaky over time does to the gate ("fail" or "warn")


@dataclass(slots=True)
class GateOutcome:
    """The gate's verdict: `passed` when no reason fails it (green, `IterationReport.green`, is one way: the gate
    may also allow a lower pass rate or nothing run, and adds the baseline's conditions)."""

    passed: bool
    result_pass_rate: float  # passing results / results (not rows); "pass_rate" in JSON
    reasons: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # said, not failing it ([gate] flaky = "warn")

    def to_json(self, settings: GateSettings) -> dict[str, Any]:
        return {"passed": self.passed, "pass_rate": round(self.result_pass_rate, 4),
                "min_pass_rate": settings.min_pass_rate, "max_slowdown": settings.max_slowdown,
                "max_token_increase": settings.max_token_increase, "flaky": settings.flaky, "reasons": self.reasons,
                "warnings": self.warnings}


def flaky_over_time(report: IterationReport) -> list[str]:
    """The rows (display names) whose verdict differs from an earlier run on the very same ground."""
    names: dict[tuple[str, str, str], str] = {}
    for result in report.results:
        if result.flaky_since is not None:
            names.setdefault(result.row_key, f"{result.label} (iteration {result.flaky_since})")
    return list(names.values())


def flaky_reason(report: IterationReport) -> str | None:
    """Why flaky rows make the gate doubt this run, or None when none is flaky."""
    names = flaky_over_time(report)
    if not names:
        return None
    shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    plural = "s" if len(names) != 1 else ""
    return (f"{len(names)} flaky row{plural}: the verdict changed since an earlier run with nothing it depends on "
            f"changed ({shown})")


def result_pass_rate(report: IterationReport) -> float:
    """The share of results (not rows) that passed; 0 when nothing ran."""
    summary = report.summary
    return summary.passed / summary.total if summary.total else 0.0


def evaluate_gate(report: IterationReport, settings: GateSettings, check: BaselineCheck | None) -> GateOutcome:
    summary = report.summary
    rate = result_pass_rate(report)
    reasons: list[str] = []
    problems = report.error_problems
    counted = f"{len(problems)} file problem{'s' if len(problems) != 1 else ''}"
    if not summary.total:
        if problems:  # the files are why nothing ran: point there, not at --allow-empty (issue 38)
            reasons.append(f"nothing ran because of {counted}")
        elif not settings.allow_empty:
            reasons.append("nothing ran (use --allow-empty if that is expected)")
    elif rate < settings.min_pass_rate:
        reasons.append(f"pass rate {summary.passed}/{summary.total} ({rate:.1%}) is below the minimum "
                       f"{settings.min_pass_rate:.1%}")
    if problems and summary.total:
        reasons.append(counted)
    warnings: list[str] = []
    flaky = flaky_reason(report)
    if flaky is not None:
        (warnings if settings.flaky == "warn" else reasons).append(flaky)
    if check is not None:
        if check.newly_failing:
            reasons.append(f"{len(check.newly_failing)} newly failing against the baseline")
        if settings.max_slowdown is not None and check.slowdowns:
            reasons.append(f"{len(check.slowdowns)} slower than the baseline by more than "
                           f"{settings.max_slowdown:.0%}")
        if settings.max_token_increase is not None and check.token_increases:
            reasons.append(f"{len(check.token_increases)} using more tokens than the baseline by more than "
                           f"{settings.max_token_increase:.0%}")
    return GateOutcome(not reasons, rate, reasons, warnings)


def judge_generic(report: IterationReport, settings: GateSettings, baseline: Baseline | None,
                  gates: Sequence[DialectGate] = ()) -> tuple[IterationReport, BaselineCheck | None, GateOutcome]:
    """The generic gate over the results of `report` no format judges itself (`gates`: the formats' own),
    compared with `baseline` (`[baseline]`'s file) when there is one: (those results, the comparison,
    the outcome). Beside a format's gate, no result of its own is not "nothing ran"."""
    judged = report
    for gate in gates:
        judged = gate.others(judged)
    if gates:
        settings = replace(settings, allow_empty=True)
    check = None
    if baseline is not None:
        check = compare_with_baseline(
            judged.results, baseline,
            slowdown=settings.max_slowdown if settings.max_slowdown is not None else DEFAULT_SLOWDOWN,
            token_increase=(settings.max_token_increase if settings.max_token_increase is not None
                            else DEFAULT_TOKEN_INCREASE))
    return judged, check, evaluate_gate(judged, settings, check)


def joined_gate(report: IterationReport, outcome: GateOutcome, verdicts: Iterable[GateVerdict]) -> GateOutcome:
    """`outcome` (the generic gate over the results no format judges itself) joined with the formats' own
    gates: it passes when none has a reason to fail; the pass rate is the whole run's."""
    reasons = [*outcome.reasons, *(reason for verdict in verdicts for reason in verdict.reasons)]
    return GateOutcome(not reasons, result_pass_rate(report), reasons, outcome.warnings)
