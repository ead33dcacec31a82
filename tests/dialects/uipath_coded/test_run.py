"""A coded agent project end to end through the CLI, as a new user tries it: `cd project && workbench run` with no
workbench.toml runs each row's entry point in a warm worker (the project's .venv when it has one) and scores it
by the SDK's rules; `workbench check` and a broken uipath.json say what is wrong in words that name the file."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from coded_sdk import UiPathSdk
from helpers.cli import invoke_json, invoke_workbench

PLAIN_MAIN = """\
def main(input):
    return {"answer": input["answer"], "n": input.get("n", 1)}
"""

TRACED_MAIN = """\
from uipath.tracing import traced

@traced(span_type="tool")
def lookup(city):
    return {"capital": city}

@traced(span_type="tool")
def weather(city):
    return "sunny"

def main(input: dict) -> dict:
    for name in input["order"]:
        {"lookup": lookup, "weather": weather}[name](input["city"])
    return {"answer": f"The capital is {input['city']}"}
"""


def evaluator(ident: str, type_id: str, **config: Any) -> dict[str, Any]:
    return {"version": "1.0", "id": ident, "name": ident, "evaluatorTypeId": type_id,
            "evaluatorConfig": {"name": ident, **config}}


EVALUATORS = {
    "exact.json": evaluator("ExactMatch", "uipath-exact-match", targetOutputKey="answer",
                            defaultEvaluationCriteria={"expectedOutput": {"answer": "paris"}}),
    "contains.json": evaluator("Contains", "uipath-contains", targetOutputKey="answer"),
    "similar.json": evaluator("JsonSim", "uipath-json-similarity", targetOutputKey="*"),
    "order.json": evaluator("ToolOrder", "uipath-tool-call-order", strict=False),
}


def write(root: Path, main_py: str, rows: list[dict[str, Any]], refs: list[str]) -> Path:
    (root / "evaluations" / "eval-sets").mkdir(parents=True)
    (root / "evaluations" / "evaluators").mkdir()
    (root / "uipath.json").write_text(json.dumps({"functions": {"main": "main.py:main"}}), encoding="utf-8")
    (root / "main.py").write_text(main_py, encoding="utf-8")
    for name, doc in EVALUATORS.items():
        (root / "evaluations" / "evaluators" / name).write_text(json.dumps(doc), encoding="utf-8")
    doc = {"version": "1.0", "id": "s", "name": "s", "evaluatorRefs": refs, "evaluations": rows}
    (root / "evaluations" / "eval-sets" / "s.json").write_text(json.dumps(doc, indent=2), encoding="utf-8")
    return root


def scores(doc: dict[str, Any]) -> dict[tuple[str, str], tuple[str, float]]:
    return {(r["row_name"], r["evaluator"]): (r["verdict"], r["score"]) for r in doc["results"]}


PLAIN_ROWS = [
    {"id": "r1", "name": "default", "inputs": {"answer": "Paris"}, "evaluationCriterias": {"ExactMatch": None}},
    {"id": "r2", "name": "row-expected", "inputs": {"answer": "Rome", "n": 9},
     "expectedOutput": {"answer": "ROME", "n": 10},
     "evaluationCriterias": {"ExactMatch": {}, "JsonSim": None, "Contains": {"searchText": "OM"}}},
    {"id": "r3", "name": "not-scored", "inputs": {"answer": "x"}, "evaluationCriterias": {}},
]


def test_run_in_the_project_with_no_settings_scores_by_the_sdks_rules(tmp_path: Path) -> None:
    """Workbench's own interpreter runs the rows here (no .venv, no [runner]): the child's fallback path."""
    root = write(tmp_path / "agent", PLAIN_MAIN, PLAIN_ROWS, ["ExactMatch", "Contains", "JsonSim"])
    proc, doc = invoke_json("run", "--no-history", cwd=root)
    assert scores(doc) == {
        ("default", "ExactMatch"): ("PASS", 1.0),  # null: the evaluator's default, compared case-insensitively
        ("row-expected", "ExactMatch"): ("PASS", 1.0),  # {}: the row's expectedOutput
        ("row-expected", "Contains"): ("PASS", 1.0),  # its own searchText; the row's expectedOutput not used
        ("row-expected", "JsonSim"): ("FAIL", 0.575),  # leaves: "Rome"/"ROME" 1 - 3/4, 9/10 1 - 1/10; halved
    }
    assert ("not-scored", "ExactMatch") not in scores(doc)
    assert proc.returncode == 1
    assert not (root / "workbench.toml").exists()


def test_json_similarity_and_the_row_level_expected_output(tmp_path: Path) -> None:
    rows = [{"id": "r1", "name": "near", "inputs": {"answer": "Rome", "n": 9}, "expectedOutput": {"n": 10},
             "evaluationCriterias": {"JsonSim": None}},
            {"id": "r2", "name": "own-wins", "inputs": {"answer": "Rome"}, "expectedOutput": {"answer": "Oslo"},
             "evaluationCriterias": {"JsonSim": {"expectedOutput": {"answer": "Rome"}}}}]
    root = write(tmp_path / "agent", PLAIN_MAIN, rows, ["JsonSim"])
    _, doc = invoke_json("run", "--no-history", cwd=root)
    found = scores(doc)
    assert found[("near", "JsonSim")][0] == "FAIL" and abs(found[("near", "JsonSim")][1] - 0.9) < 1e-9
    assert found[("own-wins", "JsonSim")] == ("PASS", 1.0)


def test_a_broken_uipath_json_stops_the_run_naming_it(tmp_path: Path) -> None:
    root = write(tmp_path / "agent", PLAIN_MAIN, PLAIN_ROWS[:1], ["ExactMatch"])
    (root / "uipath.json").write_text('{"functions": {"main": "main.py:main"', encoding="utf-8")
    proc = invoke_workbench("run", "--no-history", cwd=root)
    assert proc.returncode != 0
    assert "uipath.json is not valid JSON at line 1" in proc.stderr


def test_check_names_an_entry_file_that_is_not_there(tmp_path: Path) -> None:
    root = write(tmp_path / "agent", PLAIN_MAIN, PLAIN_ROWS[:1], ["ExactMatch"])
    (root / "uipath.json").write_text(json.dumps({"functions": {"main": "agent/main.py:main"}}), encoding="utf-8")
    proc = invoke_workbench("check", str(root))
    assert proc.returncode != 0
    assert "uipath.json" in proc.stdout + proc.stderr
    assert "functions[\"main\"] names 'agent/main.py', which does not exist" in proc.stdout + proc.stderr


TRACED_ROWS = [
    {"id": "t1", "name": "in-order", "inputs": {"city": "Paris", "order": ["lookup", "weather"]},
     "evaluationCriterias": {"ExactMatch": {"expectedOutput": {"answer": "THE CAPITAL IS PARIS"}},
                             "ToolOrder": {"toolCallsOrder": ["lookup", "weather"]}}},
    {"id": "t2", "name": "reversed", "inputs": {"city": "Rome", "order": ["weather", "lookup"]},
     "evaluationCriterias": {"ToolOrder": {"toolCallsOrder": ["lookup", "weather"]}}},
]


def test_the_projects_venv_runs_the_rows_and_traced_tools_are_the_trace(tmp_path: Path, uipath_sdk: UiPathSdk) -> None:
    """`.venv` is the SDK's venv (a link to it): the rows run in it with no settings, through the SDK's runtime,
    and the spans `traced(span_type="tool")` records score the tool-call order (0.5 for a reversed pair)."""
    root = write(tmp_path / "agent", TRACED_MAIN, TRACED_ROWS, ["ExactMatch", "ToolOrder"])
    os.symlink(uipath_sdk.python.parent.parent, root / ".venv")
    proc, doc = invoke_json("run", "--no-history", cwd=root)
    assert scores(doc) == {("in-order", "ExactMatch"): ("PASS", 1.0), ("in-order", "ToolOrder"): ("PASS", 1.0),
                           ("reversed", "ToolOrder"): ("FAIL", 0.5)}, proc.stdout + proc.stderr
    reversed_row = next(r for r in doc["results"] if r["row_name"] == "reversed")
    calls = [event["name"] for event in reversed_row["trace"] if event["type"] == "tool_call"]
    assert calls == ["weather", "lookup"]
    assert reversed_row["trace"][0]["span"]["attributes"]["tool.name"] == "weather"


def test_the_text_report_says_a_graded_score_once(tmp_path: Path) -> None:
    root = write(tmp_path / "agent", PLAIN_MAIN, PLAIN_ROWS, ["ExactMatch", "Contains", "JsonSim"])
    proc = invoke_workbench("run", "--no-history", cwd=root)
    (line,) = [line for line in proc.stdout.splitlines() if "0.575" in line and "threshold" in line]
    assert line.count("0.575") == 1
    assert "FAIL  s.json › row-expected [JsonSim]" in proc.stdout
