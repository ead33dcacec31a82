"""`uipath-binary-classification` and `uipath-multiclass-classification`. Boolean per row.

Each row passes when the selected output is the row's `expectedClass`. Labels compare as text: a
string as itself, a number or boolean as its JSON spelling (`true`), so a boolean `escalated` field
can be classified against `"expectedClass": true`. When `classes` is set, `expectedClass` must be one
of them (else the row is an ERROR) and a prediction outside them fails saying so.

Like the SDK, the set-level metric (`metricType`: precision, recall or f-score; `averaging` micro or
macro for multiclass; binary needs `positiveClass`) is computed over all rows: see `set_metric`. Its
arithmetic (`metric_value`, `binary_counts`, `class_counts`, `averaged`) and the reading of a set's results
(`result_pairs`) are the one implementation every format computes it with; which label a row gives is the
format's (`labels`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, ClassVar

from .. import jsonio
from ..model import EvaluatorDef, Result, Verdict
from ..output_paths import MISSING, select
from .base import CriterionError, Score, ScoreInput, Scorer, SetMetric
from .common import boolean, check_single_target, check_threshold, missing_output, require, selected, show, target_path

METRICS = ("precision", "recall", "f-score")
AVERAGING = ("micro", "macro")


def label(value: Any) -> str | None:
    """A class label's text, or None for values that can't be labels (objects, arrays, null)."""
    if isinstance(value, str):
        return value
    if value is None or isinstance(value, (dict, list)):
        return None
    return jsonio.dumps(value)


def _classes(evaluator: EvaluatorDef) -> list[str] | None:
    raw = evaluator.config.get("classes")
    if raw is None:
        return None
    return [lab for lab in (label(v) for v in raw) if lab is not None]


class _Classification(Scorer):
    type_id: ClassVar[str]
    binary: ClassVar[bool]

    def set_metric(self, evaluator: EvaluatorDef, results: Sequence[Result]) -> SetMetric | None:
        """Precision, recall or F-score over the set, when the evaluator's config asks (`metricType`)."""
        if evaluator.config.get("metricType") is None:
            return None
        return set_metric(evaluator, result_pairs(evaluator, results))

    def check_config(self, evaluator: EvaluatorDef) -> str | None:
        return check_single_target(evaluator) or check_threshold(evaluator) or self._check_classes(evaluator)

    def _check_classes(self, evaluator: EvaluatorDef) -> str | None:
        """`classes`, `metricType` and `averaging` or `positiveClass`, once the target and threshold are fine."""
        config = evaluator.config
        classes = config.get("classes")
        if classes is not None:
            if not isinstance(classes, list) or any(label(c) is None for c in classes):
                return "evaluatorConfig.classes must be an array of class labels (strings, numbers or booleans)"
            if len({label(c) for c in classes}) != len(classes):
                return "evaluatorConfig.classes lists a class twice"
            if self.binary and len(classes) != 2:
                return f"a binary classification has exactly 2 classes; evaluatorConfig.classes lists {len(classes)}"
        metric = config.get("metricType")
        if metric is not None and metric not in METRICS:
            return f"evaluatorConfig.metricType must be one of {', '.join(METRICS)}, not {show(metric)}"
        if not self.binary:
            averaging = config.get("averaging")
            if averaging is not None and averaging not in AVERAGING:
                return f"evaluatorConfig.averaging must be micro or macro, not {show(averaging)}"
        elif "positiveClass" in config:
            positive = label(config["positiveClass"])
            if positive is None:
                return "evaluatorConfig.positiveClass must be a class label"
            known = _classes(evaluator)
            if known is not None and positive not in known:
                return f"evaluatorConfig.positiveClass {show(positive)} is not one of the classes {show(known)}"
        return None

    def score(self, data: ScoreInput) -> Score:
        ref = data.evaluator.ref
        raw_expected = require(data.criterion, "expectedClass", ref, '"expectedClass": "spam"')
        expected = label(raw_expected)
        if expected is None:
            raise CriterionError(f"evaluationCriterias[{ref!r}].expectedClass must be a class label (a string, "
                                 f"number or boolean), not {show(raw_expected)}")
        classes = _classes(data.evaluator)
        if classes is not None and expected not in classes:
            raise CriterionError(f"expectedClass {show(expected)} is not one of evaluatorConfig.classes "
                                 f"{show(classes)}")
        path, value = selected(data)
        if value is MISSING:
            return missing_output(path, raw_expected)
        predicted = label(value)
        where = "the output" if path == "*" else path
        if predicted is None:
            return Score.failed(f"{where} is {show(value)}, which is not a class label; expected class "
                                f"{show(expected)}", raw_expected)
        if predicted == expected:
            return boolean(True, f"class {show(expected)}", raw_expected)
        outside = ""
        if classes is not None and predicted not in classes:
            outside = f" (not one of the classes {show(classes)})"
        return boolean(False, f"{where}: expected class {show(expected)}, got {show(predicted)}{outside}",
                       raw_expected)


class BinaryClassification(_Classification):
    type_id: ClassVar[str] = "uipath-binary-classification"
    binary: ClassVar[bool] = True


class MulticlassClassification(_Classification):
    type_id: ClassVar[str] = "uipath-multiclass-classification"
    binary: ClassVar[bool] = False


# -- the set-level metric ------------------------------------------------------------------------


def metric_value(metric: str, tp: int, fp: int, fn: int, beta: float = 1.0) -> float:
    """Precision, recall or F-beta (`metric`: one of `METRICS`) of one set of counts; a ratio with nothing to
    divide by is 0."""
    precision = tp / (tp + fp) if tp + fp > 0 else 0.0
    recall = tp / (tp + fn) if tp + fn > 0 else 0.0
    if metric == "precision":
        return precision
    if metric == "recall":
        return recall
    squared = beta ** 2
    denominator = squared * precision + recall
    return (1 + squared) * precision * recall / denominator if denominator > 0 else 0.0


Counts = tuple[int, int, int]  # true positives, false positives, false negatives


def binary_counts(pairs: Sequence[tuple[str, str]], positive: str) -> Counts:
    """The counts of (expected, predicted) label pairs against the positive class."""
    tp = sum(e == positive and p == positive for e, p in pairs)
    fp = sum(e != positive and p == positive for e, p in pairs)
    fn = sum(e == positive and p != positive for e, p in pairs)
    return tp, fp, fn


def class_counts(pairs: Sequence[tuple[str, str]], classes: Sequence[str]) -> list[Counts]:
    """Each class's counts, as if it were the positive one."""
    return [binary_counts(pairs, c) for c in classes]


def averaged(metric: str, counts: Sequence[Counts], averaging: str, beta: float = 1.0) -> float:
    """`metric` over several classes' counts: `micro` of the summed counts, `macro` the mean of the classes'
    (no classes: 0)."""
    if averaging == "micro":
        tp, fp, fn = (sum(column) for column in zip(*counts, strict=True)) if counts else (0, 0, 0)
        return metric_value(metric, tp, fp, fn, beta)
    return sum(metric_value(metric, *c, beta) for c in counts) / len(counts) if counts else 0.0


def set_metric(evaluator: EvaluatorDef, pairs: Iterable[tuple[str, str]]) -> SetMetric | None:
    """The evaluator's metric over (expected, predicted) label pairs; None when it can't be computed
    (no rows, or a binary evaluator without `positiveClass`)."""
    pairs = list(pairs)
    if not pairs:
        return None
    metric = evaluator.config.get("metricType") or "f-score"
    if evaluator.type_id == BinaryClassification.type_id:
        positive = label(evaluator.config.get("positiveClass"))
        if positive is None:
            return None
        return SetMetric(metric, metric_value(metric, *binary_counts(pairs, positive)), len(pairs))
    averaging = evaluator.config.get("averaging") or "macro"
    classes = _classes(evaluator) or sorted({e for e, _ in pairs} | {p for _, p in pairs})
    return SetMetric(f"{metric} ({averaging})", averaged(metric, class_counts(pairs, classes), averaging), len(pairs))


def result_pairs(evaluator: EvaluatorDef, results: Iterable[Result],
                 labels: Callable[[Result], tuple[str, str] | None] | None = None) -> list[tuple[str, str]]:
    """(expected, predicted) labels of the scored (PASS/FAIL) results of one classification evaluator, each read
    by `labels` (None: leave the result out); by default seed 003's reading (`seed_labels`)."""
    read = labels or (lambda result: seed_labels(evaluator, result))
    return [pair for result in results if result.verdict is not Verdict.ERROR and result.evaluator == evaluator.ref
            if (pair := read(result)) is not None]


def seed_labels(evaluator: EvaluatorDef, result: Result) -> tuple[str, str] | None:
    """A result's labels by `label`: its expected class (none: left out) and its prediction ("" when the
    selected output is no label)."""
    expected, predicted = label(result.expected), label(select(result.actual, target_path(evaluator)))
    if expected is None:
        return None
    return expected, predicted if predicted is not None else ""
