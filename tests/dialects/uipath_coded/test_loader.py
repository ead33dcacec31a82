"""Loading a coded agent project's `evaluations/`: evaluators known by id (not file name), the set's refs from
`evaluatorConfigs` else `evaluatorRefs`, duplicate ids and legacy files refused in words that name the file and
the JSON path, and the rows' ids tracked by the rule accept and add-row write by."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from coded_sdk_project import eval_set, write_coded_project

from workbench.config import load_config
from workbench.dialects import dialect_for
from workbench.model import EvaluatorKey, Project, Severity
from workbench.project import load_project
from workbench.rescoring import planned_errors

MAIN = "def main(input):\n    return {'answer': input.get('answer', '')}\n"
SCOPE = "evaluations"


def exact(ident: str, **config: Any) -> dict[str, Any]:
    return {"version": "1.0", "id": ident, "name": ident, "evaluatorTypeId": "uipath-exact-match",
            "evaluatorConfig": {"name": ident, "targetOutputKey": "answer", **config}}


def a_row(ident: str, criteria: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"id": ident, "name": ident, "inputs": {"answer": ident}, "evaluationCriterias": criteria, **extra}


def project_of(root: Path, rows: list[dict[str, Any]], refs: list[str], evaluators: dict[str, Any] | None = None,
               **set_fields: Any) -> Project:
    doc = {**eval_set("s", rows, refs), **set_fields}
    write_coded_project(root, main_py=MAIN, evaluators=evaluators or {"exact-match.json": exact("ExactMatch")},
                        sets={"s": doc})
    return load_project(root, load_config(root))


def problems(project: Project) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for problem in project.problems:
        found.setdefault(problem.file, []).append(f"{problem.severity}: {problem.message}")
    return found


def planned(root: Path, project: Project) -> dict[tuple[str, str], str]:
    return {(row.id, ref): why for _, row, ref, why in planned_errors(project)}


def test_evaluators_are_known_by_id_and_sets_refer_to_ids(tmp_path: Path) -> None:
    project = project_of(tmp_path, [a_row("r1", {"ExactMatch": {"expectedOutput": {"answer": "r1"}}})],
                         ["ExactMatch"])
    assert not [p for p in project.problems if p.severity == Severity.ERROR]
    evaluator = project.evaluators[EvaluatorKey(SCOPE, "ExactMatch")]
    assert evaluator.path.name == "exact-match.json" and evaluator.dialect == "uipath-coded"
    (eval_set_,) = project.sets
    assert eval_set_.dialect == "uipath-coded" and eval_set_.scope == SCOPE
    assert eval_set_.evaluator_refs == ["ExactMatch"] and [r.id for r in eval_set_.rows] == ["r1"]
    assert planned(tmp_path, project) == {}


def test_a_ref_that_is_a_file_name_says_whose_id_it_should_be(tmp_path: Path) -> None:
    project = project_of(tmp_path, [a_row("r1", {"exact-match": {"expectedOutput": {"answer": "r1"}}})],
                         ["exact-match"])
    why = planned(tmp_path, project)[("r1", "exact-match")]
    assert why == ("'exact-match' is the file name of evaluators/exact-match.json, whose id is 'ExactMatch': "
                   "refs are evaluator ids")


def test_an_unknown_ref_lists_the_ids_there_are(tmp_path: Path) -> None:
    project = project_of(tmp_path, [a_row("r1", {"Nope": {}})], ["Nope"])
    assert planned(tmp_path, project)[("r1", "Nope")] == (
        "no evaluator in evaluations/evaluators/ has the id 'Nope'; evaluator ids here: ExactMatch")


def test_two_files_with_one_id_are_an_error_naming_both(tmp_path: Path) -> None:
    project = project_of(tmp_path, [a_row("r1", {"ExactMatch": {"expectedOutput": {"answer": "r1"}}})],
                         ["ExactMatch"], {"a.json": exact("ExactMatch"), "b.json": exact("ExactMatch")})
    assert problems(project)["evaluations/evaluators/b.json"] == [
        "error: has the id 'ExactMatch', as evaluations/evaluators/a.json does; evaluator ids must be unique "
        "(refs name evaluators by id)"]
    assert EvaluatorKey(SCOPE, "ExactMatch") not in project.evaluators
    why = planned(tmp_path, project)[("r1", "ExactMatch")]
    assert why == ("evaluator evaluations/evaluators/ (id 'ExactMatch') is broken: evaluations/evaluators/a.json and "
                   "evaluations/evaluators/b.json both have the id 'ExactMatch'; give each its own"), why


def test_a_legacy_set_is_refused_naming_the_file(tmp_path: Path) -> None:
    project = project_of(tmp_path, [a_row("r1", {})], ["ExactMatch"], version=None)
    assert problems(project)["evaluations/eval-sets/s.json"] == [
        "error: is a legacy eval file (no \"version\": \"1.0\"); workbench reads version 1.0 files, the format "
        "`uipath eval` writes today"]
    assert project.sets == []


def test_a_legacy_evaluator_is_broken_under_its_id(tmp_path: Path) -> None:
    legacy = {"id": "ExactMatch", "name": "old", "type": 1, "category": 0}
    project = project_of(tmp_path, [a_row("r1", {"ExactMatch": None})], ["ExactMatch"], {"old.json": legacy})
    assert problems(project)["evaluations/evaluators/old.json"][0].startswith("error: is a legacy eval file")
    why = planned(tmp_path, project)[("r1", "ExactMatch")]
    assert why.startswith("evaluator evaluations/evaluators/ (id 'ExactMatch') is broken: "
                          "evaluations/evaluators/old.json is a legacy eval file")


def test_evaluator_configs_win_over_evaluator_refs(tmp_path: Path) -> None:
    evaluators = {"a.json": exact("A"), "b.json": exact("B")}
    project = project_of(tmp_path, [a_row("r1", {"A": None, "B": None})], ["A"], evaluators,
                         evaluatorConfigs=["B", {"ref": "A", "weight": 2}])
    assert project.sets[0].evaluator_refs == ["B", "A"]
    broken = project_of(tmp_path, [a_row("r1", {"A": None})], ["A"], evaluators,
                        evaluatorConfigs=[{"ref": "A", "weight": -1}])
    assert problems(broken)["evaluations/eval-sets/s.json"] == [
        "error: evaluatorConfigs[0].weight must be a number >= 0, not -1"]


def test_a_row_whose_criteria_name_no_evaluator_of_the_set_is_an_error(tmp_path: Path) -> None:
    """`uipath eval` skips such a row without a score; a typo ("exactmatch") must not make a row vanish from a
    green run, so every evaluator of the set reports it as an ERROR."""
    project = project_of(tmp_path, [a_row("r1", {"exactmatch": {}}), a_row("r2", {"ExactMatch": {"expectedOutput": {
        "answer": "r2"}}})], ["ExactMatch"])
    said = problems(project)["evaluations/eval-sets/s.json"]
    assert ("warning: evaluations[0] ('r1').evaluationCriterias['exactmatch'] is not an evaluator of this set "
            "(evaluatorRefs), so it scores nothing") in said
    assert planned(tmp_path, project) == {("r1", "ExactMatch"): (
        "evaluations[0] ('r1').evaluationCriterias names no evaluator of this set ('exactmatch'; its evaluators: "
        "ExactMatch): `uipath eval` would skip the row without a score; keys are evaluator ids")}


def test_a_row_with_empty_criteria_is_said_and_not_run(tmp_path: Path) -> None:
    project = project_of(tmp_path, [a_row("r1", {})], ["ExactMatch"])
    assert problems(project)["evaluations/eval-sets/s.json"] == [
        "warning: evaluations[0] ('r1').evaluationCriterias is empty: no evaluator scores the row, so it is not run"]
    assert planned(tmp_path, project) == {}


def test_rows_that_cant_run_say_why(tmp_path: Path) -> None:
    project = project_of(tmp_path, [{"id": "r1", "name": "r1", "evaluationCriterias": {"ExactMatch": None}},
                                    a_row("r2", {"ExactMatch": None}, expectedOutput=[1]),
                                    a_row("r3", "not an object"), 7], ["ExactMatch"])
    rows = {row.id: row for row in project.sets[0].rows}
    assert rows["r1"].problem == ("evaluations[0] ('r1') has no \"inputs\" (an object, {} when the entry point "
                                  "takes none)")
    assert rows["r2"].problem == "evaluations[1] ('r2').expectedOutput must be an object or a string, not array"
    assert set(rows) == {"r1", "r2"}
    said = problems(project)["evaluations/eval-sets/s.json"]
    assert ("error: evaluations[2] ('r3').evaluationCriterias must be an object, not string; row skipped") in said
    assert "error: evaluations[3] must be an object, not number; row skipped" in said


def test_invalid_json_names_the_file_line_and_column(tmp_path: Path) -> None:
    project_of(tmp_path, [], ["ExactMatch"])
    (tmp_path / "evaluations" / "eval-sets" / "s.json").write_text('{"version": "1.0",\n  "id": }', encoding="utf-8")
    project = load_project(tmp_path, load_config(tmp_path))
    (message,) = problems(project)["evaluations/eval-sets/s.json"]
    assert message.startswith("error: is not valid JSON at line 2, column")


def test_row_ids_follow_loading_ids_as_written_and_repeats_made_unique(tmp_path: Path) -> None:
    guid = "0A1B2C3D-0000-4000-8000-00000000ABCD"
    entries = [a_row(guid, {"ExactMatch": None}), a_row("same", {"ExactMatch": None}),
               a_row("same", {"ExactMatch": None}), {"name": "unnamed-id", "inputs": {}, "evaluationCriterias": {}},
               "not a row", a_row("skipped", [])]
    project = project_of(tmp_path, entries, ["ExactMatch"])
    ids = dialect_for("uipath-coded").row_ids(json.loads(json.dumps(entries)))
    assert [row.id for row in project.sets[0].rows] == [i for i in ids if i is not None]
    assert ids[0] == guid and ids[3] == "unnamed-id" and ids[4:] == [None, None]
    assert ids[1] != ids[2]


def test_an_evaluators_folder_that_links_out_is_not_read(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "x.json").write_text(json.dumps(exact("ExactMatch")), encoding="utf-8")
    root = tmp_path / "project"
    project_of(root, [a_row("r1", {"ExactMatch": None})], ["ExactMatch"])
    for item in (root / "evaluations" / "evaluators").iterdir():
        item.unlink()
    os.symlink(outside / "x.json", root / "evaluations" / "evaluators" / "x.json")
    project = load_project(root, load_config(root))
    assert problems(project)["evaluations/evaluators/x.json"] == [
        "error: is a link to a file outside evaluations/; not read"]
    assert not project.evaluators


def test_the_dialect_is_found_by_uipath_json_beside_evaluations(tmp_path: Path) -> None:
    coded = dialect_for("uipath-coded")
    (tmp_path / "evaluations").mkdir()
    assert not coded.present(tmp_path, None)
    (tmp_path / "uipath.json").write_text("{}", encoding="utf-8")
    assert coded.present(tmp_path, None)
    assert coded.is_row_set(tmp_path, (tmp_path / "evaluations" / "eval-sets" / "x.json").resolve())
    assert not coded.is_row_set(tmp_path, (tmp_path / "evaluations" / "evaluators" / "x.json").resolve())
