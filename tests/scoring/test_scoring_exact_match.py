"""The `uipath-exact-match` scorer: targetOutputKey, output wrapping, expectedOutput handling, verdicts."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.engine import wrap_output
from workbench.model import EvaluatorDef, Verdict
from workbench.scoring import CriterionError, ScoreInput, scorer_for, supported_types, unsupported_message
from workbench.scoring.exact_match import ExactMatch, expected_output

_ABSENT = object()
OUTPUT = {"grade": "PASS", "details": {"rawScore": 85, "band": "distinction", "outOf": 100}}


def make_evaluator(target=_ABSENT) -> EvaluatorDef:
    config = {"name": "Exact Match"} if target is _ABSENT else {"name": "Exact Match", "targetOutputKey": target}
    return EvaluatorDef(scope="default", ref="exact-match-evaluator", path=Path("exact-match-evaluator.json"),
                        id="exact-001", name="Exact Match", type_id="uipath-exact-match", config=config, raw={})


def score(raw_output, expected, target=_ABSENT, *, criterion=None):
    """Score a target's RAW output the way the engine does: wrapped, then compared under the target."""
    evaluator = make_evaluator(target)
    assert ExactMatch().check_config(evaluator) is None
    data = ScoreInput(evaluator=evaluator, criterion=criterion or {"expectedOutput": expected},
                      output=wrap_output(raw_output))
    return ExactMatch().score(data)


# -- the whole output --------------------------------------------------------------------------------------


@pytest.mark.parametrize("target", ["*", "", None, _ABSENT])
def test_star_empty_or_absent_target_compares_the_whole_output(target):
    assert score(OUTPUT, {**OUTPUT}, target).verdict is Verdict.PASS
    extra = score({**OUTPUT, "debug": 1}, OUTPUT, target)
    assert extra.verdict is Verdict.FAIL
    assert "debug: not in expectedOutput (actual has 1)" in extra.detail


def test_a_pass_has_score_1_and_a_fail_score_0():
    assert score(OUTPUT, OUTPUT).score == 1.0
    assert score(OUTPUT, {"grade": "FAIL"}).score == 0.0


def test_the_sum_vs_Sum_failure_is_explained():
    result = score({"sum": 5}, {"Sum": 5})
    assert result.verdict is Verdict.FAIL
    assert "Sum: missing from the actual output" in result.detail
    assert "case-sensitive" in result.detail


# -- dotted paths --------------------------------------------------------------------------------------------


def test_a_dotted_path_compares_only_that_path_with_expected_output_kept_nested():
    expected = {"details": {"rawScore": 85}}
    result = score({**OUTPUT, "grade": "WHATEVER"}, expected, "details.rawScore")
    assert result.verdict is Verdict.PASS
    assert result.expected == expected  # the report shows the full expectedOutput


def test_a_dotted_path_that_differs_fails_naming_the_path():
    result = score(OUTPUT, {"details": {"rawScore": 84}}, "details.rawScore")
    assert result.verdict is Verdict.FAIL
    assert result.detail == "details.rawScore: expected 84, got 85"


def test_a_dotted_path_selecting_an_object_explains_inside_it():
    result = score(OUTPUT, {"details": {"rawScore": 85, "band": "merit", "outOf": 100}}, "details")
    assert result.verdict is Verdict.FAIL
    assert result.detail == 'details.band: expected "merit", got "distinction"'


def test_a_path_missing_on_both_sides_fails_instead_of_passing_vacuously():
    result = score(OUTPUT, {"grade": "PASS"}, "details.nothingHere")
    assert result.verdict is Verdict.FAIL
    assert "details.nothingHere: missing from both the output and expectedOutput" in result.detail


def test_a_path_missing_on_one_side_fails():
    missing_actual = score({"grade": "PASS"}, {"details": {"rawScore": 85}}, "details.rawScore")
    assert missing_actual.verdict is Verdict.FAIL
    assert missing_actual.detail == "details.rawScore: missing from the actual output"
    missing_expected = score(OUTPUT, {"grade": "PASS"}, "details.rawScore")
    assert missing_expected.verdict is Verdict.FAIL
    assert missing_expected.detail == "details.rawScore: missing from expectedOutput"


def test_a_path_whose_value_is_null_on_both_sides_passes():
    assert score({"a": {"b": None}}, {"a": {"b": None}}, "a.b").verdict is Verdict.PASS
    assert score({"a": {"b": None}}, {"a": {}}, "a.b").verdict is Verdict.FAIL


def test_a_list_index_in_a_path_is_not_followed():
    output = {"items": [{"id": 1}]}
    result = score(output, output, "items.0.id")
    assert result.verdict is Verdict.FAIL, "list indexes are not path segments; missing on both sides fails"
    assert "missing from both" in result.detail


def test_path_values_compare_strictly():
    assert score({"a": {"n": True}}, {"a": {"n": 1}}, "a.n").verdict is Verdict.FAIL
    assert score({"a": {"n": 85}}, {"a": {"n": 85.0}}, "a.n").verdict is Verdict.PASS
    assert score({"a": {"n": 2**64 + 1}}, {"a": {"n": 2**64}}, "a.n").verdict is Verdict.FAIL


# -- lists of paths -------------------------------------------------------------------------------------------


def test_a_list_of_paths_compares_every_listed_path():
    target = ["details.rawScore", "details.band"]
    expected = {"details": {"rawScore": 85, "band": "distinction"}}
    assert score({**OUTPUT, "grade": "ignored"}, expected, target).verdict is Verdict.PASS
    wrong = score(OUTPUT, {"details": {"rawScore": 85, "band": "merit"}}, target)
    assert wrong.verdict is Verdict.FAIL
    assert wrong.detail == 'details.band: expected "merit", got "distinction"'


def test_every_failing_path_of_a_list_is_reported():
    result = score(OUTPUT, {"grade": "FAIL"}, ["grade", "details.rawScore"])
    assert result.verdict is Verdict.FAIL
    assert result.detail.splitlines() == ['grade: expected "FAIL", got "PASS"',
                                          "details.rawScore: missing from expectedOutput"]


def test_an_empty_list_of_paths_fails():
    result = score(OUTPUT, OUTPUT, [])
    assert result.verdict is Verdict.FAIL
    assert "empty list" in result.detail


def test_a_list_with_star_compares_the_whole_output_too():
    assert score(OUTPUT, OUTPUT, ["*", "grade"]).verdict is Verdict.PASS
    assert score({**OUTPUT, "x": 1}, OUTPUT, ["*", "grade"]).verdict is Verdict.FAIL


@pytest.mark.parametrize("target", [5, True, {"a": 1}, [1], [["grade"]]])
def test_a_target_output_key_that_is_not_a_path_is_a_config_problem(target):
    problem = ExactMatch().check_config(make_evaluator(target))
    assert problem and "targetOutputKey" in problem


# -- bare outputs are wrapped ----------------------------------------------------------------------------------


@pytest.mark.parametrize("raw", [5, "hello", [1, 2], None, True, 2**64 + 1, []])
def test_a_bare_primitive_or_array_output_is_compared_as_result(raw):
    assert wrap_output(raw) == {"result": raw}
    assert score(raw, {"result": raw}).verdict is Verdict.PASS
    assert score(raw, {"result": raw}, "result").verdict is Verdict.PASS


def test_a_bare_output_does_not_equal_its_unwrapped_expectation():
    result = score(5, 5)
    assert result.verdict is Verdict.FAIL


def test_an_object_output_is_not_wrapped():
    assert wrap_output({"result": 1}) == {"result": 1}
    assert wrap_output({}) == {}


# -- expectedOutput ------------------------------------------------------------------------------------------


def test_expected_output_given_as_a_json_string_is_parsed():
    text = '{"grade": "PASS", "details": {"rawScore": 85, "band": "distinction", "outOf": 100}}'
    assert expected_output({"expectedOutput": text}, "ref") == OUTPUT
    assert score(OUTPUT, text).verdict is Verdict.PASS
    assert score(OUTPUT, '{"grade": "FAIL"}').verdict is Verdict.FAIL


def test_a_json_string_expectation_keeps_big_integers_exact():
    assert score({"id": 2**64 + 1}, '{"id": 18446744073709551617}').verdict is Verdict.PASS
    assert score({"id": 2**64 + 1}, '{"id": 18446744073709551616}').verdict is Verdict.FAIL


def test_a_plain_string_expectation_fails_with_a_hint():
    result = score(OUTPUT, "PASS")
    assert result.verdict is Verdict.FAIL
    assert "plain string" in result.detail and '{"result": ...}' in result.detail


def test_a_criterion_without_expected_output_is_an_error_naming_the_ref():
    with pytest.raises(CriterionError) as info:
        expected_output({"somethingElse": 1}, "exact-match-evaluator")
    assert "evaluationCriterias['exact-match-evaluator']" in str(info.value)
    assert "expectedOutput" in str(info.value)


def test_an_empty_expected_object_only_matches_an_empty_output():
    assert score({}, {}).verdict is Verdict.PASS
    assert score(OUTPUT, {}).verdict is Verdict.FAIL


# -- evaluator types ----------------------------------------------------------------------------------------


def test_an_unknown_evaluator_type_has_no_scorer_and_the_error_names_it():
    assert isinstance(scorer_for("uipath-exact-match"), ExactMatch)
    assert "uipath-exact-match" in supported_types()
    assert scorer_for("acme-no-such-evaluator") is None
    message = unsupported_message("acme-no-such-evaluator")
    assert message.startswith("unsupported evaluator type 'acme-no-such-evaluator'")
    assert "uipath-exact-match" in message
