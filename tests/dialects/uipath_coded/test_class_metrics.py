"""The coded classification types' set score, as the SDK 2.14.44 reduces a set's results (values checked
against its reduce_scores)."""

from __future__ import annotations

import pytest
from coded_scoring import SCORERS, evaluator

from workbench.model import Result
from workbench.scoring.base import ScoreInput

BINARY, MULTI = "uipath-binary-classification", "uipath-multiclass-classification"


def set_score(type_id: str, pairs: list[tuple[str, str]], **config):
    ev = evaluator(type_id, targetOutputKey="label", **config)
    scorer = SCORERS[type_id]
    results = []
    for index, (expected, predicted) in enumerate(pairs):
        output = {"label": predicted}
        scored = scorer.score(ScoreInput(ev, {"expectedClass": expected}, output))
        results.append(Result("evaluations", "s.json", f"r{index}", f"r{index}", ev.ref, scored.verdict, scored.score,
                              scored.detail, actual=output, expected=scored.expected))
    return scorer.set_metric(ev, results)


PAIRS = [("yes", "yes"), ("no", "YES"), ("Yes", "no"), ("no", "no"), ("yes", "yes")]


@pytest.mark.parametrize(("metric", "value"), [("precision", 2 / 3), ("recall", 2 / 3), ("f-score", 2 / 3)])
def test_binary_counts_against_the_positive_class_ignoring_case(metric, value):
    found = set_score(BINARY, PAIRS, positiveClass="YES", metricType=metric)
    assert found is not None and found.value == pytest.approx(value, abs=1e-12) and found.rows == 5


def test_binary_defaults_to_precision_and_weighs_recall_by_f_value():
    assert set_score(BINARY, [("yes", "yes"), ("yes", "no")], positiveClass="yes").value == 1.0
    f2 = set_score(BINARY, [("yes", "yes"), ("yes", "no")], positiveClass="yes", metricType="f-score", fValue=2.0)
    assert f2.value == pytest.approx(5 * 1.0 * 0.5 / (4 * 1.0 + 0.5), abs=1e-12)


MULTI_PAIRS = [("a", "a"), ("a", "b"), ("b", "b"), ("c", "a")]


def test_multiclass_macro_f_score_is_the_mean_over_classes():
    found = set_score(MULTI, MULTI_PAIRS, classes=["a", "b", "c"])
    assert found.value == pytest.approx((0.5 + 2 / 3 + 0.0) / 3, abs=1e-12)
    assert found.name == "f-score (macro)"


def test_multiclass_micro_sums_the_counts():
    assert set_score(MULTI, MULTI_PAIRS, classes=["a", "b", "c"], averaging="micro", metricType="recall"
                     ).value == pytest.approx(0.5, abs=1e-12)


def test_no_scored_rows_no_metric():
    assert set_score(MULTI, [("a", "z")], classes=["a", "b"]) is None  # its only row is an ERROR
