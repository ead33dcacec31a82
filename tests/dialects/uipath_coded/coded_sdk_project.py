"""The conformance project: a UiPath coded agent whose every (row, evaluator) score workbench must give exactly
as `uipath eval` does.

`main.py` calls `@traced(span_type="tool")` tools in the order `inputs["order"]` names and returns
`{"answer", "a", "details": {"items": [{"city"}]}}`. The seven evaluators of issue 26 (file names differ from
their ids): exact match case-insensitive (`ExactMatch`, on `answer`) and case-sensitive (`ExactMatchCS`, on the
path `details.items[0].city`, with a default criterion), contains case-insensitive (`Contains`, on `answer`)
and case-sensitive (`ContainsCS`, on the whole output as Python prints it), json-similarity (`JsonSimilarity`,
on the keys `["answer", "a"]`), tool-call order forward (`ToolOrder`: lookup, weather, book) and reversed
(`ToolOrderReversed`: book, weather, lookup), both `strict: false`. The rows pass and fail each one, with
`null` and `{}` criteria, row-level `expectedOutput`s, numbers that differ (graded), strings differing by case,
`true` against `1` and a row scored by two evaluators only. EXPECTED_SCORES is what the SDK 2.14.44 gave
(a test checks it still does), for tests that run without the SDK.

Beside it: `build_edges_project` (negated, strict order, tool-call count/args/output, evaluators that raise, an
agent that raises, a set with evaluatorConfigs), `build_shapes_project` (main returning a string, a list, None, a
model, ...) and `build_generated_project` (N rows for benchmarks). `write_coded_project` writes any such project.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

SET_ID = "conformance"
SET_FILE = f"evaluations/eval-sets/{SET_ID}.json"

MAIN_PY = '''\
"""A coded agent for the conformance tests: tools traced as UiPath's SDK traces them."""

from uipath.tracing import traced


@traced(span_type="tool")
def lookup(city):
    return {"city": city}


@traced(span_type="tool")
def weather(city):
    return "sunny in " + city


@traced(span_type="tool")
def book(city):
    return {"booked": city}


TOOLS = {"lookup": lookup, "weather": weather, "book": book}


def main(input: dict) -> dict:
    city = input.get("city", "Paris")
    for name in input.get("order", []):
        TOOLS[name](city)
    return {"answer": input.get("answer", ""), "a": input.get("a", 0), "details": {"items": [{"city": city}]}}
'''


def _evaluator(ident: str, type_id: str, **config: Any) -> dict[str, Any]:
    return {"version": "1.0", "id": ident, "name": ident, "evaluatorTypeId": type_id,
            "evaluatorConfig": {"name": ident, **config}}


# file name -> evaluator document; the ids are not the file names on purpose
EVALUATORS: dict[str, dict[str, Any]] = {
    "exact-ci.json": _evaluator("ExactMatch", "uipath-exact-match", targetOutputKey="answer"),
    "exact-cs.json": _evaluator("ExactMatchCS", "uipath-exact-match", targetOutputKey="details.items[0].city",
                                caseSensitive=True, defaultEvaluationCriteria={
                                    "expectedOutput": {"details": {"items": [{"city": "Paris"}]}}}),
    "contains-ci.json": _evaluator("Contains", "uipath-contains", targetOutputKey="answer",
                                   defaultEvaluationCriteria={"searchText": "paris"}),
    "contains-cs.json": _evaluator("ContainsCS", "uipath-contains", targetOutputKey="*", caseSensitive=True,
                                   defaultEvaluationCriteria={"searchText": "Paris"}),
    "json-sim.json": _evaluator("JsonSimilarity", "uipath-json-similarity", targetOutputKey=["answer", "a"]),
    "order-forward.json": _evaluator("ToolOrder", "uipath-tool-call-order", strict=False,
                                     defaultEvaluationCriteria={"toolCallsOrder": ["lookup", "weather", "book"]}),
    "order-reversed.json": _evaluator("ToolOrderReversed", "uipath-tool-call-order", strict=False,
                                      defaultEvaluationCriteria={"toolCallsOrder": ["book", "weather", "lookup"]}),
}
EVALUATOR_IDS: list[str] = [doc["id"] for doc in EVALUATORS.values()]

ALL_TOOLS = ["lookup", "weather", "book"]


def _row(ident: str, name: str, inputs: dict[str, Any], criteria: dict[str, Any],
         expected_output: Any = None) -> dict[str, Any]:
    row: dict[str, Any] = {"id": ident, "name": name, "inputs": inputs}
    if expected_output is not None:
        row["expectedOutput"] = expected_output
    row["evaluationCriterias"] = criteria
    return row


def _answer(text: Any) -> dict[str, Any]:
    return {"expectedOutput": {"answer": text}}


ROWS: list[dict[str, Any]] = [
    _row("r01", "r01 defaults pass", {"order": ALL_TOOLS, "answer": "The Capital of France is Paris", "a": 10,
                                      "city": "Paris"},
         {"ExactMatch": _answer("the capital of france is paris"), "ExactMatchCS": None, "Contains": None,
          "ContainsCS": None,
          "JsonSimilarity": {"expectedOutput": {"answer": "The Capital of France is Paris", "a": 10}},
          "ToolOrder": None, "ToolOrderReversed": None}),
    _row("r02", "r02 case differs", {"order": ["book", "weather", "lookup"], "answer": "the capital of france is paris",
                                     "a": 9, "city": "paris"},
         {"ExactMatch": _answer("THE CAPITAL OF FRANCE IS PARIS"), "ExactMatchCS": None,
          "Contains": {"searchText": "PARIS"}, "ContainsCS": None,
          "JsonSimilarity": {"expectedOutput": {"answer": "the capital of france is paris", "a": 10}},
          "ToolOrder": None, "ToolOrderReversed": None}),
    _row("r03", "r03 row-level expectedOutput", {"order": ["lookup", "weather"],
                                                 "answer": "Berlin is the capital of Germany", "a": 2.5,
                                                 "city": "Berlin"},
         {"ExactMatch": None, "ExactMatchCS": {}, "Contains": {}, "ContainsCS": {"searchText": "Berlin"},
          "JsonSimilarity": None, "ToolOrder": {"toolCallsOrder": ["lookup", "weather"]}, "ToolOrderReversed": None},
         expected_output={"answer": "berlin is the capital of germany", "a": 3,
                          "details": {"items": [{"city": "Berlin"}]}}),
    _row("r04", "r04 the criterion's own expectedOutput wins", {"order": [], "answer": "Rome", "a": 0, "city": "Rome"},
         {"ExactMatch": _answer("rome"), "ExactMatchCS": {"expectedOutput": {"details": {"items": [{"city": "Rome"}]}}},
          "Contains": {"searchText": "rom"}, "ContainsCS": {"searchText": "ROME"},
          "JsonSimilarity": {"expectedOutput": {"answer": "Rome", "a": 0}}, "ToolOrder": None,
          "ToolOrderReversed": {"toolCallsOrder": []}},
         expected_output={"answer": "wrong", "a": 5, "details": {"items": [{"city": "Nowhere"}]}}),
    _row("r05", "r05 numbers graded", {"order": ["weather", "lookup"], "answer": "Madrid", "a": 100, "city": "Madrid"},
         {"ExactMatch": _answer("Barcelona"),
          "ExactMatchCS": {"expectedOutput": {"details": {"items": [{"city": "madrid"}]}}},
          "Contains": {"searchText": "MAD"}, "ContainsCS": {"searchText": "Madrid"},
          "JsonSimilarity": {"expectedOutput": {"answer": "Madrid", "a": 80}}, "ToolOrder": None,
          "ToolOrderReversed": None}),
    _row("r06", "r06 two evaluators only", {"order": ["lookup"], "answer": "Lisbon", "a": 1, "city": "Lisbon"},
         {"ExactMatch": _answer("lisbon"), "ToolOrder": {"toolCallsOrder": ["lookup", "book"]}}),
    _row("r07", "r07 repeated tools and case in json", {"order": ["lookup", "lookup", "weather", "book", "book"],
                                                        "answer": "Vienna Is Lovely", "a": 7, "city": "Vienna"},
         {"ExactMatch": _answer("VIENNA IS LOVELY"), "ExactMatchCS": None, "Contains": None,
          "ContainsCS": {"searchText": "Vienna Is"},
          "JsonSimilarity": {"expectedOutput": {"answer": "vienna is lovely", "a": 7}},
          "ToolOrder": None, "ToolOrderReversed": None}),
    _row("r08", "r08 a number as the answer", {"order": ["book"], "answer": 42, "a": 0, "city": "Oslo"},
         {"ExactMatch": _answer(42.0), "ExactMatchCS": None, "Contains": {"searchText": "42"},
          "ContainsCS": {"searchText": "'answer': 42.0"},
          "JsonSimilarity": {"expectedOutput": {"answer": "42", "a": 0}},
          "ToolOrder": {"toolCallsOrder": ["book"]}, "ToolOrderReversed": None}),
    _row("r09", "r09 true against 1", {"order": ["weather", "book"], "answer": True, "a": 0.0, "city": "Bern"},
         {"ExactMatch": _answer(1), "Contains": {"searchText": "TRUE"}, "ContainsCS": {"searchText": "true"},
          "JsonSimilarity": {"expectedOutput": {"answer": True, "a": 0}}, "ToolOrder": None,
          "ToolOrderReversed": None}),
]

# the SDK reports a row by its name, workbench by its id (and name)
ROW_ID_OF_NAME: dict[str, str] = {row["name"]: row["id"] for row in ROWS}


def eval_set(set_id: str, rows: Sequence[Mapping[str, Any]], refs: Sequence[str]) -> dict[str, Any]:
    """A version 1.0 eval set document."""
    return {"version": "1.0", "id": set_id, "name": set_id, "evaluatorRefs": list(refs), "evaluations": list(rows)}


def write_coded_project(root: Path, *, main_py: str, evaluators: Mapping[str, Mapping[str, Any]],
                        sets: Mapping[str, Mapping[str, Any]], interpreter: str | None = None) -> Path:
    """A coded-agent project at `root`: uipath.json (`main` -> main.py:main), main.py, the evaluators
    (file name -> document) and sets (set id -> document, written to eval-sets/<id>.json). With `interpreter`,
    a workbench.toml whose `[runner] command` names it (the rows then run in that Python)."""
    (root / "evaluations" / "eval-sets").mkdir(parents=True, exist_ok=True)
    (root / "evaluations" / "evaluators").mkdir(parents=True, exist_ok=True)
    (root / "uipath.json").write_text(json.dumps({"functions": {"main": "main.py:main"}}, indent=2) + "\n",
                                      encoding="utf-8")
    (root / "main.py").write_text(main_py, encoding="utf-8")
    for name, doc in evaluators.items():
        (root / "evaluations" / "evaluators" / name).write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    for set_id, doc in sets.items():
        (root / "evaluations" / "eval-sets" / f"{set_id}.json").write_text(json.dumps(doc, indent=2) + "\n",
                                                                           encoding="utf-8")
    if interpreter is not None:
        (root / "workbench.toml").write_text(f"[runner]\ncommand = [{json.dumps(interpreter)}]\n", encoding="utf-8")
    return root


def build_conformance_project(root: Path, interpreter: str | None = None) -> Path:
    """The conformance project at `root` (made if missing); see the module's docstring."""
    return write_coded_project(root, main_py=MAIN_PY, evaluators=EVALUATORS,
                               sets={SET_ID: eval_set(SET_ID, ROWS, EVALUATOR_IDS)}, interpreter=interpreter)



CITIES = ["Paris", "Berlin", "Rome", "Madrid", "Oslo", "Vienna", "Lisbon"]
ORDERS = [ALL_TOOLS, ["book", "weather", "lookup"], ["weather", "lookup", "book"], ["lookup", "weather"],
          ["book"], ["lookup", "lookup", "book"]]


def generated_rows(count: int) -> list[dict[str, Any]]:
    """`count` rows scored by all seven evaluators, every criterion `null` (the defaults, and the row-level
    `expectedOutput` for the output ones), passing and failing in a fixed pattern (for benchmarks)."""
    rows = []
    for index in range(count):
        city = CITIES[index % len(CITIES)]
        answer = f"The capital is {city}" if index % 3 else f"the capital is {city.lower()}"
        expected_city = city if index % 4 else city.upper()
        expected = {"answer": f"The capital is {CITIES[(index + (index % 11 == 0)) % len(CITIES)]}",
                    "a": 10 + index % 3, "details": {"items": [{"city": expected_city}]}}
        rows.append(_row(f"g{index:04d}", f"g{index:04d} {city}", {"order": ORDERS[index % len(ORDERS)],
                                                                 "answer": answer, "a": 10 + index % 4,
                                                                 "city": city},
                         dict.fromkeys(EVALUATOR_IDS), expected_output=expected))
    return rows


def build_generated_project(root: Path, count: int, interpreter: str | None = None) -> Path:
    """A project of one set, `generated` (evaluations/eval-sets/generated.json), of `generated_rows(count)`."""
    return write_coded_project(root, main_py=MAIN_PY, evaluators=EVALUATORS,
                               sets={"generated": eval_set("generated", generated_rows(count), EVALUATOR_IDS)},
                               interpreter=interpreter)


EDGES_SET_ID = "edges"
EDGES_SET_FILE = f"evaluations/eval-sets/{EDGES_SET_ID}.json"

# The edges agent can also fail: `{"fail": true}` raises before any tool runs.
EDGES_MAIN_PY = MAIN_PY.replace('    city = input.get("city", "Paris")\n',
                                '    if input.get("fail"):\n        raise ValueError("asked to fail")\n'
                                '    city = input.get("city", "Paris")\n')

EDGE_EVALUATORS: dict[str, dict[str, Any]] = {
    "negated-exact.json": _evaluator("NegatedExact", "uipath-exact-match", targetOutputKey="answer", negated=True),
    "negated-contains.json": _evaluator("NegatedContains", "uipath-contains", targetOutputKey="answer",
                                        negated=True, caseSensitive=True,
                                        defaultEvaluationCriteria={"searchText": "Paris"}),
    "strict-order.json": _evaluator("StrictOrder", "uipath-tool-call-order", strict=True,
                                    defaultEvaluationCriteria={"toolCallsOrder": ["lookup", "weather"]}),
    "count.json": _evaluator("Count", "uipath-tool-call-count", defaultEvaluationCriteria={
        "toolCallsCount": {"lookup": [">=", 1], "book": ["=", 0]}}),
    "args.json": _evaluator("Args", "uipath-tool-call-args", subset=True, defaultEvaluationCriteria={
        "toolCalls": [{"name": "lookup", "args": {"city": "Paris"}}]}),
    "outputs.json": _evaluator("Outputs", "uipath-tool-call-output", defaultEvaluationCriteria={
        "toolOutputs": [{"name": "weather", "output": "sunny in Paris"}]}),
    "path-exact.json": _evaluator("PathExact", "uipath-exact-match", targetOutputKey="details.items[0].missing"),
    "whole-exact.json": _evaluator("WholeExact", "uipath-exact-match", caseSensitive=True),
    "whole-json.json": _evaluator("WholeJson", "uipath-json-similarity"),
    "lines.json": _evaluator("Lines", "uipath-exact-match", targetOutputKey="answer", lineByLineEvaluator=True),
}
EDGE_EVALUATOR_IDS: list[str] = [doc["id"] for doc in EDGE_EVALUATORS.values()]

EDGE_ROWS: list[dict[str, Any]] = [
    _row("e01", "e01 forward", {"order": ["lookup", "weather"], "answer": "Paris", "a": 1, "city": "Paris"},
         {"NegatedExact": _answer("paris"), "NegatedContains": {"searchText": "x"}, "StrictOrder": None,
          "Count": None, "Args": None, "Outputs": None,
          "PathExact": {"expectedOutput": {"details": {"items": [{"missing": 1}]}}},
          "WholeExact": {"expectedOutput": {"answer": "Paris", "a": 1.0, "details": {"items": [{"city": "Paris"}]}}},
          "WholeJson": {"expectedOutput": {"answer": "Paris", "extra": [1, 2]}},
          "Lines": {"expectedOutput": {"answer": "paris\nLyon"}}}),
    _row("e02", "e02 reversed and booked", {"order": ["weather", "lookup", "book"], "answer": "Rome", "a": 2,
                                            "city": "paris"},
         {"NegatedExact": _answer("paris"), "NegatedContains": None, "StrictOrder": None, "Count": None,
          "Args": None, "Outputs": {"toolOutputs": [{"name": "weather", "output": "sunny in paris"},
                                                    {"name": "book", "output": "booked"}]},
          "PathExact": {"expectedOutput": "not json"},
          "WholeExact": {"expectedOutput": "{'answer': 'Rome', 'a': 2.0, 'details': {'items': [{'city': 'paris'}]}}"},
          "WholeJson": {"expectedOutput": {"answer": "rome", "a": 4, "details": {"items": [{"city": "Paris"}, 1]}}},
          "Lines": {"expectedOutput": {"answer": "Rome"}}}),
    _row("e03", "e03 the agent fails", {"fail": True, "order": ["lookup"]},
         {"NegatedExact": _answer("x"), "NegatedContains": None, "StrictOrder": None, "Count": None,
          "WholeJson": {"expectedOutput": {}}}),
]
# rows whose agent raises: workbench gives their evaluators an ERROR; uipath eval a 0 for every evaluator of the set
EDGE_ROWS_THE_AGENT_FAILS = {"e03"}
EDGE_ROW_ID_OF_NAME: dict[str, str] = {row["name"]: row["id"] for row in EDGE_ROWS}


# a set whose evaluatorConfigs (not its evaluatorRefs, which name all nine) say which evaluators score its rows
CONFIGS_SET_ID = "edges-configs"
CONFIGS_SET_FILE = f"evaluations/eval-sets/{CONFIGS_SET_ID}.json"
CONFIGS_REFS: list[Any] = [{"ref": "NegatedExact", "weight": 2}, "Count"]


def build_edges_project(root: Path, interpreter: str | None = None) -> Path:
    """Beyond the issue's seven: negated, strict order, tool-call count/args/output, a missing path and an
    unparseable expectedOutput (errors), the whole output compared, line by line, an agent that raises (set
    `edges`); and
    `edges-configs`, two of those rows under a set whose evaluatorConfigs name two evaluators only."""
    configs = eval_set(CONFIGS_SET_ID, EDGE_ROWS[:2], EDGE_EVALUATOR_IDS)
    configs["evaluatorConfigs"] = CONFIGS_REFS
    return write_coded_project(root, main_py=EDGES_MAIN_PY, evaluators=EDGE_EVALUATORS,
                               sets={EDGES_SET_ID: eval_set(EDGES_SET_ID, EDGE_ROWS, EDGE_EVALUATOR_IDS),
                                     CONFIGS_SET_ID: configs},
                               interpreter=interpreter)


SHAPES_SET_ID = "shapes"
SHAPES_SET_FILE = f"evaluations/eval-sets/{SHAPES_SET_ID}.json"
SHAPES_MAIN_PY = '''\
"""An agent whose output is not always an object: the runtime turns each into the output the evaluators see."""

import dataclasses

from pydantic import BaseModel


class Answer(BaseModel):
    answer: str
    n: int = 1


@dataclasses.dataclass
class Plain:
    answer: str


OUTPUTS = {"str": lambda: "Paris", "list": lambda: ["Paris", 1], "tuple": lambda: ("Paris", 2), "none": lambda: None,
           "zero": lambda: 0, "int": lambda: 5, "float": lambda: 2.5, "true": lambda: True, "false": lambda: False,
           "empty": dict, "model": lambda: Answer(answer="Paris"), "dataclass": lambda: Plain(answer="Paris"),
           "nested model": lambda: {"m": Answer(answer="Paris")}}


def main(input: dict):
    return OUTPUTS[input["kind"]]()
'''
SHAPE_KINDS = ["str", "list", "tuple", "none", "zero", "int", "float", "true", "false", "empty", "model", "dataclass",
               "nested model"]
# an output holding a value that is not JSON (a model inside a dict): uipath eval scores Python's str() of it;
# workbench makes the row an ERROR rather than score a text it would have to guess
SHAPES_NOT_JSON = {"nested model"}
SHAPE_EVALUATORS: dict[str, dict[str, Any]] = {
    "exact.json": _evaluator("Exact", "uipath-exact-match"),
    "exact-result.json": _evaluator("ExactResult", "uipath-exact-match", targetOutputKey="result"),
    "contains.json": _evaluator("Contains", "uipath-contains"),
    "json.json": _evaluator("Json", "uipath-json-similarity"),
}
SHAPE_ROWS: list[dict[str, Any]] = [
    _row(kind, kind, {"kind": kind}, {"Exact": {"expectedOutput": {"result": "Paris"}},
                                      "ExactResult": {"expectedOutput": {"result": "paris"}},
                                      "Contains": {"searchText": "Paris"},
                                      "Json": {"expectedOutput": {"answer": "Paris", "result": "Paris"}}})
    for kind in SHAPE_KINDS]


def build_shapes_project(root: Path, interpreter: str | None = None) -> Path:
    """An agent returning a string, a list, a tuple, None, numbers, booleans, {}, a pydantic model, a dataclass
    and a dict holding a model, scored on the whole output and on `result` (where the runtime puts a non-object)."""
    ids = [doc["id"] for doc in SHAPE_EVALUATORS.values()]
    return write_coded_project(root, main_py=SHAPES_MAIN_PY, evaluators=SHAPE_EVALUATORS,
                               sets={SHAPES_SET_ID: eval_set(SHAPES_SET_ID, SHAPE_ROWS, ids)}, interpreter=interpreter)

# (row id, evaluator id) -> the score `uipath eval` (2.14.44) gave; a pair absent here has no result on either side
EXPECTED_SCORES: dict[tuple[str, str], float] = {
    ("r01", "ExactMatch"): 1.0, ("r01", "ExactMatchCS"): 1.0, ("r01", "Contains"): 1.0, ("r01", "ContainsCS"): 1.0,
    ("r01", "JsonSimilarity"): 1.0, ("r01", "ToolOrder"): 1.0, ("r01", "ToolOrderReversed"): 0.3333333333333333,
    ("r02", "ExactMatch"): 1.0, ("r02", "ExactMatchCS"): 0.0, ("r02", "Contains"): 1.0, ("r02", "ContainsCS"): 0.0,
    ("r02", "JsonSimilarity"): 0.95, ("r02", "ToolOrder"): 0.3333333333333333, ("r02", "ToolOrderReversed"): 1.0,
    ("r03", "ExactMatch"): 1.0, ("r03", "ExactMatchCS"): 1.0, ("r03", "Contains"): 0.0, ("r03", "ContainsCS"): 1.0,
    ("r03", "JsonSimilarity"): 0.8854166666666667, ("r03", "ToolOrder"): 1.0,
    ("r03", "ToolOrderReversed"): 0.3333333333333333,
    ("r04", "ExactMatch"): 1.0, ("r04", "ExactMatchCS"): 1.0, ("r04", "Contains"): 1.0, ("r04", "ContainsCS"): 0.0,
    ("r04", "JsonSimilarity"): 1.0, ("r04", "ToolOrder"): 0.0, ("r04", "ToolOrderReversed"): 1.0,
    ("r05", "ExactMatch"): 0.0, ("r05", "ExactMatchCS"): 0.0, ("r05", "Contains"): 1.0, ("r05", "ContainsCS"): 1.0,
    ("r05", "JsonSimilarity"): 0.875, ("r05", "ToolOrder"): 0.3333333333333333,
    ("r05", "ToolOrderReversed"): 0.6666666666666666,
    ("r06", "ExactMatch"): 1.0, ("r06", "ToolOrder"): 0.5,
    ("r07", "ExactMatch"): 1.0, ("r07", "ExactMatchCS"): 0.0, ("r07", "Contains"): 0.0, ("r07", "ContainsCS"): 1.0,
    ("r07", "JsonSimilarity"): 0.90625, ("r07", "ToolOrder"): 1.0, ("r07", "ToolOrderReversed"): 0.3333333333333333,
    ("r08", "ExactMatch"): 1.0, ("r08", "ExactMatchCS"): 0.0, ("r08", "Contains"): 1.0, ("r08", "ContainsCS"): 1.0,
    ("r08", "JsonSimilarity"): 0.5, ("r08", "ToolOrder"): 1.0, ("r08", "ToolOrderReversed"): 0.3333333333333333,
    ("r09", "ExactMatch"): 1.0, ("r09", "Contains"): 1.0, ("r09", "ContainsCS"): 0.0, ("r09", "JsonSimilarity"): 1.0,
    ("r09", "ToolOrder"): 0.6666666666666666, ("r09", "ToolOrderReversed"): 0.3333333333333333,
}
