"""The three reports of an iteration: text lines, the --json document and JUnit XML, including hostile
content (terminal escapes, lone surrogates, huge integers) that must never corrupt any of them."""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET

from workbench.events import IterationReport, Trigger
from workbench.model import Problem, Result, Summary, Verdict
from workbench.report.json_report import encode_document, report_document
from workbench.report.junit import junit_xml
from workbench.report.text import TextReporter, format_result, format_summary

HOSTILE = "evil \x1b]0;pwned\x07 \x1b[2J \x00 \ud800 name"


def result(verdict=Verdict.PASS, *, name="row one", detail="", actual=None, expected=None, scope="default",
           set_file="grading.json", ms=12.0) -> Result:
    return Result(scope=scope, set_file=set_file, row_id=f"id-{name}", row_name=name,
                  evaluator="exact-match-evaluator", verdict=verdict, score=1.0 if verdict is Verdict.PASS else 0.0,
                  detail=detail, actual=actual, expected=expected, duration_ms=ms,
                  evaluator_type="uipath-exact-match")


def report_of(results, problems=()) -> IterationReport:
    return IterationReport(trigger=Trigger("run"), results=list(results), problems=list(problems), duration_s=0.25,
                           complete=True)


# -- text ---------------------------------------------------------------------------------------------------


def test_a_pass_is_one_line():
    assert format_result(result()) == "PASS  grading.json › row one [exact-match-evaluator]  12ms"


def test_fail_and_error_lines_carry_the_indented_explanation():
    text = format_result(result(Verdict.FAIL, detail='grade: expected "PASS", got "FAIL"\nsecond line', ms=1500))
    assert text.splitlines() == [
        "FAIL  grading.json › row one [exact-match-evaluator]  1.5s",
        '      grade: expected "PASS", got "FAIL"',
        "      second line",
    ]
    assert format_result(result(Verdict.ERROR, detail="boom")).splitlines()[0].startswith("ERROR grading.json")


def test_the_scope_is_shown_when_there_are_several():
    assert format_result(result(scope="billing"), show_scope=True).startswith("PASS  billing/grading.json › ")


def test_terminal_escapes_in_names_and_details_are_made_visible():
    text = format_result(result(Verdict.FAIL, name=HOSTILE, detail=f"got {HOSTILE}"))
    assert "\x1b" not in text and "\x07" not in text and "\x00" not in text and "\ud800" not in text
    assert "\\x1b]0;pwned\\x07" in text and "\\ud800" in text
    text.encode("utf-8")  # printable on any UTF-8 terminal


def test_summary_line_counts_and_mentions_file_problems():
    summary = Summary(total=4, passed=2, failed=1, errors=1)
    problems = [Problem("evals/default/eval-sets/x.json", "bad"), Problem("y", "just a warning", "warning")]
    assert format_summary(summary, problems, 1.23) == "2 passed, 1 failed, 1 error, 1 file problem (4 results in 1.2s)"
    assert format_summary(summary, [], 0.0) == "2 passed, 1 failed, 1 error (4 results in 0.0s)"


def test_the_reporter_finishes_with_problems_then_the_summary():
    out, err = io.StringIO(), io.StringIO()
    reporter = TextReporter(out, err)
    reporter.finish(report_of([result()], [Problem("evals/default/eval-sets/x.json", "is not valid JSON at line 1")]))
    assert out.getvalue().splitlines() == [
        "problem: evals/default/eval-sets/x.json: is not valid JSON at line 1",
        "1 passed, 0 failed, 0 errors, 1 file problem (1 result in 0.2s)",
    ]
    assert err.getvalue() == "", "no progress line when stderr is not a terminal"


# -- json ------------------------------------------------------------------------------------------------------


def test_the_json_document_has_the_documented_shape():
    results = [result(actual={"a": 1}, expected={"a": 1}),
               result(Verdict.FAIL, name="two", detail="a: expected 2, got 1", actual={"a": 1}, expected={"a": 2})]
    doc = json.loads(encode_document(report_document(report_of(results, [Problem("f.json", "broken")]))))
    assert doc["summary"] == {"total": 2, "passed": 1, "failed": 1, "errors": 0}
    assert doc["problems"] == [{"file": "f.json", "message": "broken", "severity": "error"}]
    failed = doc["results"][1]
    assert {k: failed[k] for k in ("set", "scope", "row_id", "row_name", "evaluator", "verdict", "actual", "expected",
                                  "detail", "duration_ms")} == {
        "set": "grading.json", "scope": "default", "row_id": "id-two", "row_name": "two",
        "evaluator": "exact-match-evaluator", "verdict": "FAIL", "actual": {"a": 1}, "expected": {"a": 2},
        "detail": "a: expected 2, got 1", "duration_ms": 12.0}


def test_the_json_document_is_valid_json_whatever_the_values():
    results = [result(Verdict.FAIL, name=HOSTILE, detail=HOSTILE, actual={"n": 2**64 + 1, "s": "\ud800"},
                      expected={"n": 2**64})]
    data = encode_document(report_document(report_of(results)))
    doc = json.loads(data.decode("utf-8"))  # strict UTF-8: a lone surrogate is written as its \\u escape
    assert doc["results"][0]["actual"] == {"n": 2**64 + 1, "s": "\ud800"}, "big integers stay exact"
    assert doc["results"][0]["row_name"] == HOSTILE


# -- junit -----------------------------------------------------------------------------------------------------


def test_junit_has_one_testcase_per_result_grouped_by_set_with_counts():
    results = [result(), result(Verdict.FAIL, name="f", detail="why\nmore"), result(Verdict.ERROR, name="e",
               detail="crashed"), result(set_file="other.json", name="o")]
    root = ET.fromstring(junit_xml(report_of(results, [Problem("evals/x.json", "broken"),
                                                       Problem("evals/y.json", "odd", "warning")])))
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("5", "1", "2")
    suites = {s.get("name"): s for s in root.iter("testsuite")}
    assert set(suites) == {"default/grading.json", "default/other.json", "workbench.problems"}
    grading = suites["default/grading.json"]
    assert (grading.get("tests"), grading.get("failures"), grading.get("errors")) == ("3", "1", "1")
    failure = grading.find("testcase[@name='f [exact-match-evaluator]']/failure")
    assert failure.get("message") == "why" and failure.text == "why\nmore"
    assert grading.find("testcase[@name='e [exact-match-evaluator]']/error").text == "crashed"
    assert float(grading.find("testcase").get("time")) == 0.012


def test_junit_stays_well_formed_xml_with_hostile_text():
    data = junit_xml(report_of([result(Verdict.FAIL, name=HOSTILE, detail=HOSTILE)], [Problem(HOSTILE, HOSTILE)]))
    root = ET.fromstring(data)  # raises if the XML is not well formed
    case = root.find(".//testcase[failure]")
    assert "\\x1b]0;pwned\\x07" in case.get("name")
    assert "\\ud800" in case.find("failure").text


def test_junit_for_an_empty_run():
    root = ET.fromstring(junit_xml(report_of([])))
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("0", "0", "0")
