"""Half-written and hostile eval sets and evaluators: each is a problem naming the file and what is wrong,
the rest of the suite still loads and runs, and nothing ever raises (no traceback, no RecursionError)."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers.cli import cli_env, invoke_json, invoke_workbench
from helpers.hardening import assert_polite, deep_text
from helpers.project import COMMAND_CONFIG, EXACT, evaluator, make_project, row

from workbench.model import Project, Verdict
from workbench.project import MAX_FILE_BYTES, load_project
from workbench.rescoring import planned_errors

pytestmark = pytest.mark.hardening

GOOD = [row("good", {"output": {"ok": True}}, {"ok": True})]
SET_PATH = "evals/default/eval-sets/bad.json"
EVALUATOR_PATH = f"evals/default/evaluators/{EXACT}.json"


def set_doc(**fields: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {"version": "1.0", "id": "bad", "name": "bad", "evaluatorRefs": [EXACT],
                           "evaluations": [row("r", {"q": 1}, {"a": 1})]}
    doc.update(fields)
    return doc


def row_with(**fields: Any) -> dict[str, Any]:
    entry = row("r", {"q": 1}, {"a": 1})
    entry.update(fields)
    return entry


def problems_for(project: Project, path: str) -> list[str]:
    return [p.message for p in project.problems if p.file == path]


def load(tmp_path: Path, content: Any, **kwargs: Any) -> Project:
    make_project(tmp_path, sets={"good": GOOD, "bad": content}, **kwargs)
    project = load_project(tmp_path)
    planned_errors(project)  # planning every row never raises either
    return project


# -- eval sets: syntax and encoding -----------------------------------------------------------------------

SET_SYNTAX = {
    "truncated": ('{"version": "1.0", "evaluatorRefs": ["exact-match-evaluator"], "evaluations": [{"id": "a"',
                  "not valid JSON at line 1"),
    "truncated mid-string": ('{"evaluations": [{"id": "unfinished', "not valid JSON"),
    "empty file": (b"", "empty document"),
    "only whitespace": (b"  \n\t\n", "empty document"),
    "not UTF-8": (b'{"evaluations": [], "name": "caf\xe9"}', "not valid UTF-8 (byte 0xe9"),
    "UTF-16": ('{"evaluations": []}'.encode("utf-16"), "not valid UTF-8"),
    "NUL bytes": (b"\x00\x00\x00\x00", "not valid JSON"),
    "NaN": ('{"evaluatorRefs": [], "evaluations": [], "x": NaN}', "NaN is not valid JSON"),
    "trailing garbage": ('{"evaluatorRefs": [], "evaluations": []} and more', "not valid JSON"),
    "nested 100,000 deep": ('{"evaluatorRefs": ["exact-match-evaluator"], "evaluations": [{"id": "d", '
                            '"inputs": {}, "evaluationCriterias": {"exact-match-evaluator": {"expectedOutput": '
                            + deep_text(100_000) + "}}}]}", "nested more than about 1000 levels deep"),
    "unbalanced 100,000 deep": ("[" * 100_000, "not valid JSON"),
}


@pytest.mark.parametrize("content, words", SET_SYNTAX.values(), ids=SET_SYNTAX.keys())
def test_a_set_that_is_not_json_is_a_problem_and_the_others_still_load(tmp_path, content, words):
    project = load(tmp_path, content)
    messages = problems_for(project, SET_PATH)
    assert len(messages) == 1 and words in messages[0], project.problems
    assert [s.stem for s in project.sets] == ["good"]


def test_a_bom_is_read_with_a_warning(tmp_path):
    project = load(tmp_path, b"\xef\xbb\xbf" + json.dumps(set_doc()).encode())
    [warning] = [p for p in project.problems if p.file == SET_PATH]
    assert warning.severity == "warning" and "byte order mark" in warning.message
    assert sorted(s.stem for s in project.sets) == ["bad", "good"]


# -- eval sets: wrong types at every level ------------------------------------------------------------------

SET_SHAPES = {
    "document is an array": ([set_doc()], "must be a JSON object", 0),
    "document is a string": ("just text", "must be a JSON object", 0),
    "document is null": (None, "must be a JSON object", 0),
    "evaluations is an object": (set_doc(evaluations={"r": row("r", {}, {})}), "must be an array of rows", 0),
    "evaluations is a string": (set_doc(evaluations="rows"), "must be an array of rows", 0),
    "evaluations is missing": ({"evaluatorRefs": [EXACT]}, "has no \"evaluations\" list", 0),
    "evaluatorRefs is a string": (set_doc(evaluatorRefs=EXACT), "must be an array of strings", 0),
    "evaluatorRefs holds numbers": (set_doc(evaluatorRefs=[1, None]), "must be an array of strings", 0),
    "evaluatorRefs holds an object": (set_doc(evaluatorRefs=[{"ref": EXACT}]), "must be an array of strings", 0),
    "evaluatorRefs is missing": ({"evaluations": []}, "has no \"evaluatorRefs\"", 0),
    "a row is a string": (set_doc(evaluations=["r", row("ok", {}, {})]), "evaluations[0] must be an object", 1),
    "a row is null": (set_doc(evaluations=[None]), "evaluations[0] must be an object", 0),
    "a row is an array": (set_doc(evaluations=[[row("r", {}, {})]]), "evaluations[0] must be an object", 0),
    "inputs is a string": (set_doc(evaluations=[row_with(inputs="q=1")]), ".inputs must be an object", 0),
    "inputs is an array": (set_doc(evaluations=[row_with(inputs=[1])]), ".inputs must be an object", 0),
    "criteria is a list": (set_doc(evaluations=[row_with(evaluationCriterias=[{"expectedOutput": 1}])]),
                           ".evaluationCriterias must be an object", 0),
    "criteria is a string": (set_doc(evaluations=[row_with(evaluationCriterias="x")]),
                             ".evaluationCriterias must be an object", 0),
    "name is a number": (set_doc(evaluations=[row_with(name=7)]), ".name must be a string", 1),
    "id is an object": (set_doc(evaluations=[row_with(id={"x": 1})]), "has no \"id\"", 1),
    "id is a boolean": (set_doc(evaluations=[row_with(id=True)]), "has no \"id\"", 1),
}


@pytest.mark.parametrize("document, words, rows_kept", SET_SHAPES.values(), ids=SET_SHAPES.keys())
def test_a_set_of_the_wrong_shape_names_the_field(tmp_path, document, words, rows_kept):
    project = load(tmp_path, json.dumps(document))
    assert any(words in message for message in problems_for(project, SET_PATH)), project.problems
    bad = [s for s in project.sets if s.stem == "bad"]
    assert sum(len(s.rows) for s in bad) == rows_kept
    assert any(s.stem == "good" for s in project.sets)


@pytest.mark.parametrize("criterion", [[1, 2], "expected", 3, None, True], ids=repr)
def test_a_criterion_that_is_not_an_object_is_that_rows_error(tmp_path, criterion):
    make_project(tmp_path, sets={"bad": [row("r", {"output": 1}, criteria={EXACT: criterion}), *GOOD]},
                 config=COMMAND_CONFIG)
    proc, doc = invoke_json("run", str(tmp_path))
    assert_polite(proc)
    verdicts = {r["row_name"]: r["verdict"] for r in doc["results"]}
    assert verdicts == {"r": "ERROR", "good": "PASS"}
    detail = next(r["detail"] for r in doc["results"] if r["row_name"] == "r")
    assert "evaluationCriterias" in detail


def test_duplicate_row_ids_and_names_are_reported_and_every_row_is_kept(tmp_path):
    rows = [row("same", {"q": 1}, {"a": 1}, id="dup"), row("same", {"q": 2}, {"a": 2}, id="dup"),
            row("same", {"q": 3}, {"a": 3}, id="other")]
    project = load(tmp_path, json.dumps(set_doc(evaluations=rows)))
    messages = problems_for(project, SET_PATH)
    assert any("same id 'dup' as evaluations[0]" in m for m in messages)
    assert any("same name" in m for m in messages)
    [bad] = [s for s in project.sets if s.stem == "bad"]
    assert [r.id for r in bad.rows] == ["dup", "dup#1", "other"]


# -- evaluators ---------------------------------------------------------------------------------------------

EVALUATOR_SHAPES = {
    "an array": ([evaluator("*")], "must be a JSON object, not array"),
    "a string": ("exact", "must be a JSON object, not string"),
    "null": (None, "must be a JSON object, not null"),
    "no type": ({"evaluatorConfig": {}}, "has no evaluatorTypeId"),
    "type is a number": (evaluator("*", type_id=7), "has no evaluatorTypeId"),  # type: ignore[arg-type]
    "type is empty": (evaluator("*", type_id=""), "has no evaluatorTypeId"),
    "config is a list": ({"evaluatorTypeId": "uipath-exact-match", "evaluatorConfig": []},
                         "evaluatorConfig must be an object"),
    "config is a string": ({"evaluatorTypeId": "uipath-exact-match", "evaluatorConfig": "x"},
                           "evaluatorConfig must be an object"),
}


@pytest.mark.parametrize("document, words", EVALUATOR_SHAPES.values(), ids=EVALUATOR_SHAPES.keys())
def test_a_broken_evaluator_is_a_problem_and_its_rows_are_errors(tmp_path, document, words):
    make_project(tmp_path, sets={"good": GOOD}, evaluators={EXACT: json.dumps(document)}, config=COMMAND_CONFIG)
    project = load_project(tmp_path)
    assert any(words in m for m in problems_for(project, EVALUATOR_PATH)), project.problems
    proc, doc = invoke_json("run", str(tmp_path))
    assert_polite(proc)
    [result] = doc["results"]
    assert result["verdict"] == "ERROR" and "is broken" in result["detail"]


@pytest.mark.parametrize("target", [7, {"path": "a"}, [1, "a"], True], ids=repr)
def test_a_bad_target_output_key_is_an_error_naming_the_file(tmp_path, target):
    make_project(tmp_path, sets={"good": GOOD}, evaluators={EXACT: evaluator(target)}, config=COMMAND_CONFIG)
    proc, doc = invoke_json("run", str(tmp_path))
    assert_polite(proc)
    [result] = doc["results"]
    assert result["verdict"] == "ERROR" and "targetOutputKey" in result["detail"]


@pytest.mark.parametrize("content, words", [
    ("{\"evaluatorTypeId\": \"uipath-exact-match\", ", "not valid JSON"),
    (b"\xff\xfe{}", "not valid UTF-8"),
    (b"", "empty document"),
    ('{"evaluatorTypeId": "uipath-exact-match", "evaluatorConfig": ' + deep_text(100_000) + "}",
     "nested more than about 1000 levels deep"),
], ids=["truncated", "not UTF-8", "empty", "nested 100,000 deep"])
def test_an_evaluator_that_is_not_json_is_a_problem(tmp_path, content, words):
    make_project(tmp_path, sets={"good": GOOD}, evaluators={EXACT: content})
    project = load_project(tmp_path)
    assert any(words in m for m in problems_for(project, EVALUATOR_PATH)), project.problems
    assert (("default", EXACT)) in project.broken_evaluators


# -- everything at once, through the CLI -------------------------------------------------------------------


def test_the_cli_reports_every_broken_file_and_still_runs_the_good_rows(tmp_path):
    sets: dict[str, Any] = {"good": GOOD}
    for index, (content, _words) in enumerate(SET_SYNTAX.values()):
        sets[f"syntax{index}"] = content
    for index, (document, _words, _rows) in enumerate(SET_SHAPES.values()):
        sets[f"shape{index}"] = json.dumps(document)
    make_project(tmp_path, sets=sets, config=COMMAND_CONFIG)
    proc, doc = invoke_json("run", str(tmp_path))
    assert_polite(proc)
    assert proc.returncode == 1  # file problems fail the run
    assert {r["row_name"]: r["verdict"] for r in doc["results"] if r["set"] == "good.json"} == {"good": "PASS"}
    flagged = {p["file"].rsplit("/", 1)[-1] for p in doc["problems"]}
    assert {f"syntax{i}.json" for i in range(len(SET_SYNTAX))} <= flagged
    assert {f"shape{i}.json" for i in range(len(SET_SHAPES))} <= flagged
    text = invoke_workbench("run", str(tmp_path), env=cli_env())
    assert_polite(text)
    assert "problem: evals/default/eval-sets/syntax0.json: is not valid JSON" in text.stdout


# -- size -------------------------------------------------------------------------------------------------


def _padded_set(size: int) -> bytes:
    """An eval set of about `size` bytes: one small row, and an unknown field holding the bulk."""
    head = json.dumps(set_doc(evaluations=GOOD))[:-1]
    return (head + ', "padding": "' + "p" * size + '"}').encode()


def _many_rows_set(size: int) -> bytes:
    filler = "f" * 2000
    count = size // (len(filler) + 120)
    rows = [row(f"r{i}", {"output": {"ok": True}, "filler": filler}, {"ok": True}) for i in range(count)]
    return json.dumps(set_doc(evaluations=rows)).encode()


def _peak_rss_mb(code: str) -> float:
    """Run `code` in a fresh interpreter; its peak resident memory in MB."""
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _pid, status, usage = os.wait4(proc.pid, 0)
    _out, err = proc.communicate()
    assert os.waitstatus_to_exitcode(status) == 0, err.decode(errors="replace")
    return usage.ru_maxrss / 1024  # KiB on Linux


@pytest.mark.parametrize("builder", [_padded_set, _many_rows_set], ids=["one big string", "many rows"])
def test_a_50_mb_set_loads_in_sane_memory(tmp_path, builder):
    data = builder(50 * 2**20)
    assert len(data) > 48 * 2**20
    make_project(tmp_path, sets={"big": data})
    code = (f"import sys; from pathlib import Path; from workbench.project import load_project; "
            f"p = load_project(Path({str(tmp_path)!r})); "
            f"assert not [x for x in p.problems if x.severity == 'error'], p.problems; "
            f"print(sum(len(s.rows) for s in p.sets))")
    baseline = _peak_rss_mb("import workbench.project")
    peak = _peak_rss_mb(code)
    # Parsed JSON costs a few times its text; what matters is that it is bounded, not quadratic.
    assert peak - baseline < 12 * 50, (baseline, peak)


def test_a_50_mb_set_runs_through_the_cli(tmp_path):
    make_project(tmp_path, sets={"big": _padded_set(50 * 2**20)}, config=COMMAND_CONFIG)
    proc, doc = invoke_json("run", str(tmp_path))
    assert_polite(proc)
    assert proc.returncode == 0 and doc["summary"]["passed"] == 1


def test_a_file_over_the_size_limit_is_refused_without_being_read(tmp_path):
    make_project(tmp_path, sets={"good": GOOD})
    huge = tmp_path / SET_PATH
    with huge.open("wb") as handle:  # sparse: no disk used, and reading it would take forever
        handle.truncate(MAX_FILE_BYTES + 1)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    project = load_project(tmp_path)
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 100 * 1024  # KiB: it was never read
    [message] = problems_for(project, SET_PATH)
    assert "are not read" in message and "MB" in message
    assert [s.stem for s in project.sets] == ["good"]


def test_a_row_that_is_fine_runs_while_its_neighbours_are_broken(tmp_path):
    rows = [None, "x", row_with(inputs="s"), row("fine", {"output": 1}, {"result": 1}), [1]]
    make_project(tmp_path, sets={"mixed": set_doc(evaluations=rows)}, config=COMMAND_CONFIG)
    proc, doc = invoke_json("run", str(tmp_path))
    assert_polite(proc)
    assert [(r["row_name"], r["verdict"]) for r in doc["results"]] == [("fine", Verdict.PASS.value)]
    assert len([p for p in doc["problems"] if p["severity"] == "error"]) == 4
