"""targetOutputKey and expectedOutput as the SDK 2.14.44 reads them (values checked against the SDK)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from workbench.dialects.uipath_coded.outputs import (
    SelectionError,
    actual_value,
    expected_value,
    floats,
    path_parts,
    py_str,
    resolve,
)

OUTPUT = {"answer": "Paris", "a": 10, "b": {"items": [{"city": "Lyon"}, {"city": "Nice"}]}}


@pytest.mark.parametrize(("path", "parts"), [
    ("answer", ["answer"]),
    ("b.items[1].city", ["b", "items", 1, "city"]),
    ("[0]", [0]),
    ("a..b", ["a", "b"]),  # empty parts between dots are skipped
    ("a[x]", ["a", "x"]),  # a bracket that isn't [digits] is skipped, its inside read as a key
    ("with space", ["with space"]),
])
def test_path_parts_follow_the_sdk_grammar(path, parts):
    assert path_parts(path) == parts


@pytest.mark.parametrize("path", ["", "...", "[]"])
def test_a_path_without_parts_is_an_error(path):
    with pytest.raises(SelectionError, match="names no key"):
        path_parts(path)


def test_resolve_walks_keys_and_indexes():
    assert resolve(OUTPUT, "b.items[1].city") == "Nice"
    assert resolve(OUTPUT, "*") is OUTPUT


@pytest.mark.parametrize(("path", "words"), [
    ("missing", "the output has no key 'missing'"),
    ("b.items[5]", "the output at 'b.items' has 2 items, so no item [5]"),
    ("answer.x", "the output at 'answer' is a string, so it has no key 'x'"),
    ("b.items.city", "the output at 'b.items' is a list, so it has no key 'city'"),
    ("b[0]", "the output at 'b' is an object, so it has no item [0]"),
])
def test_what_is_not_there_is_an_error_in_words(path, words):
    with pytest.raises(SelectionError) as caught:
        resolve(OUTPUT, path)
    assert str(caught.value) == words


def test_numbers_become_floats_but_booleans_stay():
    normalised = floats({"a": [1, True, None, "5"], "b": 2.5, "c": (3,), "d": Decimal("1e400")})
    assert normalised == {"a": [1.0, True, None, "5"], "b": 2.5, "c": [3.0], "d": float("inf")}
    assert type(normalised["a"][0]) is float and normalised["a"][1] is True


def test_a_list_of_keys_selects_each_under_its_own_path():
    assert actual_value(OUTPUT, ["answer", "b.items[0].city"]) == {"answer": "Paris", "b.items[0].city": "Lyon"}
    assert actual_value(OUTPUT, []) == {}


def test_a_list_of_keys_needs_an_object_output():
    with pytest.raises(SelectionError, match="must be an object, not a list"):
        actual_value([1], ["a"])


def test_a_string_expectation_is_parsed_as_json_under_a_key():
    assert expected_value('{"answer": "Paris", "a": 5}', "a") == 5.0
    assert expected_value('{"answer": "Paris"}', ["answer"]) == {"answer": "Paris"}
    assert expected_value('{"answer": "Paris"}', "*") == '{"answer": "Paris"}'  # "*": kept as the string


def test_a_plain_string_expectation_under_a_key_is_an_error():
    with pytest.raises(SelectionError, match="must be the whole expected output"):
        expected_value("Paris", "answer")
    with pytest.raises(SelectionError, match="is a number, so it has no key 'answer'"):
        expected_value("5", "answer")  # JSON, but not an object


def test_a_list_of_keys_needs_an_object_expectation():
    with pytest.raises(SelectionError, match="expectedOutput must be an object, not a list"):
        expected_value("[1]", ["a"])


@pytest.mark.parametrize(("value", "text"), [
    (5, "5.0"),
    ({"a": 1}, "{'a': 1.0}"),
    (True, "True"),
    (None, "None"),
    (10**16, "1e+16"),
    (["x", 2], "['x', 2.0]"),
])
def test_compared_text_is_python_str_of_the_normalised_value(value, text):
    assert py_str(floats(value)) == text


def test_an_integer_too_large_for_a_float_is_an_error_saying_its_size_not_its_digits():
    """The SDK's evaluator fails on it ("int too large to convert to float"); the words must not hold 5,001 digits,
    nor need `str()` of them, which Python refuses past 4,300."""
    with pytest.raises(SelectionError) as caught:
        actual_value({"n": [1, 10**5000]}, "n")
    assert str(caught.value) == ("the output holds the integer 1.0000e+5000 (5,001 digits), too large for a float, "
                                 "which is what the SDK compares numbers as (its evaluator fails on it too)")
    with pytest.raises(SelectionError, match=r"^expectedOutput holds the integer -3\.0000e\+400 \(401 digits\)"):
        expected_value({"n": -3 * 10**400}, "n")
