"""uipath-json-similarity: leaf-by-leaf similarity, hand-computed expected scores."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from workbench.config import Config, ScoringConfig
from workbench.engine import wrap_output
from workbench.model import EvaluatorDef, Verdict
from workbench.scoring import CriterionError, Score, ScoreInput, scorer_for
from workbench.scoring.json_similarity import edit_distance, string_similarity

TYPE = "uipath-json-similarity"


def score(expected: Any, output: Any, config: Config | None = None, **ev_config: Any) -> Score:
    ev = EvaluatorDef("default", "ev", Path("ev.json"), None, None, TYPE, ev_config, {})
    scorer = scorer_for(TYPE)
    assert scorer is not None and scorer.check_config(ev) is None
    try:
        return scorer.score(ScoreInput(ev, {"expectedOutput": expected}, wrap_output(output), config=config))
    except CriterionError as exc:
        return Score.error(str(exc))


def test_leaf_scores_add_up_over_expected_leaves():
    expected = {"name": "kitten", "age": 40, "tags": ["a", "b"], "ok": True}
    actual = {"name": "sitting", "age": 30, "tags": ["a"], "ok": True, "extra": 1}
    # name: 1 - 3/7; age: 1 - 10/40; tags[0]: 1; tags[1] missing: 0; ok: 1  -> over 5 leaves
    result = score(expected, actual)
    assert result.score == pytest.approx((4 / 7 + 0.75 + 1 + 0 + 1) / 5)
    assert result.verdict is Verdict.FAIL
    assert "name: expected \"kitten\", got \"sitting\" (leaf 0.57)" in result.detail
    assert "tags[1]: missing from the actual output" in result.detail


def test_identical_output_scores_one_and_extra_keys_cost_nothing():
    result = score({"a": 1, "b": [1, 2]}, {"a": 1.0, "b": [1, 2, 3], "c": "extra"})
    assert (result.verdict, result.score) == (Verdict.PASS, 1.0)


def test_type_mismatch_scores_zero_for_every_leaf_below():
    result = score({"a": {"x": 1, "y": 2}, "b": "1"}, {"a": "str", "b": 1})
    assert result.score == 0.0
    assert "a: expected object, got string" in result.detail


def test_boolean_is_not_a_number():
    assert score({"v": True}, {"v": 1}).score == 0.0
    assert score({"v": 1}, {"v": True}).score == 0.0


def test_numbers_by_relative_difference_floored_at_zero():
    assert score({"n": 80}, {"n": 60}).score == pytest.approx(0.75)
    assert score({"n": 10}, {"n": 25}).score == 0.0
    assert score({"n": 0}, {"n": 0.0}).score == 1.0
    assert score({"n": 0}, {"n": 1e-13}).score == 1.0
    assert score({"n": 0}, {"n": 0.5}).score == 0.0


def test_strings_nulls_and_empty_expectations():
    assert score({"s": ""}, {"s": ""}).score == 1.0
    assert score({"s": "abc"}, {"s": ""}).score == 0.0
    assert score({"s": None}, {"s": None}).score == 1.0
    assert score({"s": None}, {"s": "x"}).score == 0.0
    empty = score({}, {"anything": 1})
    assert (empty.verdict, empty.score) == (Verdict.PASS, 1.0)


def test_missing_key_counts_all_its_leaves():
    # a.b and a.c missing (2 leaves), d matches: 1 of 3
    assert score({"a": {"b": 1, "c": 2}, "d": 3}, {"d": 3}).score == pytest.approx(1 / 3)


def test_target_output_key_and_pass_threshold():
    expected = {"details": {"score": 80}, "ignored": "x"}
    actual = {"details": {"score": 60}}
    assert score(expected, actual, targetOutputKey="details.score").verdict is Verdict.FAIL
    passing = score(expected, actual, targetOutputKey="details.score", passThreshold=0.7)
    assert (passing.verdict, passing.score) == (Verdict.PASS, 0.75)
    assert "pass threshold 0.7" in passing.detail


def test_project_default_threshold_applies_without_pass_threshold():
    config = Config(root=Path("."), scoring=ScoringConfig(pass_threshold=0.6))
    assert score({"n": 80}, {"n": 60}, config).verdict is Verdict.PASS


def test_path_missing_from_expected_is_an_error_and_from_actual_scores_zero():
    assert score({"a": 1}, {"b": 1}, targetOutputKey="b").verdict is Verdict.ERROR
    missing = score({"b": {"x": 1, "y": 2}}, {"a": 1}, targetOutputKey="b")
    assert (missing.verdict, missing.score) == (Verdict.FAIL, 0.0)


def test_several_paths_pool_their_leaves():
    expected = {"a": 10, "b": "same", "c": "ignored"}
    result = score(expected, {"a": 5, "b": "same"}, targetOutputKey=["a", "b"])
    assert result.score == pytest.approx((0.5 + 1) / 2)


def test_expected_output_as_json_string_is_parsed():
    assert score('{"a": 1}', {"a": 1}).score == 1.0


def test_deep_nesting_does_not_hit_the_recursion_limit():
    expected: Any = "leaf"
    actual: Any = "leaf"
    for _ in range(5000):
        expected, actual = {"k": expected}, {"k": actual}
    assert score(expected, actual).score == 1.0


def test_edit_distance_and_long_strings():
    assert edit_distance("kitten", "sitting") == 3
    assert edit_distance("", "abc") == 3
    assert string_similarity("flaw", "lawn") == (0.5, False)
    # a 10,000-character string with one change: the common ends are trimmed, so it stays exact
    long = "x" * 5000 + "ab" + "y" * 5000
    similarity, approximate = string_similarity(long, long.replace("ab", "ba"))
    assert not approximate and similarity == pytest.approx(1 - 2 / len(long))
    # two 8,000-character texts with nothing in common at the ends are still compared exactly
    a, b = "ab" * 4000, "ba" * 4000
    assert string_similarity(a, b) == (pytest.approx(1 - 2 / 8000), False)
    # beyond the exact limit the similarity is approximate, and the detail says so
    huge = score({"s": "a" * 25_000 + "b"}, {"s": "c" + "a" * 25_000})
    assert "approximately" in huge.detail


def reference_distance(a: str, b: str) -> int:
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        previous, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (ca != cb))
    return row[-1]


@given(st.text(alphabet="abcé ", max_size=40), st.text(alphabet="abcé ", max_size=40))
def test_edit_distance_matches_the_textbook_table(a: str, b: str):
    assert edit_distance(a, b) == reference_distance(a, b)
