"""A coded agent row in the HTML report (`html.detail_blocks`): the inputs, what changes the comparison, then for
an output evaluator expected | actual at its targetOutputKey as the SDK selects them (numbers as floats; the
criterion it was scored with: a null one's default or the row's own expectedOutput; a contains evaluator's
searchText), differing paths marked on a FAIL; for a tool-call evaluator the expected order, counts, calls or
outputs and the calls recorded from the spans in end order; then the whole output (collapsed). A result read
from history without its row or evaluator still draws; a key missing from the output says so."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from helpers.cli import invoke_workbench
from helpers.html_report import embedded_data

from workbench.dialects.detail import RowDetail
from workbench.dialects.uipath_coded.html import detail_blocks
from workbench.model import EvaluatorDef, Result, Row, Verdict

OUTPUT = {"capital": "Tokyo", "answer": "The capital of Japan is Tokyo.", "population": 14}


def _evaluator(ref: str, type_id: str, **config: Any) -> EvaluatorDef:
    return EvaluatorDef("evaluations", ref, Path(f"{ref}.json"), ref, ref, type_id, {"name": ref, **config},
                        {}, dialect="uipath-coded")


def _result(ref: str, type_id: str, verdict: Verdict = Verdict.FAIL, *, actual: Any = OUTPUT, expected: Any = None,
            trace: list[dict[str, Any]] | None = None) -> Result:
    return Result("evaluations", "default.json", "r1", "japan", ref, verdict, 0.0, "why", actual=actual,
                  expected=expected, evaluator_type=type_id, trace=trace or [], inputs={"country": "Japan"})


def _row(criteria: dict[str, Any], **raw: Any) -> Row:
    return Row("r1", "japan", {"country": "Japan"}, criteria, 0,
               {"id": "r1", "inputs": {"country": "Japan"}, "evaluationCriterias": criteria, **raw})


def _span(name: str, args: dict[str, Any], output: Any, **attributes: Any) -> dict[str, Any]:
    attrs = {"tool.name": name, "input.value": json.dumps(args), "output.value": json.dumps(output), **attributes}
    return {"type": "tool_call", "name": name, "args": args, "output": output,
            "span": {"name": name, "attributes": attrs}}


def _kinds(blocks: list[dict[str, Any]]) -> list[str]:
    return [block["kind"] for block in blocks]


def _titled(blocks: list[dict[str, Any]], title: str) -> dict[str, Any]:
    [block] = [b for b in blocks if b.get("title") == title]
    return block


def test_an_output_evaluator_shows_both_sides_at_its_key_as_the_sdk_selects_them() -> None:
    evaluator = _evaluator("Exact", "uipath-exact-match", targetOutputKey="capital", caseSensitive=True)
    row = _row({"Exact": {"expectedOutput": {"capital": "Kyoto", "extra": 1}}})
    blocks = detail_blocks(RowDetail(_result("Exact", "uipath-exact-match"), row, evaluator))
    assert _kinds(blocks) == ["json", "text", "sides", "json"]
    assert blocks[0] == {"kind": "json", "title": "Inputs", "value": {"country": "Japan"}, "collapsed": False}
    assert _titled(blocks, "Options")["text"] == "case-sensitive"
    sides = blocks[2]
    assert (sides["left"], sides["right"]) == ({"title": "Expected (capital)", "value": "Kyoto"},
                                              {"title": "Actual (capital)", "value": "Tokyo"})
    assert sides["differ"] == [[]], "the selected values differ as a whole"
    assert blocks[-1] == {"kind": "json", "title": "Output", "value": OUTPUT, "collapsed": True}


def test_numbers_are_compared_as_floats_and_a_list_of_keys_selects_an_object() -> None:
    evaluator = _evaluator("Keys", "uipath-json-similarity", targetOutputKey=["capital", "population"])
    row = _row({"Keys": {"expectedOutput": {"capital": "Tokyo", "population": 13}}})
    sides = detail_blocks(RowDetail(_result("Keys", "uipath-json-similarity"), row, evaluator))[1]
    assert sides["left"]["value"] == {"capital": "Tokyo", "population": 13.0}
    assert sides["right"]["value"] == {"capital": "Tokyo", "population": 14.0}
    assert sides["differ"] == [["population"]]
    assert sides["left"]["title"] == "Expected (capital, population)"


def test_a_null_criterion_shows_what_it_was_scored_against() -> None:
    evaluator = _evaluator("Exact", "uipath-exact-match", targetOutputKey="capital")
    from_row = _row({"Exact": None}, expectedOutput={"capital": "Tokyo"})
    sides = detail_blocks(RowDetail(_result("Exact", "uipath-exact-match", Verdict.PASS), from_row, evaluator))[-2]
    assert sides["left"]["value"] == "Tokyo" and sides["differ"] == [], "the row's own expectedOutput"
    contains = _evaluator("Has", "uipath-contains", targetOutputKey="answer",
                          defaultEvaluationCriteria={"searchText": "tokyo"})
    sides = detail_blocks(RowDetail(_result("Has", "uipath-contains", Verdict.PASS), _row({"Has": None}), contains))[-2]
    assert sides["left"] == {"title": "Expected in it (searchText)", "value": "tokyo"}
    assert sides["right"] == {"title": "Actual (answer)", "value": "The capital of Japan is Tokyo."}


def test_a_key_the_output_lacks_is_said_not_drawn_as_a_difference() -> None:
    evaluator = _evaluator("Exact", "uipath-exact-match", targetOutputKey="city")
    row = _row({"Exact": {"expectedOutput": {"city": "Tokyo"}}})
    blocks = detail_blocks(RowDetail(_result("Exact", "uipath-exact-match", Verdict.ERROR), row, evaluator))
    problem = _titled(blocks, "Compared")
    assert problem["tone"] == "error" and "has no key 'city'" in problem["text"]


def test_a_tool_call_evaluator_shows_the_expected_order_and_the_calls_recorded() -> None:
    evaluator = _evaluator("Order", "uipath-tool-call-order",
                           defaultEvaluationCriteria={"toolCallsOrder": ["find_capital", "write_answer"]})
    trace = [_span("write_answer", {"country": "Japan", "capital": "?"}, "The capital of Japan is ?."),
             {"type": "span", "name": "main", "span": {"name": "main", "attributes": {"span_type": "function"}}},
             _span("plan", {}, None, **{"tool.synthesized": True}),
             _span("find_capital", {"country": "Japan"}, "Tokyo", **{"tool.id": "call_7"})]
    result = _result("Order", "uipath-tool-call-order", trace=trace)
    blocks = detail_blocks(RowDetail(result, _row({"Order": None}), evaluator))
    assert _kinds(blocks) == ["json", "text", "steps", "json"]
    assert _titled(blocks, "Expected order")["text"] == "find_capital → write_answer"
    steps = _titled(blocks, "Tool calls recorded (2)")
    assert steps["head"] == ["call", "output"]
    assert [item["cells"] for item in steps["items"]] == [
        ['write_answer(country="Japan", capital="?")', '"The capital of Japan is ?."'],
        ['find_capital#call_7(country="Japan")', '"Tokyo"']], "synthesized and non-tool spans are no calls"


def test_the_other_tool_call_evaluators_say_what_they_expect() -> None:
    cases = {
        "uipath-tool-call-count": ({"toolCallsCount": {"find_capital": ["=", 1], "write_answer": [">=", 2]}},
                                   "Expected counts", "find_capital: exactly 1\nwrite_answer: at least 2"),
        "uipath-tool-call-args": ({"toolCalls": [{"name": "find_capital", "args": {"country": "Japan"}}]},
                                  "Expected calls and arguments", 'find_capital {"country":"Japan"}'),
        "uipath-tool-call-output": ({"toolOutputs": [{"name": "find_capital", "output": "Tokyo"}]},
                                    "Expected outputs", 'find_capital "Tokyo"'),
    }
    for type_id, (criterion, title, text) in cases.items():
        blocks = detail_blocks(RowDetail(_result("T", type_id), _row({"T": criterion}), _evaluator("T", type_id)))
        assert _titled(blocks, title)["text"] == text, type_id


def test_a_result_from_history_without_its_row_or_evaluator_still_draws() -> None:
    result = _result("Gone", "uipath-exact-match", expected={"capital": "Kyoto"})
    blocks = detail_blocks(RowDetail(result))
    sides = blocks[1]
    assert sides["left"]["value"] == {"capital": "Kyoto"} and sides["right"]["value"] == OUTPUT
    tool = detail_blocks(RowDetail(_result("Gone", "uipath-tool-call-order", trace=[_span("x", {}, 1)])))
    assert _titled(tool, "Expected order")["text"] == "(none written)"


def test_the_report_of_a_run_draws_coded_rows_with_these_blocks(tmp_path: Path) -> None:
    root = tmp_path / "coded"
    (root / "evaluations" / "evaluators").mkdir(parents=True)
    (root / "evaluations" / "eval-sets").mkdir()
    (root / "uipath.json").write_text('{"functions": {"main": "main.py:main"}}', encoding="utf-8")
    (root / "main.py").write_text('def main(input):\n    return {"capital": "Tokyo"}\n', encoding="utf-8")
    (root / "evaluations" / "evaluators" / "exact.json").write_text(json.dumps(
        {"version": "1.0", "id": "Exact", "name": "Exact", "evaluatorTypeId": "uipath-exact-match",
         "evaluatorConfig": {"name": "Exact", "targetOutputKey": "capital"}}), encoding="utf-8")
    (root / "evaluations" / "eval-sets" / "s.json").write_text(json.dumps(
        {"version": "1.0", "id": "s", "name": "S", "evaluatorRefs": ["Exact"],
         "evaluations": [{"id": "r1", "name": "japan", "inputs": {"country": "Japan"},
                          "evaluationCriterias": {"Exact": {"expectedOutput": {"capital": "Kyoto"}}}}]}),
        encoding="utf-8")
    page = tmp_path / "report.html"
    ran = invoke_workbench("run", str(root), "--html", str(page))
    assert ran.returncode == 1, ran.stdout + ran.stderr
    [row] = embedded_data(page)["rows"]
    [result] = row["results"]
    sides = result["blocks"][2]
    assert sides["kind"] == "sides" and sides["left"]["title"] == "Expected (capital)"
    assert (sides["left"]["value"], sides["right"]["value"], sides["differ"]) == ("Kyoto", "Tokyo", [[]])
