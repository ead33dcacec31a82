"""`targetOutputKey`: what part of the output an evaluator compares (seed 003 rule 4)."""

from __future__ import annotations

import pytest

from workbench.output_paths import (
    MISSING,
    WHOLE,
    SelectionError,
    describe_target,
    normalize_target,
    select,
    select_pairs,
    set_path,
)

OUTPUT = {"grade": "PASS", "details": {"rawScore": 85, "band": None, "items": [{"x": 1}]}, "0": "zero"}


@pytest.mark.parametrize("target", ["*", "", None])
def test_star_empty_and_absent_select_the_whole_value(target):
    assert normalize_target(target) == [WHOLE]
    assert select(OUTPUT, normalize_target(target)[0]) is OUTPUT
    assert describe_target(target) == "the whole output"


def test_a_dotted_path_walks_dict_keys():
    assert select(OUTPUT, "details.rawScore") == 85
    assert select(OUTPUT, "grade") == "PASS"
    assert select(OUTPUT, "details") == OUTPUT["details"]


def test_a_key_holding_null_is_present_not_missing():
    assert select(OUTPUT, "details.band") is None


def test_missing_keys_select_nothing():
    assert select(OUTPUT, "details.missing") is MISSING
    assert select(OUTPUT, "nope.deeper") is MISSING
    assert select(OUTPUT, "grade.length") is MISSING  # a string has no keys
    assert select(OUTPUT, "Grade") is MISSING  # keys are case-sensitive


def test_a_list_index_is_not_a_path_segment():
    assert select(OUTPUT, "details.items.0") is MISSING
    assert select(OUTPUT, "details.items.0.x") is MISSING
    assert select([10, 20], "0") is MISSING
    # ...but a dict key that happens to be a digit is a key
    assert select(OUTPUT, "0") == "zero"


def test_a_list_of_paths_selects_each_one():
    assert normalize_target(["details.rawScore", "grade"]) == ["details.rawScore", "grade"]
    pairs = select_pairs(OUTPUT, {"grade": "FAIL"}, ["details.rawScore", "grade"])
    assert [(p.path, p.actual, p.expected) for p in pairs] == [
        ("details.rawScore", 85, MISSING),
        ("grade", "PASS", "FAIL"),
    ]
    assert describe_target(["details.rawScore", "grade"]) == "details.rawScore, grade"


def test_an_empty_list_selects_nothing():
    assert normalize_target([]) == []
    assert select_pairs(OUTPUT, OUTPUT, []) == []
    assert describe_target([]) == "nothing (empty list)"


def test_star_inside_a_list_is_the_whole_value():
    assert normalize_target(["*", "grade"]) == [WHOLE, "grade"]
    assert select_pairs(OUTPUT, OUTPUT, ["*"])[0].is_whole


@pytest.mark.parametrize("target", [5, True, {"path": "a"}, [1], ["a", None], [["a"]]])
def test_a_target_that_is_not_a_path_is_refused_with_a_reason(target):
    with pytest.raises(SelectionError) as info:
        normalize_target(target)
    assert "targetOutputKey" in str(info.value)
    assert describe_target(target) == repr(target)


def test_set_path_builds_nested_objects_without_touching_the_original():
    original = {"details": {"band": "pass"}}
    updated = set_path(original, "details.rawScore", 50)
    assert updated == {"details": {"band": "pass", "rawScore": 50}}
    assert original == {"details": {"band": "pass"}}
    assert set_path({}, "a.b.c", 1) == {"a": {"b": {"c": 1}}}
    assert set_path({"a": 1}, "*", {"whole": True}) == {"whole": True}


def test_set_at_writes_through_list_items_taking_the_outputs_list_where_the_expectation_lacks_the_item() -> None:
    """`output_paths.set_at`, which accept and add-row use for a format whose paths index lists: an existing
    item is updated in a copy; a missing or too-short list is taken whole from the output; objects are created."""
    from workbench.output_paths import MISSING, set_at

    output = {"meta": {"items": [{"name": "a"}, {"name": "b"}]}}
    expected = {"meta": {"items": [{"name": "a"}, {"name": "x", "keep": 1}]}, "other": 2}
    written = set_at(expected, ["meta", "items", 1, "name"], "b", output)
    assert written == {"meta": {"items": [{"name": "a"}, {"name": "b", "keep": 1}]}, "other": 2}
    assert expected["meta"]["items"][1]["name"] == "x", "the expectation given is not changed in place"
    assert set_at({"meta": {"items": []}}, ["meta", "items", 1, "name"], "b", output) == output
    assert set_at(MISSING, ["meta", "items", 1, "name"], "b", output) == output
    assert set_at({}, ["a", "b"], 1, {"a": {"b": 1}}) == {"a": {"b": 1}}
