"""`workbench accept` and `workbench add-row` as a user runs them, and how accept picks recorded results."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers.cli import invoke_json, invoke_workbench, verdicts
from helpers.project import COMMAND_CONFIG, EXACT, make_project, row
from helpers.writeback import recorded

from workbench.model import EvalSet, EvaluatorDef, Row, Verdict
from workbench.writeback import WritebackError
from workbench.writeback.recorded import recorded_for_row

GRADE = "grade-only"


def grading_project(tmp_path):
    rows = [
        row("85 passes", {"output": {"grade": "PASS", "score": 85}}, {"grade": "PASS", "score": 85}, id="r85"),
        row("40 fails", {"output": {"grade": "FAIL", "score": 40}}, {"grade": "PASS", "score": 40}, id="r40"),
        row("crashes", {"exit": 3}, {"grade": "PASS"}, id="rx"),
    ]
    root = make_project(tmp_path, sets={"grading": rows}, config=COMMAND_CONFIG)
    return root, root / "evals" / "default" / "eval-sets" / "grading.json"


def test_accept_after_a_run_turns_the_row_green_and_changes_only_its_expectation(tmp_path):
    root, path = grading_project(tmp_path)
    invoke_json("run", str(root))
    before = path.read_bytes()

    proc = invoke_workbench("accept", str(root), "--set", "grading", "--row", "40 fails")

    assert proc.returncode == 0, proc.stderr
    assert '-            "grade": "PASS",' in proc.stdout and '+            "grade": "FAIL",' in proc.stdout
    assert "accepted the output of iteration 1" in proc.stdout
    after = path.read_bytes()
    assert [a for a, b in zip(after.splitlines(), before.splitlines(), strict=True) if a != b] == [
        b'            "grade": "FAIL",']
    _, doc = invoke_json("run", str(root), "--set", "grading", "--row", "40 fails")
    assert verdicts(doc) == {f"40 fails [{EXACT}]": "PASS"}


def test_accept_refuses_without_a_recorded_output(tmp_path):
    root, path = grading_project(tmp_path)
    before = path.read_bytes()

    never_ran = invoke_workbench("accept", str(root), "--set", "grading", "--row", "40 fails")
    assert never_ran.returncode == 1 and "nothing has run" in never_ran.stderr

    invoke_json("run", str(root))
    errored = invoke_workbench("accept", str(root), "--set", "grading", "--row", "crashes")
    assert errored.returncode == 1 and "no recorded output" in errored.stderr and "ERROR" in errored.stderr
    assert path.read_bytes() == before


def test_accept_dry_run_and_unknown_names(tmp_path):
    root, path = grading_project(tmp_path)
    invoke_json("run", str(root))
    before = path.read_bytes()

    dry = invoke_workbench("accept", str(root), "--set", "grading", "--row", "r40", "--dry-run")
    assert dry.returncode == 0 and "+++ b/evals/default/eval-sets/grading.json" in dry.stdout
    assert "dry run" in dry.stdout and path.read_bytes() == before

    unknown = invoke_workbench("accept", str(root), "--set", "grading", "--row", "nope")
    assert unknown.returncode == 2 and "no row 'nope'" in unknown.stderr
    unknown_set = invoke_workbench("accept", str(root), "--set", "nope", "--row", "r40")
    assert unknown_set.returncode == 2 and "no eval set 'nope' (eval sets: grading)" in unknown_set.stderr


def test_add_row_runs_the_target_and_appends_a_passing_row(tmp_path):
    root, path = grading_project(tmp_path)
    before = path.read_bytes()
    inputs = json.dumps({"output": {"grade": "PASS", "score": 95, "note": "Zoë ✓"}})

    proc = invoke_workbench("add-row", str(root), "--set", "grading", "--name", "95 passes", "--inputs", inputs)

    assert proc.returncode == 0, proc.stderr
    assert '"note": "Zoë ✓"' in proc.stdout and "added row '95 passes'" in proc.stdout
    after = path.read_bytes()
    assert after.startswith(before.rstrip()[:-len(b"\n  ]\n}")])
    new = json.loads(after)["evaluations"][-1]
    assert new["name"] == "95 passes" and len(new["id"]) == 36
    assert new["evaluationCriterias"] == {EXACT: {"expectedOutput": {"grade": "PASS", "score": 95, "note": "Zoë ✓"}}}
    _, doc = invoke_json("run", str(root), "--set", "grading", "--row", "95 passes")
    assert verdicts(doc) == {f"95 passes [{EXACT}]": "PASS"}


def test_add_row_refusals_write_nothing(tmp_path):
    root, path = grading_project(tmp_path)
    before = path.read_bytes()

    duplicate = invoke_workbench("add-row", str(root), "--set", "grading", "--name", "40 fails", "--inputs", "{}")
    assert duplicate.returncode == 1 and "already has a row named '40 fails'" in duplicate.stderr
    errored = invoke_workbench("add-row", str(root), "--set", "grading", "--name", "new", "--inputs", '{"exit": 4}')
    assert errored.returncode == 1 and "ERROR" in errored.stderr
    not_object = invoke_workbench("add-row", str(root), "--set", "grading", "--name", "new", "--inputs", "[1]")
    assert not_object.returncode == 2 and "must be a JSON object" in not_object.stderr
    not_json = invoke_workbench("add-row", str(root), "--set", "grading", "--name", "new", "--inputs", "{score: 1}")
    assert not_json.returncode == 2 and "not valid JSON" in not_json.stderr
    assert path.read_bytes() == before


# -- which recorded results accept uses ---------------------------------------------------------------

class FakeHistory:
    def __init__(self, entries):
        self.entries = entries  # [(iteration, Result)]

    def find_result(self, key, iteration=None):
        hits = [(n, r) for n, r in self.entries if r.key == key and (iteration is None or n == iteration)]
        return max(hits, key=lambda hit: hit[0]) if hits else None


def _set(refs=(EXACT, GRADE)):
    target = Row(id="r1", name="one", inputs={}, criteria={}, index=0, raw={})
    path = Path("evals/default/eval-sets/s.json")
    return EvalSet(scope="default", path=path, id=None, name=None, evaluator_refs=list(refs), rows=[target],
                   dialect="uipath"), target


def history(*entries):
    return FakeHistory([(n, recorded("r1", ref, {"v": n}, None, set_file="s.json")) for n, ref in entries])


@pytest.fixture
def evaluators_by_ref(tmp_path):
    def make(ref, type_id="uipath-exact-match"):
        return EvaluatorDef("default", ref, tmp_path / f"{ref}.json", None, None, type_id, {}, {})

    return {EXACT: make(EXACT), GRADE: make(GRADE), "contains": make("contains", "uipath-contains")}


def test_the_newest_iteration_that_ran_the_row_is_used(evaluators_by_ref):
    eval_set, target = _set()
    found = recorded_for_row(history((1, EXACT), (1, GRADE), (4, EXACT), (4, GRADE)), eval_set, target,
                             evaluators_by_ref)
    assert found.iteration == 4 and [r.actual for r in found.results] == [{"v": 4}, {"v": 4}]

    older = recorded_for_row(history((1, EXACT), (4, EXACT)), eval_set, target, evaluators_by_ref, iteration=1)
    assert older.iteration == 1 and [r.evaluator for r in older.results] == [EXACT]


def test_evaluators_not_scored_then_or_not_using_expected_output_are_skipped_with_a_note(evaluators_by_ref):
    eval_set, target = _set((EXACT, GRADE, "contains"))
    found = recorded_for_row(history((2, EXACT), (1, GRADE), (2, "contains")), eval_set, target, evaluators_by_ref)
    assert [r.evaluator for r in found.results] == [EXACT]
    assert any("iteration 2 did not score it" in n for n in found.notes)
    assert any("contains" in n and "expectedOutput" in n for n in found.notes)


def test_nothing_recorded_or_unknown_evaluator_is_refused(evaluators_by_ref):
    eval_set, target = _set()
    with pytest.raises(WritebackError, match="nothing has run row 'one'"):
        recorded_for_row(history(), eval_set, target, evaluators_by_ref)
    with pytest.raises(WritebackError, match="iteration 9 did not run row 'one'"):
        recorded_for_row(history((1, EXACT)), eval_set, target, evaluators_by_ref, iteration=9)
    with pytest.raises(WritebackError, match="no evaluator ref 'other'"):
        recorded_for_row(history((1, EXACT)), eval_set, target, evaluators_by_ref, evaluator="other")


def test_the_verdict_does_not_matter_only_the_output(evaluators_by_ref):
    eval_set, target = _set((EXACT,))
    source = history((3, EXACT))
    source.entries[0][1].verdict = Verdict.PASS
    assert recorded_for_row(source, eval_set, target, evaluators_by_ref).results[0].actual == {"v": 3}

