"""Which recorded results an accept uses: one row's results from one iteration of the history."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from ..model import EvalSet, EvaluatorDef, Result, ResultKey, Row
from . import expected as exp
from .errors import WritebackError


class ResultSource(Protocol):
    """What accept needs from the history (`workbench.history.HistoryStore` provides it)."""

    def find_result(self, key: ResultKey, iteration: int | None = None) -> tuple[int, Result] | None: ...


@dataclass(slots=True)
class Recorded:
    iteration: int
    results: list[Result]
    notes: list[str] = field(default_factory=list)


def acceptable(results: Sequence[Result], evaluators: Mapping[str, EvaluatorDef]) -> tuple[list[Result], list[str]]:
    """The results whose evaluator compares with expectedOutput, and a note for each one left out."""
    kept: list[Result] = []
    notes: list[str] = []
    for result in results:
        evaluator = evaluators.get(result.evaluator)
        if evaluator is None:
            notes.append(f"skipped {result.evaluator}: its evaluator file is missing or broken")
        elif not exp.uses_expected_output(evaluator):
            notes.append(f"skipped {result.evaluator}: {exp.not_expected_output(evaluator)}")
        else:
            kept.append(result)
    return kept, notes


def recorded_for_row(source: ResultSource, eval_set: EvalSet, row: Row, evaluators: Mapping[str, EvaluatorDef],
                     *, evaluator: str | None = None, iteration: int | None = None) -> Recorded:
    """The row's results from `iteration` (default: the newest that ran it): every evaluator that
    compares with expectedOutput, or only `evaluator`."""
    label = row.name or row.id
    if evaluator is not None and evaluator not in eval_set.evaluator_refs:
        refs = ", ".join(eval_set.evaluator_refs) or "none"
        raise WritebackError(f"{eval_set.file_name} has no evaluator ref {evaluator!r} (its refs: {refs})")
    wanted = [evaluator] if evaluator is not None else eval_set.evaluator_refs
    found = [hit for ref in wanted
             if (hit := source.find_result(ResultKey(eval_set.scope, eval_set.file_name, row.id, ref), iteration))]
    if not found:
        when = f"iteration {iteration} did not run" if iteration is not None else "nothing has run"
        raise WritebackError(f"no recorded output to accept: {when} row {label!r} of {eval_set.file_name}. "
                             f"Run it first: workbench run --set {eval_set.stem} --row {row.id}")
    number = max(n for n, _ in found)
    results = [result for n, result in found if n == number]
    notes = [f"skipped {result.evaluator}: iteration {number} did not score it" for n, result in found
             if n != number]
    if evaluator is not None:
        return Recorded(number, results, notes)
    kept, skipped = acceptable(results, evaluators)
    if not kept:
        raise WritebackError(f"none of the evaluators of row {label!r} compares the output with expectedOutput; "
                             "nothing to accept (" + "; ".join(skipped) + ")")
    return Recorded(number, kept, notes + skipped)
