"""One criterion of a row the SDK can't read (uipath-contains given `expectedOutput` instead of `searchText`)
fails the whole row in `uipath eval`: every evaluator scores 0. Here every evaluator of that row is an ERROR
naming the bad criterion, so none is green; the other rows score. (A null criterion of an evaluator without a
default fails the row in the SDK too; here it stays that evaluator's ERROR, so `accept` can still run the row.)"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from coded_sdk import UiPathSdk, run_sdk_eval
from coded_sdk_project import _evaluator, eval_set, write_coded_project
from helpers.cli import invoke_workbench

MAIN_PY = "def main(input: dict) -> dict:\n    return {'answer': 'Paris'}\n"
EVALUATORS = {"e.json": _evaluator("ExactMatch", "uipath-exact-match", targetOutputKey="answer"),
              "c.json": _evaluator("Contains", "uipath-contains", targetOutputKey="answer"),
              "o.json": _evaluator("Order", "uipath-tool-call-order")}
EXACT = {"expectedOutput": {"answer": "Paris"}}
ROWS = [{"id": "bad", "name": "bad", "inputs": {}, "evaluationCriterias": {
            "ExactMatch": EXACT, "Contains": {"expectedOutput": "Paris"}, "Order": {"toolCallsOrder": []}}},
        {"id": "good", "name": "good", "inputs": {}, "evaluationCriterias": {
            "ExactMatch": EXACT, "Contains": {"searchText": "Par"}}},
        {"id": "nodefault", "name": "nodefault", "inputs": {}, "evaluationCriterias": {
            "ExactMatch": EXACT, "Contains": None}}]


def project(root: Path) -> Path:
    return write_coded_project(root, main_py=MAIN_PY, evaluators=EVALUATORS,
                               sets={"x": eval_set("x", ROWS, ["ExactMatch", "Contains", "Order"])})


def workbench_results(root: Path) -> dict[tuple[str, str], dict[str, Any]]:
    proc = invoke_workbench("run", "--no-history", "--json", cwd=root)
    return {(r["row_id"], r["evaluator"]): r for r in json.loads(proc.stdout)["results"]}


def test_every_evaluator_of_a_row_with_a_bad_criterion_is_an_error_naming_it(tmp_path: Path) -> None:
    found = workbench_results(project(tmp_path / "p"))
    bad = {ref: r for (row, ref), r in found.items() if row == "bad"}
    assert set(bad) == {"ExactMatch", "Contains", "Order"}
    assert {r["verdict"] for r in bad.values()} == {"ERROR"}, bad
    assert all("evaluationCriterias['Contains'].searchText is missing" in r["detail"]
               and "fails the whole row" in r["detail"] for r in bad.values()), bad
    # a null criterion without a default: that evaluator's ERROR only (the row runs, so `accept` can write it)
    assert found[("nodefault", "Contains")]["verdict"] == "ERROR", found
    assert "evaluationCriterias['Contains'] is null" in found[("nodefault", "Contains")]["detail"]
    assert {ref: r["verdict"] for (row, ref), r in found.items() if row == "good"} == {
        "ExactMatch": "PASS", "Contains": "PASS"}


def test_the_sdk_fails_the_whole_row_too(tmp_path: Path, uipath_sdk: UiPathSdk) -> None:
    """`uipath eval` scores every evaluator of those rows 0 (what workbench's ERRORs stand for)."""
    root = project(tmp_path / "p")
    doc = run_sdk_eval(uipath_sdk, root, "evaluations/eval-sets/x.json")
    final: dict[tuple[str, str], float] = {}
    for row in doc["evaluationSetResults"]:
        for result in row["evaluationRunResults"]:
            final[(row["evaluationName"], result["evaluatorId"])] = float(result["result"]["score"])  # the last
    assert {key: score for key, score in final.items() if key[0] != "good"} == {
        ("bad", "ExactMatch"): 0.0, ("bad", "Contains"): 0.0, ("bad", "Order"): 0.0,
        ("nodefault", "ExactMatch"): 0.0, ("nodefault", "Contains"): 0.0, ("nodefault", "Order"): 0.0}
    assert final[("good", "ExactMatch")] == final[("good", "Contains")] == 1.0
