"""The loop's memory between iterations: what got fixed, what broke, and whether it is stalled.

Feeds the one-line-per-iteration report of the watch loop (in the spirit of seed 003's
"iteration 2: 3/4 rows pass; fixing row 'unpaid invoice' (expected status `unpaid`, got `paid`)").
Rows are the unit here: a row passes when every evaluator on it passes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .events import IterationReport, Trigger
from .model import Problem, Result, RowKey, results_by_row, row_passes
from .textsafe import one_line

_NAMES_SHOWN = 3


@dataclass(slots=True)
class RowState:
    label: str
    passed: bool
    reason: str = ""


@dataclass(slots=True)
class IterationSummary:
    number: int | None
    trigger: Trigger
    rows_passed: int
    rows_total: int
    duration_s: float
    change: int | None = None
    fixed: list[str] = field(default_factory=list)
    broke: list[str] = field(default_factory=list)
    failing: list[tuple[str, str]] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    stalled_for: int = 0
    partial: bool = False

    @property
    def all_green(self) -> bool:
        return self.rows_total > 0 and self.rows_passed == self.rows_total and not any(
            p.severity == "error" for p in self.problems)


def row_states(results: list[Result]) -> dict[RowKey, RowState]:
    """Per row: passed when every result passed; the reason is the first failing result's first line."""
    rows: dict[RowKey, RowState] = {}
    for key, group in results_by_row(results).items():
        state = rows[key] = RowState(group[0].label, row_passes(group))
        failing = next((r for r in group if not r.passed), None)
        if failing is not None:
            first = failing.detail.strip().splitlines()[0] if failing.detail.strip() else failing.verdict.value
            state.reason = first if failing.verdict.value == "FAIL" else f"ERROR: {first}"
    return rows


class LoopTracker:
    """Compares each iteration with what the loop knew before it, and counts stalls."""

    def __init__(self, stall_after: int = 3, known: list[Result] | None = None) -> None:
        self.stall_after = stall_after
        self.known: dict[RowKey, RowState] = row_states(known or [])
        self.best_passed: int | None = sum(s.passed for s in self.known.values()) if known else None
        self.without_progress = 0

    def update(self, report: IterationReport, partial: bool = False) -> IterationSummary:
        current = row_states(report.results)
        summary = IterationSummary(
            number=report.number, trigger=report.trigger,
            rows_passed=sum(s.passed for s in current.values()), rows_total=len(current),
            duration_s=report.duration_s, problems=list(report.problems), partial=partial)
        previous = self.known
        for key, state in current.items():
            before = previous.get(key)
            if state.passed and before is not None and not before.passed:
                summary.fixed.append(state.label)
            elif not state.passed:
                if before is not None and before.passed:
                    summary.broke.append(state.label)
                summary.failing.append((state.label, state.reason))
        if partial:
            self.known = {**previous, **current}
            return summary
        if previous:
            summary.change = summary.rows_passed - sum(s.passed for s in previous.values())
        self.known = current
        if summary.all_green:
            self.without_progress = 0
        elif self.best_passed is not None and summary.rows_passed <= self.best_passed:
            self.without_progress += 1
        else:
            self.without_progress = 0
        self.best_passed = max(self.best_passed or 0, summary.rows_passed)
        if self.without_progress >= self.stall_after:
            summary.stalled_for = self.without_progress
        return summary


def _names(labels: list[str]) -> str:
    shown = "; ".join(f"'{one_line(label, 60)}'" for label in labels[:_NAMES_SHOWN])
    return shown + (f" (+{len(labels) - _NAMES_SHOWN} more)" if len(labels) > _NAMES_SHOWN else "")


def progress_line(summary: IterationSummary) -> str:
    """`iteration 3 (changed grade.py): 3/4 rows pass (+1) in 0.8s — fixed: 'x'; still failing: 'y' (why)`."""
    head = f"iteration {summary.number}" if summary.number is not None else "iteration"
    head += f" ({one_line(summary.trigger.describe(), 80)})"
    count = f"{summary.rows_passed}/{summary.rows_total} rows pass"
    if summary.partial:
        count = f"{summary.rows_passed}/{summary.rows_total} re-run rows pass"
    elif summary.change:
        count += f" ({summary.change:+d})"
    parts = [f"{head}: {count} in {summary.duration_s:.1f}s"]
    if summary.fixed:
        parts.append(f"fixed: {_names(summary.fixed)}")
    if summary.broke:
        parts.append(f"newly failing: {_names(summary.broke)}")
    still = [(label, reason) for label, reason in summary.failing if label not in summary.broke]
    if still:
        first_label, first_reason = still[0]
        text = f"still failing: '{one_line(first_label, 60)}' ({one_line(first_reason, 100)})"
        if len(still) > 1:
            text += f" (+{len(still) - 1} more)"
        parts.append(text)
    errors = [p for p in summary.problems if p.severity == "error"]
    if errors:
        parts.append(f"{len(errors)} file problem{'s' if len(errors) != 1 else ''}")
    if summary.all_green:
        parts.append("all green")
    if summary.stalled_for:
        parts.append(f"stalled: no improvement in passes for {summary.stalled_for} iterations")
    return " — ".join(parts)
