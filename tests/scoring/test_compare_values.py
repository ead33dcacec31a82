"""The value rules of `uipath-exact-match` (seed 003 rule 4), and the FAIL explanations a user reads."""

from __future__ import annotations

import copy

import pytest

from workbench import jsonio
from workbench.compare import differences, explain, first_mismatch, format_path, strict_equal


def same(actual, expected) -> bool:
    """strict_equal, checked both ways round (the verdict must not depend on which side is which)."""
    forward, backward = strict_equal(actual, expected), strict_equal(expected, actual)
    assert forward == backward, f"asymmetric: {actual!r} vs {expected!r}"
    assert (differences(actual, expected) == []) == forward
    return forward


def explanation(actual, expected) -> str:
    return "\n".join(explain(actual, expected))


# -- key order, key names, casing ------------------------------------------------------------------------


def test_key_order_is_ignored():
    assert same({"a": 1, "b": {"x": 1, "y": 2}}, {"b": {"y": 2, "x": 1}, "a": 1})


def test_key_casing_must_match_and_the_explanation_says_so():
    assert not same({"sum": 5}, {"Sum": 5})
    text = explanation({"sum": 5}, {"Sum": 5})
    assert "Sum" in text and "sum" in text and "case-sensitive" in text


def test_key_names_must_match():
    assert not same({"total": 5}, {"sum": 5})
    text = explanation({"total": 5}, {"sum": 5})
    assert "sum: missing from the actual output (expected 5)" in text
    assert "total: not in expectedOutput (actual has 5)" in text


def test_extra_or_missing_keys_fail():
    assert not same({"a": 1, "b": 2}, {"a": 1})
    assert not same({"a": 1}, {"a": 1, "b": 2})


# -- value types ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("actual", "expected", "words"),
    [
        (True, 1, ("true", "boolean", "1", "number")),
        (1, True, ("1", "number", "true", "boolean")),
        (0, False, ("0", "number", "false", "boolean")),
        (False, 0, ("false", "boolean", "0", "number")),
        ("100", 100, ('"100"', "string", "100", "number")),
        (100, "100", ('"100"', "string", "100", "number")),
        (None, False, ("null", "false")),
        ("", None, ('""', "null")),
        ([], {}, ("array", "object")),
    ],
)
def test_value_types_must_match(actual, expected, words):
    assert not same({"v": actual}, {"v": expected})
    text = explanation({"v": actual}, {"v": expected})
    assert text.startswith("v: ")
    for word in words:
        assert word in text


def test_bool_vs_number_inside_nested_structures():
    assert not same({"a": [1, {"b": True}]}, {"a": [1, {"b": 1}]})
    assert explanation({"a": [1, {"b": True}]}, {"a": [1, {"b": 1}]}) == \
        "a[1].b: expected 1 (number), got true (boolean)"


@pytest.mark.parametrize(("actual", "expected"), [(85, 85.0), (85.0, 85), (0, 0.0), (-0.0, 0), (1e20, 10**20)])
def test_numbers_compare_by_value_whatever_their_spelling(actual, expected):
    assert same({"score": actual}, {"score": expected})
    assert same([actual], [expected])


def test_85_equals_85_point_0_after_json_parsing_too():
    assert same(jsonio.loads('{"score": 85}'), jsonio.loads('{"score": 85.0}'))
    assert not same(jsonio.loads('{"score": 85}'), jsonio.loads('{"score": 85.5}'))


# -- exact integers at any size ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("actual", "expected"),
    [
        (2**64 + 1, 2**64),
        (2**63, 2**63 - 1),
        (-(2**64) - 1, -(2**64)),
        (10**40 + 1, 10**40),
        (2**64 + 1, float(2**64)),  # the float nearest to 2**64+1 is 2**64: still different numbers
        (2**53 + 1, float(2**53)),
        (10**30, 1e30),  # 1e30 as a double is 1000000000000000019884624838656
    ],
)
def test_different_integers_never_compare_equal_whatever_their_size(actual, expected):
    assert not same({"n": actual}, {"n": expected})
    text = explanation({"n": actual}, {"n": expected})
    assert text.startswith("n: expected ")
    assert str(actual) in text


def test_an_int_and_a_float_that_differ_are_explained_as_numbers_not_as_a_type_change():
    assert explain({"n": 2**64 + 1}, {"n": float(2**64)}) == [
        "n: expected 1.8446744073709552e+19, got 18446744073709551617"]


def test_big_integers_that_came_through_json_parsing_stay_distinct():
    actual = jsonio.loads('{"id": 18446744073709551617, "ids": [9223372036854775808]}')
    expected = jsonio.loads('{"id": 18446744073709551616, "ids": [9223372036854775808]}')
    assert not same(actual, expected)
    assert "id: expected 18446744073709551616, got 18446744073709551617" in explanation(actual, expected)
    assert same(actual, jsonio.loads('{"ids": [9223372036854775808], "id": 18446744073709551617}'))


def test_equal_big_integers_are_equal():
    assert same({"n": 2**100}, {"n": 2**100})
    assert same({"n": float(2**60)}, {"n": 2**60})  # exactly representable: the same number


def test_huge_non_integers_from_json_compare_exactly():
    assert not same(jsonio.loads("[1e400]"), jsonio.loads("[2e400]"))
    assert same(jsonio.loads("[1e400]"), jsonio.loads("[10e399]"))


# -- arrays and null ---------------------------------------------------------------------------------------


def test_arrays_compare_in_order():
    assert same({"a": [1, 2, 3]}, {"a": [1, 2, 3]})
    assert not same({"a": [1, 2]}, {"a": [2, 1]})
    assert "a[0]: expected 2, got 1" in explanation({"a": [1, 2]}, {"a": [2, 1]})


def test_array_length_must_match_and_the_explanation_names_the_item():
    assert not same({"a": [1, 2, 3]}, {"a": [1, 2]})
    assert "a[2]: extra item in the actual output (3)" in explanation({"a": [1, 2, 3]}, {"a": [1, 2]})
    assert "a[2]: item missing from the actual output (expected 3)" in explanation({"a": [1, 2]}, {"a": [1, 2, 3]})


def test_null_is_not_an_absent_key():
    assert not same({"a": None}, {})
    assert not same({}, {"a": None})
    assert same({"a": None}, {"a": None})
    assert "a: not in expectedOutput (actual has null)" in explanation({"a": None}, {})
    assert "a: missing from the actual output (expected null)" in explanation({}, {"a": None})


# -- explanations -----------------------------------------------------------------------------------------


def test_a_fail_explains_every_place_that_differs_with_its_path():
    actual = {"grade": "FAIL", "details": {"rawScore": 50, "band": "fail", "outOf": 100}}
    expected = {"grade": "PASS", "details": {"rawScore": 50, "band": "pass", "outOf": 100}}
    assert explain(actual, expected) == [
        'details.band: expected "pass", got "fail"',
        'grade: expected "PASS", got "FAIL"',
    ]


def test_the_explanation_can_be_prefixed_with_the_selected_path():
    assert explain(50, 51, prefix="details.rawScore") == ["details.rawScore: expected 51, got 50"]


def test_odd_keys_are_quoted_in_paths():
    assert format_path(("a", "odd key", 2, "x")) == 'a["odd key"][2].x'
    assert format_path(()) == "(whole output)"
    assert "1abc" in format_path(("1abc",))


def test_the_explanation_is_capped_for_huge_differences():
    actual = {f"k{i}": i for i in range(100)}
    expected = {f"k{i}": i + 1 for i in range(100)}
    lines = explain(actual, expected, limit=5)
    assert len(lines) == 6 and lines[-1].startswith("… and more differences")


def test_long_values_are_shortened_in_the_explanation():
    text = explanation({"s": "x" * 5000}, {"s": "y" * 5000})
    assert len(text) < 400 and "…" in text


def test_first_mismatch_names_the_first_differing_place():
    assert first_mismatch({"a": [1, {"b": 2}]}, {"a": [1, {"b": 3}]}) == (("a", 1, "b"), 2, 3)
    assert first_mismatch({"a": 1}, {"a": 1.0}) is None
    assert first_mismatch(True, 1) == ((), True, 1)


# -- robustness -------------------------------------------------------------------------------------------


def _nested(depth: int, leaf):
    value = leaf
    for _ in range(depth):
        value = {"a": [value]}
    return value


def test_values_nested_beyond_the_recursion_limit_still_get_a_verdict():
    deep = _nested(5000, 1)
    assert strict_equal(deep, _nested(5000, 1.0))
    assert not strict_equal(deep, _nested(5000, True))
    found = differences(deep, _nested(5000, 2))
    assert found and found[0].expected == 2 and found[0].actual == 1
    assert "(depth 10000)" in explain(deep, _nested(5000, 2))[0]
    # deep down, a casing mistake is still explained as one
    text = explanation(_nested(3000, {"sum": 5}), _nested(3000, {"Sum": 5}))
    assert "(depth 6001)" in text and "case-sensitive" in text


def test_large_nearly_equal_outputs_are_explained_quickly():
    actual = {"items": [{"id": i, "name": f"item {i}", "tags": ["a", "b"]} for i in range(20_000)]}
    expected = copy.deepcopy(actual)
    expected["items"][12_345]["name"] = "changed"
    assert explain(actual, expected) == ['items[12345].name: expected "changed", got "item 12345"']
