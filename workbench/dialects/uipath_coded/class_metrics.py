"""The set-level score of the coded classification types, as the SDK 2.14.44 reduces their rows' results.

Each scored row (not an ERROR) gives a pair of labels, lower-cased: the criterion's `expectedClass` and
Python's `str()` of the output under `targetOutputKey`.

- binary: counts against `positiveClass` (true positive: both are it; false positive: only the prediction;
  false negative: only the expectation), then `metricType` (default precision) with `fValue` as beta.
- multiclass: the confusion of the pairs whose labels are both in `classes`, then `metricType` (default
  f-score) averaged `macro` (the mean over the classes, default) or `micro` (over the summed counts).
A ratio with nothing to divide by is 0.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ...model import EvaluatorDef, Result, Verdict
from ...scoring.base import SetMetric
from .outputs import SelectionError, actual_value, py_str


def _ratio(part: int, whole: int) -> float:
    return part / whole if whole > 0 else 0.0


def metric_value(metric: str, tp: int, fp: int, fn: int, beta: float) -> float:
    """Precision, recall or F-beta of one set of counts."""
    precision, recall = _ratio(tp, tp + fp), _ratio(tp, tp + fn)
    if metric == "precision":
        return precision
    if metric == "recall":
        return recall
    squared = beta ** 2
    denominator = squared * precision + recall
    return (1 + squared) * precision * recall / denominator if denominator > 0 else 0.0


def label_pairs(evaluator: EvaluatorDef, key: Any, results: Iterable[Result]) -> list[tuple[str, str]]:
    """(expected, predicted) labels of this evaluator's scored results, lower-cased."""
    pairs = []
    for result in results:
        if result.verdict is Verdict.ERROR or result.evaluator != evaluator.ref or result.expected is None:
            continue
        try:
            predicted = py_str(actual_value(result.actual, key)).lower()
        except SelectionError:
            continue
        pairs.append((py_str(result.expected).lower(), predicted))
    return pairs


def binary_metric(settings: Any, pairs: Sequence[tuple[str, str]]) -> SetMetric | None:
    if not pairs:
        return None
    positive = settings.positive_class.lower()
    tp = sum(expected == positive and predicted == positive for expected, predicted in pairs)
    fp = sum(predicted == positive and expected != positive for expected, predicted in pairs)
    fn = sum(expected == positive and predicted != positive for expected, predicted in pairs)
    value = metric_value(settings.metric_type, tp, fp, fn, settings.f_value)
    return SetMetric(f"{settings.metric_type} of {positive!r}", value, len(pairs))


def multiclass_metric(settings: Any, pairs: Sequence[tuple[str, str]]) -> SetMetric | None:
    if not pairs:
        return None
    classes = [label.lower() for label in settings.classes]
    inside = [(expected, predicted) for expected, predicted in pairs if expected in classes and predicted in classes]
    counts = [(sum(e == c and p == c for e, p in inside), sum(p == c and e != c for e, p in inside),
               sum(e == c and p != c for e, p in inside)) for c in classes]
    metric, beta = settings.metric_type, settings.f_value
    if settings.averaging == "micro":
        value = metric_value(metric, sum(c[0] for c in counts), sum(c[1] for c in counts), sum(c[2] for c in counts),
                             beta)
    else:
        value = sum(metric_value(metric, *count, beta) for count in counts) / len(counts) if counts else 0.0
    return SetMetric(f"{metric} ({settings.averaging})", value, len(pairs))
