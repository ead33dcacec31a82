"""Which criterion an evaluator scores a row with, by the SDK's rules (`uipath eval`, 2.14):

- only the set's evaluators whose id is a key of the row's `evaluationCriterias` score it; the others are
  skipped (no result at all, not an ERROR);
- a criterion of `null` or `{}` means the evaluator's `defaultEvaluationCriteria`; without one it is an ERROR;
- a row-level `expectedOutput` goes into the criteria of evaluators that compare the output (those whose
  scorer `uses_expected_output`): a null/{} criterion becomes `{"expectedOutput": <the row's>}`, a criterion
  without `expectedOutput` gets it added, and the criterion's own `expectedOutput` wins;
- a criterion that is neither an object nor null is an ERROR (the SDK refuses the whole set);
- a criterion the SDK can't read (a uipath-contains one without `searchText`) fails the whole row there: every
  evaluator scores 0. So it is the row's problem here (`bad_criterion`, asked by the loader): every result of
  the row is an ERROR naming it, none green. A null criterion whose evaluator has no default fails the row in
  the SDK too, but stays that evaluator's ERROR alone: the row must run for `accept` to write its criterion.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ...model import EvaluatorDef, EvaluatorKey, Row
from .layout import SCOPE

if TYPE_CHECKING:
    from ...scoring.base import Scorer

DEFAULT_KEY = "defaultEvaluationCriteria"


def row_expected_output(row: Row) -> Any:
    """The row's own `expectedOutput` (beside its `evaluationCriterias`), or None."""
    return row.raw.get("expectedOutput") if isinstance(row.raw, dict) else None


def coded_criterion(row: Row, ref: str, evaluator: EvaluatorDef, scorer: Scorer) -> dict[str, Any] | str | None:
    """The criterion evaluator `ref` scores `row` with; a str: the ERROR why it can't; None: not scored."""
    if ref not in row.criteria:
        return None
    written = row.criteria[ref]
    if written is not None and not isinstance(written, dict):
        return malformed(ref)
    criterion: dict[str, Any] | None = dict(written) if written else None
    expected = row_expected_output(row)
    if expected is not None and scorer.uses_expected_output:
        if criterion is None:
            criterion = {"expectedOutput": expected}
        elif "expectedOutput" not in criterion:
            criterion = {**criterion, "expectedOutput": expected}
    if criterion is not None:
        return criterion
    default = evaluator.config.get(DEFAULT_KEY)
    if isinstance(default, dict):
        return dict(default)
    return missing(row, ref, default)


def bad_criterion(row: Row, refs: Sequence[str], evaluators: Mapping[EvaluatorKey, EvaluatorDef],
                  label: str) -> str | None:
    """The first criterion of the row (in the set's evaluator order) the SDK can't read, said as the row's
    problem: `uipath eval` then scores every evaluator of the row 0. None when all can be read (criteria of an
    evaluator that isn't loaded, or of a type workbench doesn't score, are those evaluators' own ERRORs)."""
    from ...scoring import scorer_of
    from .scorer_base import CodedScorer

    for ref in refs:
        evaluator = evaluators.get(EvaluatorKey(SCOPE, ref))
        if ref not in row.criteria or evaluator is None:
            continue
        scorer = scorer_of(evaluator)
        if not isinstance(scorer, CodedScorer):
            continue
        criterion = coded_criterion(row, ref, evaluator, scorer)
        if isinstance(criterion, str) or criterion is None:
            continue  # null without a default: that evaluator's ERROR, which `accept` can fix by running the row
        why = scorer.criterion_problem(evaluator, criterion)
        if why:
            return (f"{label}: {why} — `uipath eval` fails the whole row on it (every evaluator scores 0), so "
                    "every evaluator of the row is an ERROR")
    return None


def missing(row: Row, ref: str, default: Any = None) -> str:
    """The ERROR of a null or {} criterion whose evaluator has no usable default."""
    written = "null" if row.criteria.get(ref) is None else "{}"
    means = f"evaluationCriterias[{ref!r}] is {written}, which means the {DEFAULT_KEY} of evaluator {ref!r}"
    if default is not None:
        return f"{means}, but that must be an object in its evaluatorConfig"
    return f"{means}, and it has none: write this row's criterion here, or give the evaluator one in its " \
           "evaluatorConfig"


def malformed(ref: str) -> str:
    return (f"evaluationCriterias[{ref!r}] must be an object or null (null: the evaluator's {DEFAULT_KEY}), "
            "e.g. {\"expectedOutput\": ...}")


__all__ = ["DEFAULT_KEY", "bad_criterion", "coded_criterion", "malformed", "missing", "row_expected_output"]
