"""uipath-binary-classification / uipath-multiclass-classification: expectedClass per row, metric per set."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from workbench.engine import wrap_output
from workbench.model import EvaluatorDef, Result, Verdict
from workbench.scoring import CriterionError, Score, ScoreInput, scorer_for
from workbench.scoring.classification import result_pairs, set_metric

BINARY = "uipath-binary-classification"
MULTI = "uipath-multiclass-classification"


def evaluator(type_id: str, config: dict[str, Any]) -> EvaluatorDef:
    return EvaluatorDef("default", "ev", Path("ev.json"), None, None, type_id, config, {})


def score(type_id: str, expected_class: Any, output: Any, **config: Any) -> Score:
    ev = evaluator(type_id, config)
    scorer = scorer_for(type_id)
    assert scorer is not None and scorer.check_config(ev) is None
    try:
        return scorer.score(ScoreInput(ev, {"expectedClass": expected_class}, wrap_output(output)))
    except CriterionError as exc:
        return Score.error(str(exc))


YES_NO = {"classes": ["yes", "no"], "positiveClass": "yes", "targetOutputKey": "escalate"}


def test_matching_class_passes_and_other_class_fails():
    hit = score(BINARY, "yes", {"escalate": "yes"}, **YES_NO)
    assert (hit.verdict, hit.score) == (Verdict.PASS, 1.0)
    miss = score(BINARY, "yes", {"escalate": "no"}, **YES_NO)
    assert (miss.verdict, miss.score) == (Verdict.FAIL, 0.0)
    assert 'expected class "yes", got "no"' in miss.detail


def test_booleans_classify_by_their_json_spelling():
    assert score(BINARY, True, {"escalated": True}, targetOutputKey="escalated").verdict is Verdict.PASS
    assert score(BINARY, "true", {"escalated": True}, targetOutputKey="escalated").verdict is Verdict.PASS
    assert score(BINARY, False, {"escalated": True}, targetOutputKey="escalated").verdict is Verdict.FAIL


def test_expected_class_outside_classes_is_an_error():
    result = score(MULTI, "spam", {"label": "ham"}, classes=["ham", "eggs"], targetOutputKey="label")
    assert result.verdict is Verdict.ERROR and "not one of" in result.detail


def test_prediction_outside_classes_fails_saying_so():
    result = score(MULTI, "ham", {"label": "bacon"}, classes=["ham", "eggs"], targetOutputKey="label")
    assert result.verdict is Verdict.FAIL and "not one of the classes" in result.detail


def test_objects_are_not_labels_and_missing_paths_fail():
    whole = score(MULTI, "spam", "spam")  # the bare output is {"result": "spam"} under "*"
    assert whole.verdict is Verdict.FAIL and "not a class label" in whole.detail
    assert score(MULTI, "spam", "spam", targetOutputKey="result").verdict is Verdict.PASS
    missing = score(MULTI, "spam", {"other": 1}, targetOutputKey="label")
    assert missing.verdict is Verdict.FAIL and "label: missing" in missing.detail


def test_missing_expected_class_is_an_error():
    ev = evaluator(MULTI, {})
    scorer = scorer_for(MULTI)
    assert scorer is not None
    with pytest.raises(CriterionError, match="expectedClass"):
        scorer.score(ScoreInput(ev, {"expectedOutput": "spam"}, {"result": "spam"}))


@pytest.mark.parametrize(("type_id", "config", "needle"), [
    (BINARY, {"classes": ["a", "b", "c"]}, "exactly 2 classes"),
    (BINARY, {"classes": ["a", "b"], "positiveClass": "c"}, "positiveClass"),
    (MULTI, {"metricType": "accuracy"}, "metricType"),
    (MULTI, {"averaging": "weighted"}, "averaging"),
    (MULTI, {"classes": "a,b"}, "classes"),
    (MULTI, {"classes": ["a", "a"]}, "twice"),
])
def test_bad_config_is_reported_up_front(type_id: str, config: dict[str, Any], needle: str):
    scorer = scorer_for(type_id)
    assert scorer is not None
    assert needle in (scorer.check_config(evaluator(type_id, config)) or "")


def test_binary_set_metric():
    ev = evaluator(BINARY, {"classes": ["yes", "no"], "positiveClass": "yes", "metricType": "precision"})
    pairs = [("yes", "yes"), ("yes", "no"), ("no", "yes"), ("no", "no"), ("yes", "yes")]
    # tp = 2, fp = 1, fn = 1
    metric = set_metric(ev, pairs)
    assert metric is not None and metric.value == pytest.approx(2 / 3) and metric.rows == 5
    ev.config["metricType"] = "f-score"
    assert set_metric(ev, pairs).value == pytest.approx(2 / 3)  # type: ignore[union-attr]
    assert set_metric(evaluator(BINARY, {}), pairs) is None  # no positiveClass


def test_multiclass_set_metric_macro_and_micro():
    pairs = [("a", "a"), ("a", "b"), ("b", "b"), ("c", "c"), ("c", "a")]
    macro = set_metric(evaluator(MULTI, {"metricType": "precision", "averaging": "macro"}), pairs)
    # precision per class: a 1/2, b 1/2, c 1/1
    assert macro is not None and macro.value == pytest.approx((0.5 + 0.5 + 1) / 3)
    micro = set_metric(evaluator(MULTI, {"metricType": "recall", "averaging": "micro"}), pairs)
    assert micro is not None and micro.value == pytest.approx(3 / 5)
    assert set_metric(evaluator(MULTI, {}), []) is None


def test_result_pairs_reads_scored_results():
    ev = evaluator(MULTI, {"targetOutputKey": "label"})

    def result(verdict: Verdict, expected: str, label: str) -> Result:
        return Result("default", "s.json", "r", "r", "ev", verdict, 1.0, "", {"label": label}, expected)

    results = [result(Verdict.PASS, "a", "a"), result(Verdict.FAIL, "a", "b"), result(Verdict.ERROR, "a", "z")]
    assert result_pairs(ev, results) == [("a", "a"), ("a", "b")]
