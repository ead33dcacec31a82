"""The coded format's output evaluator types (exact match, contains, json similarity, classification, line by
line): every score here is the one the SDK 2.14.44 gives for the same evaluator, criterion and output."""

from __future__ import annotations

import pytest
from coded_scoring import SCORERS, score, settings

from workbench.model import Verdict

EXACT, CONTAINS, JSON = "uipath-exact-match", "uipath-contains", "uipath-json-similarity"
PARIS = {"answer": "The Capital of France is Paris", "a": 10}


def test_exact_match_ignores_case_unless_case_sensitive():
    criterion = {"expectedOutput": {"answer": "the capital of france is paris"}}
    ignoring = score(EXACT, criterion, PARIS, targetOutputKey="answer")
    assert (ignoring.verdict, ignoring.score) == (Verdict.PASS, 1.0)
    assert "ignoring case" in ignoring.detail
    sensitive = score(EXACT, criterion, PARIS, targetOutputKey="answer", caseSensitive=True)
    assert (sensitive.verdict, sensitive.score) == (Verdict.FAIL, 0.0)
    assert sensitive.expected == {"answer": "the capital of france is paris"}  # as written, for accept


def test_exact_match_of_a_string_against_the_whole_output_compares_python_text():
    # "*" selects the whole output object, whose text is "{'answer': ...}": a plain string never equals it
    assert score(EXACT, {"expectedOutput": "The Capital of France is Paris"}, PARIS).score == 0.0
    assert score(EXACT, {"expectedOutput": "{'answer': 'the capital of france is paris', 'a': 10.0}"},
                 PARIS).score == 1.0


@pytest.mark.parametrize(("expected", "output", "matched"), [
    ({"a": True}, {"a": 1}, 1.0),  # Python ==: true equals 1
    ({"a": 5}, {"a": 5.0}, 1.0),  # numbers as floats
    ({"a": "5.0"}, {"a": 5}, 1.0),  # one side a string: str(5.0) == "5.0"
    ({"a": "5"}, {"a": 5}, 0.0),
    ({"a": [1, {"b": None}]}, {"a": [1.0, {"b": None}]}, 1.0),
    ({"a": {"b": 1}}, {"a": {"b": 1, "c": 2}}, 0.0),  # no extra keys, unlike json similarity
])
def test_exact_match_values(expected, output, matched):
    assert score(EXACT, {"expectedOutput": expected}, output, targetOutputKey="a").score == matched


def test_exact_match_with_a_list_of_keys_compares_objects_so_case_counts():
    criterion = {"expectedOutput": {"answer": "the capital of france is paris", "a": 10, "z": 1}}
    assert score(EXACT, criterion, PARIS, targetOutputKey=["a"]).score == 1.0
    assert score(EXACT, criterion, PARIS, targetOutputKey=["answer", "a"]).score == 0.0  # dict ==, not text


def test_negated_flips_the_result():
    result = score(EXACT, {"expectedOutput": {"a": 9}}, PARIS, targetOutputKey="a", negated=True)
    assert (result.verdict, result.score) == (Verdict.PASS, 1.0)
    assert "negated" in result.detail
    assert score(CONTAINS, {"searchText": "PARIS"}, PARIS, targetOutputKey="answer", negated=True).score == 0.0


def test_a_string_expectation_under_a_key_is_json_of_the_whole_output():
    assert score(EXACT, {"expectedOutput": '{"answer": "the capital of france is paris"}'}, PARIS,
                 targetOutputKey="answer").score == 1.0
    result = score(EXACT, {"expectedOutput": "the capital of france is paris"}, PARIS, targetOutputKey="answer")
    assert result.verdict is Verdict.ERROR
    assert result.detail.startswith("E: expectedOutput is a string that is not JSON")


@pytest.mark.parametrize("key", ["missing", "answer.x", "a[0]"])
def test_a_key_not_in_the_output_is_an_error(key):
    result = score(EXACT, {"expectedOutput": {"answer": "x", "missing": 1}}, PARIS, targetOutputKey=key)
    assert result.verdict is Verdict.ERROR and result.score == 0.0


def test_json_similarity_scores_leaves_and_passes_at_the_threshold():
    criterion = {"expectedOutput": {"answer": "The Capital of France is Paris", "a": 9}}
    output = {**PARIS, "a": 9.9}  # a off by 0.9 of 9 → 0.9 of a leaf
    plain = score(JSON, {"expectedOutput": {"answer": "The Capital of France is Paris", "a": 10}},
                  {**PARIS, "a": 9})
    assert plain.score == pytest.approx(0.95, abs=1e-12)
    assert plain.verdict is Verdict.FAIL and "matched 1.9 of 2 leaves" in plain.detail
    assert score(JSON, criterion, output).score == pytest.approx(0.95, abs=1e-12)
    assert score(JSON, criterion, output, config=settings(0.95)).verdict is Verdict.PASS
    assert score(JSON, criterion, output, config=settings(1.0, E=0.9)).verdict is Verdict.PASS
    assert score(JSON, criterion, output, config=settings(0.5, E=0.99)).verdict is Verdict.FAIL
    assert score(JSON, criterion, output).expected == criterion["expectedOutput"]


def test_json_similarity_under_a_list_of_keys():
    criterion = {"expectedOutput": {"answer": "The Capital of France is Paris", "a": 20, "other": "x"}}
    assert score(JSON, criterion, PARIS, targetOutputKey=["answer", "a"]).score == pytest.approx(0.75, abs=1e-12)


def test_contains_ignores_case_unless_case_sensitive():
    assert score(CONTAINS, {"searchText": "PARIS"}, PARIS, targetOutputKey="answer").score == 1.0
    result = score(CONTAINS, {"searchText": "PARIS"}, PARIS, targetOutputKey="answer", caseSensitive=True)
    assert (result.verdict, result.score, result.expected) == (Verdict.FAIL, 0.0, "PARIS")


@pytest.mark.parametrize(("search", "output", "found"), [
    ("5.0", {"result": 5}, 1.0),  # the number's text is "5.0"
    ("'answer'", PARIS, 1.0),  # "*": the whole output as Python prints it
    ("true", {"result": True}, 1.0),  # "True", lower-cased
    ("", {"result": "anything"}, 1.0),  # an empty searchText is in every text
])
def test_contains_searches_python_text(search, output, found):
    assert score(CONTAINS, {"searchText": search}, output).score == found


def test_lower_is_not_casefold():
    assert score(CONTAINS, {"searchText": "strasse"}, {"result": "Straße"}).score == 0.0


def test_line_by_line_scores_the_mean_of_the_lines():
    output = {"text": "Paris\nLyon\nNice"}
    criterion = {"expectedOutput": {"text": "paris\nLyon\n\nNicer"}}  # blank lines dropped: 3 lines each
    result = score(EXACT, criterion, output, targetOutputKey="text", lineByLineEvaluator=True)
    assert result.score == pytest.approx(2 / 3, abs=1e-12)
    assert result.verdict is Verdict.FAIL and "mean of 3 lines" in result.detail
    similar = score(JSON, criterion, output, targetOutputKey="text", lineByLineEvaluator=True)
    assert similar.score == pytest.approx((0.8 + 1 + 0.8) / 3, abs=1e-12)  # paris/Paris 0.8, Nice/Nicer 0.8
    lines = score(CONTAINS, {"searchText": "i"}, output, targetOutputKey="text", lineByLineEvaluator=True)
    assert lines.score == pytest.approx(2 / 3, abs=1e-12)  # "Lyon" has no i


def test_line_by_line_under_a_dotted_key_scores_every_line_zero():
    # the SDK wraps each line as {"a.b": line}, where the path a.b isn't found: each line scores 0
    result = score(EXACT, {"expectedOutput": {"a": {"b": "x\ny"}}}, {"a": {"b": "x\ny"}}, targetOutputKey="a.b",
                   lineByLineEvaluator=True)
    assert result.score == 0.0


def test_line_by_line_is_not_applied_to_a_list_of_keys():
    assert score(EXACT, {"expectedOutput": {"t": "a\nb"}}, {"t": "a\nb"}, targetOutputKey=["t"],
                 lineByLineEvaluator=True).score == 1.0


def test_binary_classification_compares_labels_ignoring_case():
    assert score("uipath-binary-classification", {"expectedClass": "YES"}, {"label": "yes"},
                 targetOutputKey="label", positiveClass="Yes").score == 1.0
    empty = score("uipath-binary-classification", {"expectedClass": "x"}, {"label": "x"}, targetOutputKey="label",
                  positiveClass="")
    assert empty.verdict is Verdict.ERROR and "positiveClass is empty" in empty.detail


def test_multiclass_labels_must_be_classes():
    def multi(expected: str, label: str):
        return score("uipath-multiclass-classification", {"expectedClass": expected}, {"label": label},
                     targetOutputKey="label", classes=["a", "B"])
    assert (multi("b", "B").score, multi("a", "b").score) == (1.0, 0.0)
    assert multi("c", "B").verdict is Verdict.ERROR
    assert "predicted class 'z'" in multi("a", "z").detail


def test_only_the_output_criteria_types_use_expected_output():
    using = {type_id for type_id, scorer in SCORERS.items() if scorer.uses_expected_output}
    assert using == {EXACT, JSON}
    assert all(scorer.default_criterion_allowed for scorer in SCORERS.values())
