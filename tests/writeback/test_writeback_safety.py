"""Write-back never loses anyone's edit, never leaves a broken file, and refuses what it can't do right."""

from __future__ import annotations

import json
import os
import re
import stat
from datetime import UTC, datetime, timedelta, timezone

import pytest
from helpers.project import evaluator, make_project
from helpers.writeback import DETAILS, EXACT, GRADE, clock, evaluators, fixture_bytes, load, project, recorded

from workbench.dialects import dialect_for
from workbench.model import Verdict
from workbench.output_paths import MISSING
from workbench.project import load_project
from workbench.writeback import WritebackError, apply_plan
from workbench.writeback.accept import plan_accept
from workbench.writeback.add_row import build_row, plan_add_row
from workbench.writeback.atomic import TEMP_SUFFIX
from workbench.writeback.errors import ConcurrentChange
from workbench.writeback.stamp import restamp

ACTUAL = {"grade": "FAIL", "details": {"rawScore": 40, "band": "fail"}}


def accept_row_2(root, path, **kwargs):
    return plan_accept(root, path, [recorded("row-2", EXACT, ACTUAL, {"grade": "FAIL"})], evaluators(root),
                       clock=clock, **kwargs)


def rename_row_1(path, new_name="renamed by someone else"):
    """Another writer (an editor, Studio Web) saving a different row of the same file."""
    data = path.read_bytes()
    path.write_bytes(data.replace(b'"score 85 passes"', json.dumps(new_name).encode(), 1))


def temp_files(path):
    return [p for p in path.parent.iterdir() if p.name.endswith(TEMP_SUFFIX)]


@pytest.fixture
def two_space(tmp_path):
    return project(tmp_path, fixture_bytes("two_space"))


def test_a_concurrent_edit_racing_the_rename_is_kept_and_the_accept_still_lands(two_space):
    root, path = two_space
    plan = accept_row_2(root, path)
    raced = []

    def other_writer():
        if not raced:
            raced.append(True)
            rename_row_1(path)

    written = apply_plan(plan, before_rename=other_writer)

    doc = load(path.read_bytes())
    assert doc["evaluations"][0]["name"] == "renamed by someone else", "the other writer's edit was lost"
    assert doc["evaluations"][1]["evaluationCriterias"][EXACT]["expectedOutput"] == ACTUAL
    assert written.after == path.read_bytes()
    assert temp_files(path) == []


def test_a_writer_that_never_stops_wins_and_nothing_is_overwritten(two_space):
    root, path = two_space
    plan = accept_row_2(root, path)
    saves = iter(range(11, 99))
    last_save = []

    def busy_writer():
        last_save[:] = [re.sub(rb'"batchSize": \d+', b'"batchSize": %d' % next(saves), path.read_bytes())]
        path.write_bytes(last_save[0])

    with pytest.raises(ConcurrentChange, match="kept changing"):
        apply_plan(plan, before_rename=busy_writer)

    assert path.read_bytes() == last_save[0], "the other writer's last save is what is on disk"
    doc = load(path.read_bytes())
    assert doc["evaluations"][1]["evaluationCriterias"][EXACT]["expectedOutput"] == {"grade": "FAIL"}
    assert temp_files(path) == []


def test_edits_made_between_preview_and_confirm_are_kept(two_space):
    root, path = two_space
    plan = accept_row_2(root, path)
    rename_row_1(path)
    data = path.read_bytes()
    path.write_bytes(data.replace(b'"batchSize": 10', b'"batchSize": 25'))

    apply_plan(plan)

    doc = load(path.read_bytes())
    assert doc["evaluations"][0]["name"] == "renamed by someone else" and doc["batchSize"] == 25
    assert doc["evaluations"][1]["evaluationCriterias"][EXACT]["expectedOutput"] == ACTUAL


def test_an_expectation_changed_since_the_run_is_refused(two_space):
    root, path = two_space
    plan = accept_row_2(root, path)
    data = path.read_bytes().replace(b'"grade": "FAIL"\n          }\n        },\n        "grade-only"',
                                     b'"grade": "PASS"\n          }\n        },\n        "grade-only"')
    path.write_bytes(data)

    with pytest.raises(WritebackError, match="changed since this output was recorded"):
        apply_plan(plan)
    assert path.read_bytes() == data

    stale = recorded("row-2", EXACT, ACTUAL, {"grade": "something else"})
    with pytest.raises(WritebackError, match="changed since"):
        plan_accept(root, path, [stale], evaluators(root))


def test_a_row_deleted_meanwhile_is_refused(two_space):
    root, path = two_space
    plan = accept_row_2(root, path)
    doc = load(path.read_bytes())
    doc["evaluations"].pop()
    path.write_text(json.dumps(doc, indent=2))
    before = path.read_bytes()

    with pytest.raises(WritebackError, match="no longer in the eval set"):
        apply_plan(plan)
    assert path.read_bytes() == before


def test_a_row_added_meanwhile_with_the_same_name_is_refused(two_space):
    root, path = two_space
    row, _ = build_row("new", {"score": 1}, {"grade": "FAIL"}, [EXACT], evaluators(root), row_id="n1")
    plan = plan_add_row(root, path, row)
    rename_row_1(path, "new")
    before = path.read_bytes()

    with pytest.raises(WritebackError, match="already has a row named 'new'"):
        apply_plan(plan)
    assert path.read_bytes() == before


@pytest.mark.parametrize("failing", ["fsync", "replace"])
def test_a_crash_while_writing_leaves_the_file_whole(two_space, monkeypatch, failing):
    root, path = two_space
    before = path.read_bytes()
    plan = accept_row_2(root, path)

    def boom(*_args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, failing, boom)
    with pytest.raises(WritebackError, match="No space left"):
        apply_plan(plan)
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert temp_files(path) == []


def test_the_file_keeps_its_permissions(two_space):
    root, path = two_space
    path.chmod(0o640)
    apply_plan(accept_row_2(root, path))
    assert stat.S_IMODE(path.stat().st_mode) == 0o640


def test_an_equal_expectation_is_not_rewritten(tmp_path):
    data = b'{"evaluatorRefs": ["exact-match-evaluator"], "evaluations": [{"id": "r", "inputs": {},\n' \
           b' "evaluationCriterias": {"exact-match-evaluator": {"expectedOutput": {"n": 85.0}}}}]}\n'
    root, path = project(tmp_path, data)
    mtime = path.stat().st_mtime_ns
    plan = plan_accept(root, path, [recorded("r", EXACT, {"n": 85}, {"n": 85.0})], evaluators(root))
    assert not plan.changed and plan.changes == []
    apply_plan(plan)
    assert path.read_bytes() == data and path.stat().st_mtime_ns == mtime


def test_no_recorded_output_is_refused(two_space):
    root, path = two_space
    errored = recorded("row-2", EXACT, None, {"grade": "FAIL"}, verdict=Verdict.ERROR)
    errored.detail = "the target exited with status 3"
    with pytest.raises(WritebackError, match=r"no recorded output.*exited with status 3"):
        plan_accept(root, path, [errored], evaluators(root))


def test_an_output_missing_a_compared_path_is_refused(two_space):
    root, path = two_space
    result = recorded("row-2", DETAILS, {"grade": "FAIL"}, {})
    with pytest.raises(WritebackError, match=r"the output has no 'details\.rawScore'"):
        plan_accept(root, path, [result], evaluators(root))


def test_evaluators_that_do_not_use_expected_output_are_refused(tmp_path):
    root = make_project(tmp_path, sets={"cases": [{"id": "r", "inputs": {}, "evaluationCriterias": {
        "has-refund": {"searchText": "refund"}}}]}, evaluators={"has-refund": evaluator(type_id="uipath-contains")})
    path = root / "evals/default/eval-sets/cases.json"
    with pytest.raises(WritebackError, match="does not compare the output with expectedOutput"):
        plan_accept(root, path, [recorded("r", "has-refund", {"text": "x"}, None)], evaluators(root))


def test_a_missing_criterion_is_created(tmp_path):
    data = b'{\n  "evaluatorRefs": ["exact-match-evaluator"],\n  "evaluations": [\n    {\n      "id": "r",\n' \
           b'      "inputs": {},\n      "evaluationCriterias": {}\n    }\n  ]\n}\n'
    root, path = project(tmp_path, data)
    apply_plan(plan_accept(root, path, [recorded("r", EXACT, {"ok": True}, None)], evaluators(root)))
    assert path.read_bytes() == data.replace(
        b'"evaluationCriterias": {}',
        b'"evaluationCriterias": {\n        "exact-match-evaluator": {\n          "expectedOutput": {\n'
        b'            "ok": true\n          }\n        }\n      }')


def test_only_eval_sets_under_evals_are_written(tmp_path):
    root, path = project(tmp_path, fixture_bytes("two_space"))
    outside = tmp_path / "elsewhere.json"
    outside.write_bytes(fixture_bytes("two_space"))
    result = [recorded("row-2", EXACT, ACTUAL, {"grade": "FAIL"})]
    with pytest.raises(WritebackError, match="only writes there"):
        plan_accept(root, outside, result, evaluators(root))
    link = path.parent / "linked.json"
    link.symlink_to(outside)
    with pytest.raises(WritebackError, match="only writes there"):
        plan_accept(root, link, result, evaluators(root))
    evaluator_file = root / "evals/default/evaluators" / f"{EXACT}.json"
    with pytest.raises(WritebackError, match="only writes there"):
        plan_accept(root, evaluator_file, result, evaluators(root))
    assert outside.read_bytes() == fixture_bytes("two_space")


def test_a_linked_eval_set_is_edited_through_the_link(tmp_path):
    root, path = project(tmp_path, fixture_bytes("two_space"), name="real")
    link = path.parent / "alias.json"
    link.symlink_to(path.name)
    apply_plan(plan_accept(root, link, [recorded("row-2", EXACT, ACTUAL, {"grade": "FAIL"})], evaluators(root)))
    assert link.is_symlink()
    assert load(path.read_bytes())["evaluations"][1]["evaluationCriterias"][EXACT]["expectedOutput"] == ACTUAL


def test_rows_are_found_by_the_ids_the_loader_gave_them(tmp_path):
    rows = [{"name": "no id", "inputs": {}}, {"id": "dup", "inputs": {}}, "not a row", {"id": "dup", "inputs": {}},
            {"inputs": {}}, {"id": 7, "inputs": {}}]
    root = make_project(tmp_path, sets={"cases": {"evaluatorRefs": [EXACT], "evaluations": rows}})
    loaded = [row.id for row in load_project(root).sets[0].rows]
    tracked = [i for i in dialect_for("uipath").row_ids(rows) if i is not None]
    assert tracked == loaded == ["no id", "dup", "dup#3", "#4", "7"]


def test_accept_reaches_a_row_tracked_by_a_synthesized_id(tmp_path):
    rows = [{"id": "dup", "inputs": {}, "evaluationCriterias": {EXACT: {"expectedOutput": {"v": 1}}}},
            {"id": "dup", "inputs": {}, "evaluationCriterias": {EXACT: {"expectedOutput": {"v": 2}}}}]
    root = make_project(tmp_path, sets={"cases": {"evaluatorRefs": [EXACT], "evaluations": rows}})
    path = root / "evals/default/eval-sets/cases.json"
    apply_plan(plan_accept(root, path, [recorded("dup#1", EXACT, {"v": 3}, {"v": 2})], evaluators(root)))
    assert [r["evaluationCriterias"][EXACT]["expectedOutput"] for r in load(path.read_bytes())["evaluations"]] \
        == [{"v": 1}, {"v": 3}]


def test_updated_at_is_refreshed_only_where_present(tmp_path):
    root, path = project(tmp_path, fixture_bytes("four_space"))
    apply_plan(plan_accept(root, path, [recorded("row-2", GRADE, {"grade": "PASS"}, {"grade": "FAIL"})],
                           evaluators(root), clock=clock))
    assert b"updatedAt" not in path.read_bytes()


NOW = datetime(2025, 6, 1, 12, 0, 5, 456789, tzinfo=UTC)


@pytest.mark.parametrize(("old", "new"), [
    ("2025-01-15T10:20:30.123Z", "2025-06-01T12:00:05.456Z"),
    ("2025-01-15T10:20:30Z", "2025-06-01T12:00:05Z"),
    ("2025-01-15T10:20:30.123456+00:00", "2025-06-01T12:00:05.456789+00:00"),
    ("2025-01-15T10:20:30+02:00", "2025-06-01T14:00:05+02:00"),
    ("2025-01-15 10:20:30.1-0530", "2025-06-01 06:30:05.4-0530"),
    ("2025-01-15", "2025-06-01"),
    (1736936430123, 1748779205456),
    (1736936430, 1748779205),
    ("yesterday", None),
    (True, None),
])
def test_timestamps_keep_their_format(old, new):
    assert restamp(old, NOW) == new


def test_naive_timestamps_use_local_time():
    local = NOW.astimezone(timezone(timedelta(hours=3)))
    assert restamp("2025-01-15T10:20:30", local) == NOW.astimezone().strftime("%Y-%m-%dT%H:%M:%S")


def test_plan_reports_old_and_new_for_a_preview(two_space):
    root, path = two_space
    plan = accept_row_2(root, path)
    assert [(c.label, c.old, c.new) for c in plan.changes] == [(EXACT, {"grade": "FAIL"}, ACTUAL)]
    diff = plan.diff()
    assert diff.startswith("--- a/evals/default/eval-sets/cases.json\n+++ b/evals/default/eval-sets/cases.json")
    assert '+              "band": "fail"' in diff and '-      "updatedAt": "2025-01-15T10:21:00.000Z"' in diff
    row, _ = build_row("new", {}, {"grade": "FAIL"}, [EXACT], evaluators(root))
    assert plan_add_row(root, path, row).changes[0].old is MISSING


def test_a_row_scored_against_the_evaluators_default_criteria_can_be_accepted(tmp_path):
    similar = evaluator("*", type_id="uipath-json-similarity")
    similar["evaluatorConfig"]["defaultEvaluationCriteria"] = {"expectedOutput": {"grade": "PASS"}}
    root = make_project(tmp_path, sets={"cases": {"evaluatorRefs": ["similar"], "evaluations": [
        {"id": "r", "inputs": {}}]}}, evaluators={"similar": similar})
    path = root / "evals/default/eval-sets/cases.json"
    apply_plan(plan_accept(root, path, [recorded("r", "similar", {"grade": "FAIL"}, {"grade": "PASS"})],
                           evaluators(root)))
    assert load(path.read_bytes())["evaluations"][0]["evaluationCriterias"] == {
        "similar": {"expectedOutput": {"grade": "FAIL"}}}
