"""uipath-json-similarity's leaf score (values checked against the SDK 2.14.44)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.dialects.uipath_coded.similarity import leaves, levenshtein, similarity


@pytest.mark.parametrize(("a", "b", "distance"), [
    ("kitten", "sitting", 3), ("", "abc", 3), ("abc", "", 3), ("abc", "abc", 0), ("Straße", "strasse", 3),
    ("Paris", "paris", 1),
])
def test_levenshtein(a, b, distance):
    assert levenshtein(a, b) == distance == levenshtein(b, a)


def textbook(source: str, target: str) -> int:
    """The edit distance by the full table, the definition the bit-vector version must agree with."""
    table = [[i + j if i == 0 or j == 0 else 0 for j in range(len(target) + 1)] for i in range(len(source) + 1)]
    for i in range(1, len(source) + 1):
        for j in range(1, len(target) + 1):
            table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1,
                              table[i - 1][j - 1] + (source[i - 1] != target[j - 1]))
    return table[-1][-1]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="abcß€😀", max_size=80), st.text(alphabet="abcß€😀", max_size=80))
def test_levenshtein_is_the_textbook_distance(a, b):
    assert levenshtein(a, b) == textbook(a, b)


def test_levenshtein_of_long_strings_is_fast_and_exact():
    a, b = "ab" * 1000 + "x", "ba" * 1000
    assert levenshtein(a, b) == 2 == textbook(a, b)  # drop the first a, the x becomes the last a


def test_the_issues_example_one_number_off_by_a_tenth_of_two_leaves():
    found = similarity({"a": 10.0, "b": "x"}, {"a": 9.0, "b": "x"})
    assert (found.score, found.matched, found.total) == (pytest.approx(0.95, abs=1e-12), pytest.approx(1.9, abs=1e-12),
                                                         2.0)


@pytest.mark.parametrize(("expected", "actual", "score"), [
    ({"a": 1.0, "b": {"c": 1.0, "d": [1.0, 2.0]}}, {"a": 1.0}, 0.25),  # a missing key scores 0 for its leaves
    ({"a": [1.0]}, {"a": [1.0, 2.0], "z": 1.0}, 1.0),  # extra keys and items cost nothing
    ([1.0, 2.0], [1.0], 0.5),  # a missing item scores 0
    ({"a": "5"}, {"a": 5.0}, 0.0),  # kinds differ
    ({"a": True}, {"a": 1.0}, 0.0),  # a boolean is not a number here
    (0.0, 1e-13, 1.0), (0.0, 0.001, 0.0),  # an expected 0 needs an actual within 1e-12
    (10.0, 30.0, 0.0), (10.0, 12.5, 0.75), (-4.0, -5.0, 0.75),
    ("Paris", "paris", 0.8), ("", "", 1.0), ("", "x", 0.0),
    ({}, {"a": 1.0}, 1.0), ([], [], 1.0), ({"a": []}, {"a": 5.0}, 1.0),  # no leaves expected: 1
    (None, None, 1.0), (None, "None", 0.0),
    ({"a": {"b": "Lyon"}}, {"a": "Lyon"}, 0.0),
    # the SDK's arithmetic, kept (not the core json-similarity's 0 for a non-finite number): an expected 1e400 reads
    # as inf, and inf / inf is nan, which its clamp max(0, min(1, 1 - nan)) turns into 1
    (float("inf"), 5.0, 1.0), (5.0, float("inf"), 0.0), (float("inf"), float("inf"), 1.0),
])
def test_leaf_scores(expected, actual, score):
    assert similarity(expected, actual).score == pytest.approx(score, abs=1e-12)


def test_leaves_counts_only_what_is_not_a_container():
    assert leaves({"a": [1, {"b": 2}], "c": {}}) == 2
    assert leaves("x") == 1
