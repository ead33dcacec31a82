"""The set-level score of the coded classification types, as the SDK 2.14.44 reduces their rows' results: the
core's arithmetic (`scoring/classification.py`) over the labels the SDK's rules give.

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

from ...model import EvaluatorDef, Result
from ...scoring.base import SetMetric
from ...scoring.classification import averaged, binary_counts, class_counts, metric_value, result_pairs
from .outputs import SelectionError, actual_value, py_str


def label_pairs(evaluator: EvaluatorDef, key: Any, results: Iterable[Result]) -> list[tuple[str, str]]:
    """(expected, predicted) labels of this evaluator's scored results, lower-cased (`result_pairs`)."""

    def labels(result: Result) -> tuple[str, str] | None:
        if result.expected is None:
            return None
        try:
            predicted = py_str(actual_value(result.actual, key)).lower()
        except SelectionError:
            return None
        return py_str(result.expected).lower(), predicted

    return result_pairs(evaluator, results, labels)


def binary_metric(settings: Any, pairs: Sequence[tuple[str, str]]) -> SetMetric | None:
    if not pairs:
        return None
    positive = settings.positive_class.lower()
    value = metric_value(settings.metric_type, *binary_counts(pairs, positive), settings.f_value)
    return SetMetric(f"{settings.metric_type} of {positive!r}", value, len(pairs))


def multiclass_metric(settings: Any, pairs: Sequence[tuple[str, str]]) -> SetMetric | None:
    if not pairs:
        return None
    classes = [label.lower() for label in settings.classes]
    inside = [(expected, predicted) for expected, predicted in pairs if expected in classes and predicted in classes]
    value = averaged(settings.metric_type, class_counts(inside, classes), settings.averaging, settings.f_value)
    return SetMetric(f"{settings.metric_type} ({settings.averaging})", value, len(pairs))
