"""Accept and add-row on files written every way people (and Studio Web) write them: the file still
parses, the change is exactly the intended one, and every other byte is unchanged."""

from __future__ import annotations

import json

import pytest
from helpers.writeback import (
    DETAILS,
    EXACT,
    GRADE,
    NEW_STAMP,
    STYLES,
    VARIANTS,
    assert_indentation,
    assert_line_endings,
    changed_region,
    clock,
    decoded,
    evaluators,
    expectation_span,
    fixture_bytes,
    load,
    ordered_keys,
    project,
    recorded,
    without_new_stamps,
)

from workbench.jsonio import UTF8_BOM
from workbench.writeback import apply_plan
from workbench.writeback.accept import plan_accept
from workbench.writeback.add_row import build_row, plan_add_row

CASES = [(style, variant) for style in STYLES for variant in VARIANTS]
NEW_OUTPUT = {"grade": "FAIL", "details": {"rawScore": 40, "band": "échec ✗", "outOf": 100}}


def _accept(tmp_path, style, variant, row, ref, actual):
    before = fixture_bytes(style, variant)
    root, path = project(tmp_path, before)
    doc = load(before)
    old = doc["evaluations"][row]["evaluationCriterias"][ref]["expectedOutput"]
    result = recorded(doc["evaluations"][row]["id"], ref, actual, decoded(old))
    plan = plan_accept(root, path, [result], evaluators(root), clock=clock)
    assert path.read_bytes() == before, "planning must not write"
    apply_plan(plan)
    return before, path.read_bytes(), plan


@pytest.mark.parametrize(("style", "variant"), CASES)
def test_accept_whole_output_changes_only_that_expectation(tmp_path, style, variant):
    before, after, plan = _accept(tmp_path, style, variant, 1, EXACT, NEW_OUTPUT)

    doc = load(after)
    written = doc["evaluations"][1]["evaluationCriterias"][EXACT]["expectedOutput"]
    assert decoded(written) == NEW_OUTPUT
    assert isinstance(written, str) == (style == "string_expected"), "a JSON-string expectation stays a string"
    expected_doc = load(before)
    expected_doc["evaluations"][1]["evaluationCriterias"][EXACT]["expectedOutput"] = written
    if style == "two_space":
        assert after.count(NEW_STAMP) == 2, "updatedAt of the row and of the set are refreshed"
        expected_doc["evaluations"][1]["updatedAt"] = expected_doc["updatedAt"] = json.loads(NEW_STAMP)
    assert doc == expected_doc

    start, end = expectation_span(before, 1, EXACT)
    first, last_before, last_after = changed_region(before, without_new_stamps(before, after))
    assert start <= first and last_before <= end, "bytes outside the expectation changed"
    assert_line_endings(after, variant)
    assert_indentation(after, first, last_after, style)
    if style == "escaped":
        assert after.removeprefix(UTF8_BOM).isascii() and b"\\u00e9chec \\u2717" in after
    else:
        assert "échec ✗".encode() in after
    assert [c.label for c in plan.changes] == [EXACT]


@pytest.mark.parametrize(("style", "variant"), CASES)
def test_accept_with_paths_sets_only_those_paths(tmp_path, style, variant):
    actual = {"grade": "PASS", "details": {"rawScore": 86, "band": "distinction", "outOf": 100}, "extra": 1}
    before, after, plan = _accept(tmp_path, style, variant, 0, DETAILS, actual)

    written = decoded(load(after)["evaluations"][0]["evaluationCriterias"][DETAILS]["expectedOutput"])
    note = decoded(load(before)["evaluations"][0]["evaluationCriterias"][DETAILS]["expectedOutput"])["note"]
    assert written == {"details": {"rawScore": 86, "band": "distinction"}, "note": note}
    start, end = expectation_span(before, 0, DETAILS)
    first, last_before, _ = changed_region(before, without_new_stamps(before, after))
    assert start <= first and last_before <= end
    assert (before[first:last_before], after[first:first + 1]) == (b"5", b"6"), "only the number changed"
    assert plan.changes[0].old == {"details": {"rawScore": 85, "band": "distinction"}, "note": note}
    assert plan.changes[0].new == written


@pytest.mark.parametrize(("style", "variant"), CASES)
def test_accept_with_paths_creates_missing_objects(tmp_path, style, variant):
    actual = {"grade": "FAIL", "details": {"rawScore": 40, "band": "fail"}}
    before, after, _ = _accept(tmp_path, style, variant, 1, DETAILS, actual)

    written = load(after)["evaluations"][1]["evaluationCriterias"][DETAILS]["expectedOutput"]
    assert decoded(written) == {"details": {"rawScore": 40, "band": "fail"}}
    start, end = expectation_span(before, 1, DETAILS)
    first, last_before, last_after = changed_region(before, without_new_stamps(before, after))
    assert start <= first and last_before <= end
    assert_line_endings(after, variant)
    assert_indentation(after, first, last_after, style)


@pytest.mark.parametrize("style", STYLES)
def test_accept_single_path_touches_one_value(tmp_path, style):
    before, after, _ = _accept(tmp_path, style, "lf", 1, GRADE, {"grade": "PASS", "details": {}})

    first, last_before, last_after = changed_region(before, without_new_stamps(before, after))
    assert (before[first:last_before], after[first:last_after]) == (b"FAIL", b"PASS")
    assert decoded(load(after)["evaluations"][1]["evaluationCriterias"][GRADE]["expectedOutput"]) == {"grade": "PASS"}


@pytest.mark.parametrize(("style", "variant"), CASES)
def test_add_row_appends_only_the_row(tmp_path, style, variant):
    before = fixture_bytes(style, variant)
    root, path = project(tmp_path, before)
    refs = load(before)["evaluatorRefs"]
    row, notes = build_row("score 95 — new", {"score": 95, "élève": "Zoë"},
                           {"grade": "PASS", "details": {"rawScore": 95, "band": "distinction"}},
                           refs, evaluators(root), row_id="new-row-id")
    assert notes == []
    plan = plan_add_row(root, path, row, clock=clock)
    assert path.read_bytes() == before
    apply_plan(plan)
    after = path.read_bytes()

    doc, old_doc = load(after), load(before)
    new = doc["evaluations"].pop()
    if style == "two_space":
        assert doc.pop("updatedAt") == json.loads(NEW_STAMP)
        old_doc.pop("updatedAt")
        assert new.pop("createdAt") == new.pop("updatedAt") == json.loads(NEW_STAMP)
    assert doc == old_doc, "nothing but the new row (and the set's updatedAt) changed"
    assert new == {
        "id": "new-row-id", "name": "score 95 — new", "inputs": {"score": 95, "élève": "Zoë"},
        "evaluationCriterias": {
            EXACT: {"expectedOutput": {"grade": "PASS", "details": {"rawScore": 95, "band": "distinction"}}},
            GRADE: {"expectedOutput": {"grade": "PASS"}},
            DETAILS: {"expectedOutput": {"details": {"rawScore": 95, "band": "distinction"}}},
        },
    }
    template = [key for key in ordered_keys(before, -1) if key in ordered_keys(after, -1)]
    assert ordered_keys(after, -1) == template, "the new row's keys follow the existing rows' order"

    first, last_before, last_after = changed_region(before, without_new_stamps(before, after))
    assert first == last_before, "existing bytes were changed, not only added to"
    assert before[:first].rstrip().endswith(b"}") and before[first:].lstrip().startswith(b"]")
    inserted = after[first:last_after]
    assert inserted.startswith(b",")
    assert_line_endings(after, variant)
    assert_indentation(after, first, last_after, style)
    if style == "compact":
        assert b"\n" not in inserted
    if style == "escaped":
        assert after.removeprefix(UTF8_BOM).isascii()


def test_add_row_into_an_empty_studio_web_set(tmp_path):
    before = (b'{\n  "version": "1.0",\n  "id": "eval-set-001",\n  "name": "Dataset",\n'
              b'  "evaluatorRefs": [\n    "exact-match-evaluator"\n  ],\n  "evaluations": []\n}\n')
    root, path = project(tmp_path, before)
    row, _ = build_row("first", {"score": 1}, {"grade": "FAIL"}, [EXACT], evaluators(root), row_id="r1")
    apply_plan(plan_add_row(root, path, row, clock=clock))

    assert path.read_bytes() == before.replace(b'"evaluations": []', (
        b'"evaluations": [\n    {\n      "id": "r1",\n      "name": "first",\n      "inputs": {\n'
        b'        "score": 1\n      },\n      "evaluationCriterias": {\n        "exact-match-evaluator": {\n'
        b'          "expectedOutput": {\n            "grade": "FAIL"\n          }\n        }\n      }\n    }\n  ]'))


def test_accept_keeps_a_row_that_is_not_first_in_its_line_intact(tmp_path):
    """Two rows on one line, a key with odd spacing: only the expectation's value moves."""
    before = (b'{"evaluatorRefs": ["exact-match-evaluator"], "evaluations": [\n'
              b'  {"id": "a", "inputs": {}, "evaluationCriterias": {"exact-match-evaluator" :{"expectedOutput" :'
              b' {"v": 1}}}}, {"id": "b", "inputs": {}, "evaluationCriterias": {}}\n]}')
    root, path = project(tmp_path, before)
    plan = plan_accept(root, path, [recorded("a", EXACT, {"v": 2}, {"v": 1})], evaluators(root))
    apply_plan(plan)
    assert path.read_bytes() == before.replace(b'{"v": 1}', b'{"v": 2}')
