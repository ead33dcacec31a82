"""`workbench accept` on a coded agent project: the recorded output goes into the row's criterion keyed by the
evaluator's id (`evaluationCriterias["Exact"].expectedOutput`), only the paths its targetOutputKey compares;
a `null` criterion becomes `{"expectedOutput": ...}`; every other field, the key order and the indentation stay
as written; the file is replaced atomically (a new file renamed in, its mode kept, no temp file left); and a
tool-call evaluator, which compares no expectedOutput, is refused. The rows run without the SDK (the child's
fallback calls main.py's main directly), so these tests need no uipath."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest
from helpers.cli import Invoked, invoke_json, invoke_workbench

from workbench.writeback.atomic import TEMP_SUFFIX

SET = "evaluations/eval-sets/s.json"
OUTPUT = {"answer": "bye", "n": 3, "details": {"band": "merit", "raw": 7}}

MAIN = '''def main(input):
    return {"answer": input.get("say", "hi"), "n": 3, "details": {"band": "merit", "raw": 7}}
'''

# Written by hand, as a user would: four spaces, some objects on one line, keys in no sorted order.
SET_TEXT = '''{
    "version": "1.0",
    "id": "s",
    "name": "S",
    "evaluatorRefs": ["Exact", "Whole", "Order"],
    "evaluations": [
        {
            "name": "null criteria",
            "id": "r1",
            "inputs": {"say": "hello"},
            "evaluationCriterias": {"Exact": null, "Whole": null, "Order": null},
            "note": "kept"
        },
        {
            "id": "r2",
            "name": "keyed",
            "inputs": {"say": "bye"},
            "evaluationCriterias": {
                "Exact": {"expectedOutput": {"answer": "hi", "other": 1}},
                "Whole": {"expectedOutput": {"answer": "x"}},
                "Order": {"toolCallsOrder": []}
            }
        },
        {
            "id": "r3",
            "name": "row-level expectedOutput",
            "inputs": {"say": "yo"},
            "expectedOutput": {"answer": "nope"},
            "evaluationCriterias": {"Exact": null}
        }
    ]
}
'''


def _evaluator(ident: str, type_id: str, **config: Any) -> str:
    return json.dumps({"version": "1.0", "id": ident, "name": ident, "evaluatorTypeId": type_id,
                       "evaluatorConfig": {"name": ident, **config}}, indent=2)


def _project(root: Path) -> Path:
    """uipath.json, main.py, three evaluators (files named apart from their ids) and the set above."""
    (root / "evaluations" / "evaluators").mkdir(parents=True)
    (root / "evaluations" / "eval-sets").mkdir()
    (root / "uipath.json").write_text('{"functions": {"main": "main.py:main"}}', encoding="utf-8")
    (root / "main.py").write_text(MAIN, encoding="utf-8")
    evaluators = root / "evaluations" / "evaluators"
    (evaluators / "exact-match.json").write_text(_evaluator("Exact", "uipath-exact-match", targetOutputKey="answer"))
    (evaluators / "similarity.json").write_text(_evaluator("Whole", "uipath-json-similarity"))
    (evaluators / "order.json").write_text(_evaluator(
        "Order", "uipath-tool-call-order", defaultEvaluationCriteria={"toolCallsOrder": []}))
    (root / SET).write_text(SET_TEXT, encoding="utf-8")
    return root


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = _project(tmp_path / "coded")
    ran = invoke_workbench("run", str(root))
    assert ran.returncode in (0, 1), ran.stdout + ran.stderr  # rows fail or error: that's what is accepted
    return root


def _accept(root: Path, row: str, *more: str) -> Invoked:
    return invoke_workbench("accept", str(root), "--set", "s", "--row", row, *more)


def _rows(root: Path) -> dict[str, dict[str, Any]]:
    return {row["id"]: row for row in json.loads((root / SET).read_text(encoding="utf-8"))["evaluations"]}


def test_the_compared_path_goes_into_the_criterion_keyed_by_the_evaluator_id(project: Path) -> None:
    done = _accept(project, "r2")
    assert done.returncode == 0, done.stdout + done.stderr
    criteria = _rows(project)["r2"]["evaluationCriterias"]
    assert criteria["Exact"] == {"expectedOutput": {"answer": "bye", "other": 1}}, (
        "targetOutputKey 'answer': only that path is written, the rest of the expectation stays")
    assert criteria["Whole"] == {"expectedOutput": OUTPUT}, "targetOutputKey '*' (default): the whole output"
    assert criteria["Order"] == {"toolCallsOrder": []}, "a tool-call criterion is left alone"
    assert "Order" in done.stdout + done.stderr, "the evaluator accept can't write for is named"


def test_a_null_criterion_becomes_an_explicit_one(project: Path) -> None:
    done = _accept(project, "r1")
    assert done.returncode == 0, done.stdout + done.stderr
    criteria = _rows(project)["r1"]["evaluationCriterias"]
    assert criteria["Exact"] == {"expectedOutput": {"answer": "hello"}}
    assert criteria["Whole"] == {"expectedOutput": {**OUTPUT, "answer": "hello"}}
    assert criteria["Order"] is None, "the tool-call evaluator's null (its default) stays null"
    again = invoke_json("run", str(project), "--row", "r1")[1]
    assert {r["evaluator"]: r["verdict"] for r in again["results"]} == {"Exact": "PASS", "Whole": "PASS",
                                                                        "Order": "PASS"}


def test_every_other_field_the_key_order_and_the_indentation_stay(project: Path) -> None:
    assert _accept(project, "r1").returncode == 0
    after = (project / SET).read_text(encoding="utf-8")
    before_lines, after_lines = SET_TEXT.splitlines(), after.splitlines()
    changed = [line for line in before_lines if line not in after_lines]
    assert changed == ['            "evaluationCriterias": {"Exact": null, "Whole": null, "Order": null},'], (
        "only the criteria line of r1 changed")
    row = _rows(project)["r1"]
    assert list(row) == ["name", "id", "inputs", "evaluationCriterias", "note"] and row["note"] == "kept"
    assert list(row["evaluationCriterias"]) == ["Exact", "Whole", "Order"]
    assert _rows(project)["r2"] == json.loads(SET_TEXT)["evaluations"][1], "another row is untouched"
    assert after.startswith('{\n    "version": "1.0",\n') and after.endswith("\n}\n")


def test_the_file_is_replaced_atomically_keeping_its_mode(project: Path) -> None:
    path = project / SET
    os.chmod(path, 0o640)
    inode = path.stat().st_ino
    assert _accept(project, "r2").returncode == 0
    assert path.stat().st_ino != inode, "a new file renamed over the old one, never rewritten in place"
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert not [name for name in os.listdir(path.parent) if name.endswith(TEMP_SUFFIX)]


def test_a_tool_call_evaluator_is_refused_and_nothing_written(project: Path) -> None:
    before = (project / SET).read_bytes()
    refused = _accept(project, "r2", "--evaluator", "Order")
    assert refused.returncode != 0
    assert "does not compare the output with expectedOutput" in refused.stderr + refused.stdout
    assert (project / SET).read_bytes() == before


def test_a_null_criterion_scored_against_the_rows_own_expected_output_can_be_accepted(project: Path) -> None:
    """The SDK gives a null criterion the row's `expectedOutput`; what was recorded was scored against that,
    so accepting it must not be refused as 'changed since recorded'."""
    done = _accept(project, "r3")
    assert done.returncode == 0, done.stdout + done.stderr
    row = _rows(project)["r3"]
    assert row["evaluationCriterias"]["Exact"] == {"expectedOutput": {"answer": "yo"}}
    assert row["expectedOutput"] == {"answer": "nope"}, "the row-level expectation stays for other evaluators"


NESTED_MAIN = '''def main(input):
    return {"meta": {"items": [{"name": "a"}, {"name": "b"}]}, "ok": True}
'''


def test_an_indexed_target_path_is_accepted_as_the_sdk_reads_it(tmp_path: Path) -> None:
    """targetOutputKey `meta.items[1].name` walks a list item, as the SDK reads it: accept writes that item's
    value, taking the output's list where the expectation has none long enough; a passing evaluator's criterion
    (a null default) is left as it is."""
    root = tmp_path / "nested"
    (root / "evaluations" / "evaluators").mkdir(parents=True)
    (root / "evaluations" / "eval-sets").mkdir()
    (root / "uipath.json").write_text('{"functions": {"main": "main.py:main"}}', encoding="utf-8")
    (root / "main.py").write_text(NESTED_MAIN, encoding="utf-8")
    evaluators = root / "evaluations" / "evaluators"
    (evaluators / "nested.json").write_text(_evaluator("Nested", "uipath-exact-match",
                                                       targetOutputKey="meta.items[1].name"))
    (evaluators / "ok.json").write_text(_evaluator("Ok", "uipath-exact-match", targetOutputKey="ok",
                                                   defaultEvaluationCriteria={"expectedOutput": {"ok": True}}))
    rows = [{"id": "wrong", "name": "wrong", "inputs": {}, "evaluationCriterias": {
                "Nested": {"expectedOutput": {"meta": {"items": [{"name": "a"}, {"name": "x"}]}}}, "Ok": None}},
            {"id": "short", "name": "short", "inputs": {}, "evaluationCriterias": {
                "Nested": {"expectedOutput": {"meta": {"items": []}}}, "Ok": None}}]
    doc = {"version": "1.0", "id": "s", "name": "S", "evaluatorRefs": ["Nested", "Ok"], "evaluations": rows}
    (root / SET).write_text(json.dumps(doc, indent=2), encoding="utf-8")
    first = invoke_json("run", str(root))[1]
    assert {(r["row_id"], r["evaluator"]): r["verdict"] for r in first["results"]} == {
        ("wrong", "Nested"): "FAIL", ("wrong", "Ok"): "PASS", ("short", "Nested"): "ERROR", ("short", "Ok"): "PASS"}
    for row in ("wrong", "short"):
        done = _accept(root, row)
        assert done.returncode == 0, done.stdout + done.stderr
    criteria = {row_id: row["evaluationCriterias"] for row_id, row in _rows(root).items()}
    assert criteria["wrong"]["Nested"] == {"expectedOutput": {"meta": {"items": [{"name": "a"}, {"name": "b"}]}}}
    assert criteria["short"]["Nested"] == {"expectedOutput": {"meta": {"items": [{"name": "a"}, {"name": "b"}]}}}
    assert criteria["wrong"]["Ok"] is None and criteria["short"]["Ok"] is None, "a passing default stays null"
    again = invoke_json("run", str(root))[1]
    assert {r["verdict"] for r in again["results"]} == {"PASS"}

