"""Loading evals/ (seed 003 §1): discovery, refs as file base names, clear problems for bad files,
unknown fields kept and ignored, and nothing under evals/ ever written."""

from __future__ import annotations

import asyncio
import json

import pytest
from helpers.checks import tree_digest
from helpers.project import COMMAND_CONFIG, EXACT, eval_set, evaluator, make_project, row

from workbench.config import load_config
from workbench.engine import Engine
from workbench.events import Trigger
from workbench.model import Verdict
from workbench.project import ProjectError, load_project

GOOD_ROW = row("echo", {"output": {"ok": True}}, {"ok": True})


def run(root):
    """One iteration in-process (the engine the CLI uses), results by (set, row name, evaluator)."""
    report = asyncio.run(Engine(load_config(root)).run_iteration(Trigger("run")))
    return report, {(r.set_file, r.row_name, r.evaluator): r for r in report.results}


def problems(project):
    return {(p.file, p.severity): p.message for p in project.problems}


def error_problems(project):
    return [p for p in project.problems if p.severity == "error"]


# -- discovery ------------------------------------------------------------------------------------------------


def test_every_scope_is_discovered_and_eval_files_are_ignored(tmp_path):
    make_project(tmp_path, sets={"a": [GOOD_ROW]}, config=COMMAND_CONFIG)
    make_project(tmp_path, scope="billing", sets={"b": [GOOD_ROW], "c": [GOOD_ROW]})
    (tmp_path / "evals/default/eval-files").mkdir()
    (tmp_path / "evals/default/eval-files/upload.json").write_text("{ not json at all")
    (tmp_path / "evals/default/eval-sets/notes.md").write_text("not a set")
    (tmp_path / "evals/default/eval-sets/.hidden.json").write_text("{ broken")
    (tmp_path / "evals/stray-file.json").write_text("{ broken")
    project = load_project(tmp_path)
    assert sorted((s.scope, s.file_name) for s in project.sets) == [
        ("billing", "b.json"), ("billing", "c.json"), ("default", "a.json")]
    assert project.scopes == ["billing", "default"]
    assert not error_problems(project), project.problems
    report, _ = run(tmp_path)
    assert sorted((r.scope, r.set_file) for r in report.results) == [
        ("billing", "b.json"), ("billing", "c.json"), ("default", "a.json")]
    assert all(r.verdict is Verdict.PASS for r in report.results)


def test_refs_resolve_within_their_own_scope(tmp_path):
    make_project(tmp_path, sets={"a": [GOOD_ROW]}, config=COMMAND_CONFIG)
    make_project(tmp_path, scope="other", evaluators={}, sets={"b": [GOOD_ROW]})
    _, results = run(tmp_path)
    assert results[("a.json", "echo", EXACT)].verdict is Verdict.PASS
    orphan = results[("b.json", "echo", EXACT)]
    assert orphan.verdict is Verdict.ERROR
    assert "evals/other/evaluators/exact-match-evaluator.json" in orphan.detail


def test_no_evals_folder_is_a_project_error_that_says_how_to_start(tmp_path):
    with pytest.raises(ProjectError) as info:
        load_project(tmp_path)
    assert "no eval files in" in str(info.value) and "workbench init" in str(info.value)


def test_an_evals_folder_without_sets_is_reported(tmp_path):
    (tmp_path / "evals/default/evaluators").mkdir(parents=True)
    project = load_project(tmp_path)
    assert project.sets == []
    assert any("no eval sets found" in p.message for p in project.problems)


# -- refs are evaluator FILE BASE NAMES -------------------------------------------------------------------


def test_a_ref_that_is_an_evaluator_id_names_the_right_file_base_name(tmp_path):
    make_project(
        tmp_path,
        evaluators={"my-exact": evaluator(id="exact-match-eval-001")},
        sets={"s": eval_set([row("r", {"output": {}}, {}, ref="exact-match-eval-001")],
                            refs=["exact-match-eval-001"])},
        config=COMMAND_CONFIG,
    )
    _, results = run(tmp_path)
    result = results[("s.json", "r", "exact-match-eval-001")]
    assert result.verdict is Verdict.ERROR
    assert "'exact-match-eval-001' is the id of evaluators/my-exact.json" in result.detail
    assert "use 'my-exact'" in result.detail
    assert "file base names" in result.detail


def test_a_ref_with_no_file_lists_the_files_and_ids_that_exist(tmp_path):
    make_project(
        tmp_path,
        evaluators={"grade-only": evaluator("grade", id="grade-001"), EXACT: evaluator(id="exact-001")},
        sets={"s": eval_set([row("r", {"output": {}}, {}, ref="exact-match")], refs=["exact-match"])},
        config=COMMAND_CONFIG,
    )
    _, results = run(tmp_path)
    detail = results[("s.json", "r", "exact-match")].detail
    assert results[("s.json", "r", "exact-match")].verdict is Verdict.ERROR
    assert "no evaluator file evals/default/evaluators/exact-match.json" in detail
    assert "exact-match-evaluator, grade-only" in detail
    assert "exact-001, grade-001" in detail


def test_renaming_the_evaluator_file_orphans_every_row(tmp_path):
    make_project(tmp_path, evaluators={"renamed": evaluator(id="x")},
                 sets={"s": [GOOD_ROW, row("other", {"output": 1}, {"result": 1})]}, config=COMMAND_CONFIG)
    report, _ = run(tmp_path)
    assert [r.verdict for r in report.results] == [Verdict.ERROR, Verdict.ERROR]
    assert all("renamed" in r.detail for r in report.results)


def test_a_missing_criterion_is_an_error_naming_the_ref(tmp_path):
    make_project(tmp_path, sets={"s": [
        row("no criteria", {"output": {}}),
        row("wrong key", {"output": {}}, criteria={"exact-match-eval-001": {"expectedOutput": {}}}),
        row("no expectedOutput", {"output": {}}, criteria={EXACT: {"expected": {}}}),
        row("top-level expectedOutput", {"output": {}}, expectedOutput={}),
    ]}, config=COMMAND_CONFIG)
    _, results = run(tmp_path)
    for name in ("no criteria", "wrong key", "top-level expectedOutput"):
        result = results[("s.json", name, EXACT)]
        assert result.verdict is Verdict.ERROR, name
        assert "evaluationCriterias['exact-match-evaluator']" in result.detail, name
    assert "'exact-match-eval-001'" in results[("s.json", "wrong key", EXACT)].detail
    missing = results[("s.json", "no expectedOutput", EXACT)]
    assert missing.verdict is Verdict.ERROR
    assert "evaluationCriterias['exact-match-evaluator'] has no \"expectedOutput\"" in missing.detail


def test_one_result_per_row_and_evaluator_ref(tmp_path):
    make_project(
        tmp_path,
        evaluators={EXACT: evaluator(), "grade-only": evaluator("grade")},
        sets={"s": eval_set([row("r", {"output": {"grade": "A", "x": 1}}, {"grade": "A"},
                                 ref=[EXACT, "grade-only"])], refs=[EXACT, "grade-only"])},
        config=COMMAND_CONFIG,
    )
    _, results = run(tmp_path)
    assert results[("s.json", "r", EXACT)].verdict is Verdict.FAIL
    assert results[("s.json", "r", "grade-only")].verdict is Verdict.PASS


def test_an_unsupported_evaluator_type_is_an_error_never_exact_match(tmp_path):
    make_project(tmp_path, evaluators={"judge": evaluator(type_id="acme-mystery-judge")},
                 sets={"s": eval_set([row("r", {"output": {}}, {}, ref="judge")], refs=["judge"])},
                 config=COMMAND_CONFIG)
    _, results = run(tmp_path)
    result = results[("s.json", "r", "judge")]
    assert result.verdict is Verdict.ERROR
    assert "unsupported evaluator type 'acme-mystery-judge'" in result.detail


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ({"evaluatorConfig": {}}, "has no evaluatorTypeId"),
        ([1, 2], "must be a JSON object, not array"),
        ({"evaluatorTypeId": "uipath-exact-match", "evaluatorConfig": "x"}, "evaluatorConfig must be an object"),
        ("{ nope", "is not valid JSON at line 1, column 3"),
    ],
)
def test_a_broken_evaluator_is_a_problem_and_its_rows_error(tmp_path, content, words):
    make_project(tmp_path, evaluators={EXACT: content}, sets={"s": [GOOD_ROW]}, config=COMMAND_CONFIG)
    project = load_project(tmp_path)
    assert words in problems(project)[("evals/default/evaluators/exact-match-evaluator.json", "error")]
    _, results = run(tmp_path)
    result = results[("s.json", "echo", EXACT)]
    assert result.verdict is Verdict.ERROR
    assert "evaluators/exact-match-evaluator.json is broken" in result.detail


def test_a_bad_target_output_key_is_an_error_naming_the_file(tmp_path):
    make_project(tmp_path, evaluators={EXACT: evaluator(5)}, sets={"s": [GOOD_ROW]}, config=COMMAND_CONFIG)
    _, results = run(tmp_path)
    result = results[("s.json", "echo", EXACT)]
    assert result.verdict is Verdict.ERROR
    assert "exact-match-evaluator.json" in result.detail and "targetOutputKey" in result.detail


# -- unknown and bookkeeping fields -----------------------------------------------------------------------


def test_unknown_and_bookkeeping_fields_are_kept_and_ignored(tmp_path):
    bookkeeping = {"schemaVersion": "2", "target": {"kind": "workflow"}, "fileName": "x.json",
                   "createdAt": "2024-01-01T00:00:00Z", "updatedAt": "2024-01-02T00:00:00Z", "futureField": [1]}
    the_row = row("echo", {"output": {"ok": True}}, {"ok": True}, **bookkeeping)
    the_row["evaluationCriterias"][EXACT]["note"] = "an extra key in the criterion"
    make_project(tmp_path, sets={"s": eval_set([the_row], **bookkeeping)},
                 evaluators={EXACT: evaluator(**bookkeeping)}, config=COMMAND_CONFIG)
    project = load_project(tmp_path)
    assert not project.problems, project.problems
    loaded = project.sets[0].rows[0]
    assert loaded.raw["createdAt"] == "2024-01-01T00:00:00Z" and loaded.raw["futureField"] == [1]
    assert project.evaluators[("default", EXACT)].raw["schemaVersion"] == "2"
    report, _ = run(tmp_path)
    assert [r.verdict for r in report.results] == [Verdict.PASS]


# -- bad files: clear problems, never a traceback, and the other sets still run ---------------------------


def test_malformed_json_names_the_file_line_and_column(tmp_path):
    broken = '{\n  "evaluatorRefs": ["exact-match-evaluator"],\n  "evaluations": [\n    {"id": "a",, }\n  ]\n}\n'
    make_project(tmp_path, sets={"broken": broken, "good": [GOOD_ROW]}, config=COMMAND_CONFIG)
    project = load_project(tmp_path)
    message = problems(project)[("evals/default/eval-sets/broken.json", "error")]
    assert message.startswith("is not valid JSON at line 4, column 16:")
    report, results = run(tmp_path)
    assert results[("good.json", "echo", EXACT)].verdict is Verdict.PASS, "one bad file must not stop the others"
    assert [p.file for p in report.error_problems] == ["evals/default/eval-sets/broken.json"]
    assert not report.green, "a file problem makes the run fail"


@pytest.mark.parametrize(
    ("document", "words"),
    [
        ("[]", 'must be a JSON object with "evaluations", not array'),
        ({"evaluatorRefs": [EXACT]}, 'has no "evaluations" list'),
        ({"evaluatorRefs": [EXACT], "evaluations": {"a": 1}}, '"evaluations" must be an array of rows, not object'),
        ({"evaluations": []}, 'has no "evaluatorRefs"'),
        ({"evaluatorRefs": EXACT, "evaluations": []}, '"evaluatorRefs" must be an array of strings'),
        ({"evaluatorRefs": [EXACT, 3], "evaluations": []}, '"evaluatorRefs" must be an array of strings'),
    ],
)
def test_a_set_with_the_wrong_shape_names_the_field(tmp_path, document, words):
    make_project(tmp_path, sets={"bad": document, "good": [GOOD_ROW]}, config=COMMAND_CONFIG)
    project = load_project(tmp_path)
    assert words in problems(project)[("evals/default/eval-sets/bad.json", "error")]
    assert [s.file_name for s in project.sets] == ["good.json"]


@pytest.mark.parametrize(
    ("bad_row", "words"),
    [
        ("just a string", "evaluations[1] must be an object, not string; row skipped"),
        ({"id": "x", "name": "bad inputs", "inputs": [1, 2]},
         "evaluations[1] ('bad inputs').inputs must be an object, not array; row skipped"),
        ({"id": "y", "name": "bad criteria", "inputs": {}, "evaluationCriterias": ["exact-match-evaluator"]},
         "evaluations[1] ('bad criteria').evaluationCriterias must be an object keyed by evaluator ref"),
    ],
)
def test_a_bad_row_names_its_index_and_field_and_the_other_rows_still_run(tmp_path, bad_row, words):
    make_project(tmp_path, sets={"s": [GOOD_ROW, bad_row, row("last", {"output": 1}, {"result": 1})]},
                 config=COMMAND_CONFIG)
    project = load_project(tmp_path)
    assert words in problems(project)[("evals/default/eval-sets/s.json", "error")]
    report, results = run(tmp_path)
    assert results[("s.json", "echo", EXACT)].verdict is Verdict.PASS
    assert results[("s.json", "last", EXACT)].verdict is Verdict.PASS
    assert not report.green


def test_duplicate_row_ids_are_both_kept_and_reported(tmp_path):
    make_project(tmp_path, sets={"s": [row("a", {"output": 1}, {"result": 1}, id="same"),
                                       row("b", {"output": 2}, {"result": 2}, id="same")]}, config=COMMAND_CONFIG)
    project = load_project(tmp_path)
    assert [r.id for r in project.sets[0].rows] == ["same", "same#1"]
    assert "has the same id 'same' as evaluations[0]" in problems(project)[("evals/default/eval-sets/s.json", "error")]


def test_a_bom_is_read_with_a_warning(tmp_path):
    make_project(tmp_path, sets={"s": b"\xef\xbb\xbf" + json.dumps(eval_set([GOOD_ROW])).encode()},
                 config=COMMAND_CONFIG)
    project = load_project(tmp_path)
    assert [s.file_name for s in project.sets] == ["s.json"]
    assert "byte order mark" in problems(project)[("evals/default/eval-sets/s.json", "warning")]
    assert not error_problems(project)


@pytest.mark.parametrize("content", [b"", b"\xff\xfe{}", b"[" * 10_000, b'{"evaluations": [NaN]}'])
def test_hostile_files_are_problems_never_exceptions(tmp_path, content):
    make_project(tmp_path, sets={"bad": content, "good": [GOOD_ROW]}, config=COMMAND_CONFIG)
    project = load_project(tmp_path)
    assert problems(project)[("evals/default/eval-sets/bad.json", "error")].startswith("is not valid JSON")
    assert [s.file_name for s in project.sets] == ["good.json"]


# -- nothing under evals/ is written ----------------------------------------------------------------------


def test_running_writes_nothing_under_evals(tmp_path):
    make_project(tmp_path, sets={
        "s": [GOOD_ROW, row("fails", {"output": {"ok": False}}, {"ok": True}), row("errors", {"exit": 3}, {})],
        "broken": "{",
    }, config=COMMAND_CONFIG)
    before = tree_digest(tmp_path / "evals")
    report, _ = run(tmp_path)
    assert {r.verdict for r in report.results} == {Verdict.PASS, Verdict.FAIL, Verdict.ERROR}
    assert tree_digest(tmp_path / "evals") == before
