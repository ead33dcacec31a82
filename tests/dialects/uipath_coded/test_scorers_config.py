"""What the coded evaluator types accept in `evaluatorConfig` and a row's criterion, as the SDK 2.14.44's
validation does, refused in words that name the evaluator; and the verdict's threshold."""

from __future__ import annotations

import pytest
from coded_scoring import SCORERS, evaluator, score, settings

from workbench.dialects.uipath_coded.scorers import hosted_only
from workbench.model import Verdict
from workbench.scoring.base import CriterionError, ScoreInput

EXACT, CONTAINS, JSON = "uipath-exact-match", "uipath-contains", "uipath-json-similarity"
ORDER = "uipath-tool-call-order"


def problem(type_id: str, **config) -> str | None:
    return SCORERS[type_id].check_config(evaluator(type_id, **config))


def test_config_values_the_sdk_coerces_are_accepted():
    assert problem(EXACT, caseSensitive="true", negated=0, targetOutputKey=["a", "b.c"]) is None
    assert problem(EXACT, case_sensitive=True) is None  # snake_case too
    assert problem(EXACT, caseSensitivity=True, somethingElse=[1]) is None  # unknown keys are ignored, as there
    assert score(EXACT, {"expectedOutput": {"a": "X"}}, {"a": "x"}, targetOutputKey="a",
                 caseSensitive="true").score == 0.0


@pytest.mark.parametrize(("type_id", "config", "words"), [
    (EXACT, {"caseSensitive": 2}, "evaluatorConfig.caseSensitive must be true or false, not 2"),
    (EXACT, {"targetOutputKey": 5}, "evaluatorConfig.targetOutputKey must be \"*\", a key path"),
    (CONTAINS, {"negated": "maybe"}, "evaluatorConfig.negated must be true or false"),
    (ORDER, {"strict": [True]}, "evaluatorConfig.strict must be true or false"),
    (CONTAINS, {"defaultEvaluationCriteria": {"searchText": 5}},
     "evaluatorConfig.defaultEvaluationCriteria.searchText must be a string, not 5"),
    (EXACT, {"aggregators": [{"type": "precision", "averaging": "macro"}]}, "aggregators need a classes list"),
    (EXACT, {"classes": ["a", "A"], "aggregators": [{"type": "recall", "averaging": "micro"}]},
     "distinct ignoring case"),
    ("uipath-binary-classification", {}, "evaluatorConfig.positiveClass is missing"),
    ("uipath-multiclass-classification", {"classes": ["a"], "averaging": "mean"},
     "evaluatorConfig.averaging must be 'micro' or 'macro', not \"mean\""),
])
def test_config_the_sdk_refuses_at_load_is_refused_in_words(type_id, config, words):
    found = problem(type_id, **config)
    assert found is not None and words in found


def test_hosted_only_judges_have_words_but_no_scorer():
    found = hosted_only("uipath-llm-judge-trajectory-similarity")
    assert found is not None and "UiPath's hosted models" in found and "[judge]" in found
    assert "uipath-llm-judge-trajectory-similarity" not in SCORERS  # other formats' unknown-type ERROR unchanged
    assert hosted_only("uipath-exact-match") is None


def test_a_hosted_only_judge_is_an_error_saying_so_with_the_formats_own_types_only():
    from workbench.scoring import unsupported_message

    said = unsupported_message("uipath-llm-judge-trajectory-similarity", "uipath-coded")
    assert said.startswith("unsupported evaluator type 'uipath-llm-judge-trajectory-similarity': an LLM judge that "
                           "runs only on UiPath's hosted models")
    assert "uipath-tool-call-order" in said and "workbench-scenario-expect" not in said


@pytest.mark.parametrize(("type_id", "criterion", "words"), [
    (CONTAINS, {"other": 1}, "evaluationCriterias['E'].searchText is missing; write e.g. {\"searchText\": \"Paris\"}"),
    (CONTAINS, {"searchText": 5}, "evaluationCriterias['E'].searchText must be a string, not 5"),
    (EXACT, {"expectedOutput": 5}, "evaluationCriterias['E'].expectedOutput must be an object or a string, not 5"),
    (EXACT, {"expectedOutput": [1]}, "must be an object or a string"),
    (ORDER, {"toolCallsOrder": ["a", 1]}, "evaluationCriterias['E'].toolCallsOrder[1] must be a string, not 1"),
    ("uipath-tool-call-count", {"toolCallsCount": {"a": 1}}, "toolCallsCount['a'] must be a comparator and a count"),
    ("uipath-tool-call-count", {"toolCallsCount": {"a": ["=", 1.5]}}, "toolCallsCount['a'][1] must be a whole number"),
    ("uipath-tool-call-args", {"toolCalls": [{"name": "a"}]}, "toolCalls[0].args is missing"),
    ("uipath-tool-call-output", {"toolOutputs": [{"name": "a", "output": 5}]},
     "toolOutputs[0].output must be a string"),
])
def test_a_criterion_the_sdk_refuses_is_a_criterion_error_naming_the_evaluator(type_id, criterion, words):
    with pytest.raises(CriterionError) as caught:
        score(type_id, criterion)
    assert words in str(caught.value)


def test_an_empty_criterion_takes_the_default_or_says_there_is_none():
    assert score(CONTAINS, None, {"result": "in Paris"}, defaultEvaluationCriteria={"searchText": "paris"}).score == 1.0
    assert score(CONTAINS, {}, {"result": "in Paris"}, defaultEvaluationCriteria={"searchText": "lyon"}).score == 0.0
    with pytest.raises(CriterionError, match="is empty and evaluator 'E' has no defaultEvaluationCriteria"):
        score(CONTAINS, {}, {"result": "x"})


def test_the_camel_case_key_wins_over_the_snake_case_one():
    assert score(EXACT, {"expectedOutput": "x", "expected_output": "y"}, {"result": "y"}, targetOutputKey="result",
                 ).verdict is Verdict.ERROR  # "x" is read (and isn't JSON under a key)
    assert score(EXACT, {"expected_output": {"result": "y"}}, {"result": "y"}, targetOutputKey="result").score == 1.0


def test_graded_scores_pass_at_the_threshold_and_booleans_only_at_one():
    criterion = {"expectedOutput": {"a": 10, "b": "x"}}
    output = {"a": 9, "b": "x"}
    assert score(JSON, criterion, output, config=None).verdict is Verdict.FAIL  # no settings: 1.0
    assert score(JSON, criterion, output, config=settings(0.95)).verdict is Verdict.PASS
    assert score(JSON, criterion, output, config=settings(0.9, E=1.0)).verdict is Verdict.FAIL
    exact = score(EXACT, {"expectedOutput": {"a": 8}}, output, targetOutputKey="a", config=settings(0.0))
    assert (exact.verdict, exact.score) == (Verdict.FAIL, 0.0)
    assert "threshold" not in exact.detail


def test_a_sum_of_fractions_just_below_the_threshold_reaches_it():
    # leaves of 0.09999999999999998 and 0.7: the score is 0.39999999999999997, which reaches 0.4
    result = score(JSON, {"expectedOutput": {"a": 10, "b": 10}}, {"a": 1, "b": 7}, config=settings(0.4))
    assert result.score < 0.4
    assert result.verdict is Verdict.PASS


def test_score_needs_no_settings_section_to_run():
    ev = evaluator(JSON)
    result = SCORERS[JSON].score(ScoreInput(ev, {"expectedOutput": {"a": 1}}, {"a": 1}))
    assert (result.verdict, result.score) == (Verdict.PASS, 1.0)
