"""`workbench add-row` on a coded agent project: it runs main() on the new inputs and appends a row the SDK can
read — a string `id`, the `name`, the `inputs`, and `evaluationCriterias` keyed by evaluator id: for an output
evaluator the expectation built from the output (only the paths its targetOutputKey compares), for a tool-call
evaluator the criterion given with --criterion (none can be built from an output), and for an evaluator with a
usable defaultEvaluationCriteria `null` (the SDK's "use the default"; a missing key would make the SDK skip
the evaluator for this row). The rest of the file stays as written and the new row passes at once. The rows run
without the SDK (the child's fallback), so these tests need no uipath."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

from helpers.cli import invoke_json, invoke_workbench

SET = "evaluations/eval-sets/s.json"
MAIN = '''def main(input):
    return {"answer": input.get("say", "hi"), "n": 3}
'''
SET_TEXT = '''{
    "version": "1.0",
    "id": "s",
    "name": "S",
    "evaluatorRefs": ["Exact", "Whole", "Order"],
    "evaluations": [
        {"id": "r1", "name": "first", "inputs": {"say": "hi"},
         "evaluationCriterias": {"Exact": {"expectedOutput": {"answer": "hi"}}, "Order": {"toolCallsOrder": []}}}
    ]
}
'''


def _evaluator(ident: str, type_id: str, **config: Any) -> str:
    return json.dumps({"version": "1.0", "id": ident, "name": ident, "evaluatorTypeId": type_id,
                       "evaluatorConfig": {"name": ident, **config}})


def _project(root: Path, *, order_default: list[str] | None = None) -> Path:
    evaluators = root / "evaluations" / "evaluators"
    evaluators.mkdir(parents=True)
    (root / "evaluations" / "eval-sets").mkdir()
    (root / "uipath.json").write_text('{"functions": {"main": "main.py:main"}}', encoding="utf-8")
    (root / "main.py").write_text(MAIN, encoding="utf-8")
    (evaluators / "exact.json").write_text(_evaluator("Exact", "uipath-exact-match", targetOutputKey="answer"))
    (evaluators / "whole.json").write_text(_evaluator("Whole", "uipath-json-similarity"))
    order = {"defaultEvaluationCriteria": {"toolCallsOrder": order_default}} if order_default is not None else {}
    (evaluators / "order.json").write_text(_evaluator("Order", "uipath-tool-call-order", **order))
    (root / SET).write_text(SET_TEXT, encoding="utf-8")
    return root


def _add(root: Path, *more: str) -> Any:
    return invoke_workbench("add-row", str(root), "--set", "s", "--name", "second", "--inputs", '{"say": "yo"}', *more)


def _new_row(root: Path) -> dict[str, Any]:
    rows = json.loads((root / SET).read_text(encoding="utf-8"))["evaluations"]
    assert len(rows) == 2
    return rows[1]


def test_the_new_row_has_a_string_id_and_the_criteria_keyed_by_evaluator_id(tmp_path: Path) -> None:
    root = _project(tmp_path / "coded")
    added = _add(root, "--criterion", 'Order={"toolCallsOrder": []}')
    assert added.returncode == 0, added.stdout + added.stderr
    row = _new_row(root)
    assert isinstance(row["id"], str) and str(uuid.UUID(row["id"])) == row["id"], "a GUID in lower case"
    assert (row["name"], row["inputs"]) == ("second", {"say": "yo"})
    assert row["evaluationCriterias"] == {
        "Exact": {"expectedOutput": {"answer": "yo"}},  # targetOutputKey 'answer': only what it compares
        "Whole": {"expectedOutput": {"answer": "yo", "n": 3}},  # '*': the whole output
        "Order": {"toolCallsOrder": []},
    }
    text = (root / SET).read_text(encoding="utf-8")
    assert text.startswith(SET_TEXT.split('        {"id": "r1"')[0]), "the head of the file is as written"
    assert '        {"id": "r1", "name": "first", "inputs": {"say": "hi"},\n' in text, "the first row as written"
    _, doc = invoke_json("run", str(root), "--row", row["id"])
    assert {r["evaluator"]: r["verdict"] for r in doc["results"]} == {"Exact": "PASS", "Whole": "PASS",
                                                                      "Order": "PASS"}


def test_a_tool_call_evaluator_without_a_default_needs_its_criterion_given(tmp_path: Path) -> None:
    root = _project(tmp_path / "coded")
    refused = _add(root)
    assert refused.returncode != 0
    message = refused.stderr + refused.stdout
    assert "Order (uipath-tool-call-order)" in message and "--criterion Order=" in message
    assert (root / SET).read_text(encoding="utf-8") == SET_TEXT


def test_an_evaluator_with_a_default_gets_null_so_the_sdk_scores_the_row_with_it(tmp_path: Path) -> None:
    """A key missing from evaluationCriterias means the SDK skips that evaluator for the row; `null` means its
    defaultEvaluationCriteria. A new row must be scored by every evaluator of its set, so the key is written."""
    root = _project(tmp_path / "coded", order_default=["lookup"])
    added = _add(root)
    assert added.returncode == 0, added.stdout + added.stderr
    row = _new_row(root)
    assert "Order" in row["evaluationCriterias"] and row["evaluationCriterias"]["Order"] is None
    _, doc = invoke_json("run", str(root), "--row", row["id"])
    assert sorted(r["evaluator"] for r in doc["results"]) == ["Exact", "Order", "Whole"]
