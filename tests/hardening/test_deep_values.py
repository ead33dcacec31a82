"""Outputs and expectations nested 100,000 levels deep: no RecursionError escapes from loading, scoring, the
text, JSON and JUnit reports, the history, the TUI's detail pane or accept.

No real target can deliver such a value (every JSON reader refuses it, and so does workbench's, with a
message); an in-process runner hands it over directly to reach everything downstream.
"""

from __future__ import annotations

import asyncio
import io
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from helpers.cli import invoke_workbench
from helpers.hardening import RUNNER_KINDS, FixedRunner, assert_polite, deep, deep_text, faulty_project, run_iteration
from helpers.project import EXACT, make_project, row
from helpers.tui import screen_text, settle, static_text, wait_idle

from workbench.config import load_config
from workbench.engine import Engine
from workbench.events import IterationReport, IterationStarted, ResultReady, Trigger
from workbench.history import HistoryStore
from workbench.model import EvalSet, EvaluatorDef, Project, Row, Verdict
from workbench.report.json_report import encode_document, report_document
from workbench.report.junit import junit_xml
from workbench.report.text import TextReporter
from workbench.scoring import supported_types
from workbench.tui.app import make_app

pytestmark = pytest.mark.hardening

LEVELS = 100_000


_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')


def balanced(data: bytes) -> bool:
    """A cheap structural check of JSON text too deep for any parser: outside strings, every bracket
    closes one of its own kind, in order."""
    skeleton = _STRING.sub(b"", data).translate(None, b" \n\t\r:,0123456789.-+eEtruefalsn")
    stack = bytearray()
    for byte in skeleton:
        if byte in b"[{":
            stack.append(byte + 2)  # "[" + 2 == "]", "{" + 2 == "}"
        elif not stack or stack.pop() != byte:
            return False
    return not stack


def deep_project(root: Path, types: list[str]) -> Project:
    """One set scored by an evaluator of each type, with 100,000-deep expectations: equal, different, and
    a shallow expectation facing a deep output."""
    refs = [f"ev-{type_id}" for type_id in types]
    evaluators = {("default", ref): EvaluatorDef("default", ref, root / f"{ref}.json", ref, ref, type_id,
                                                 {"targetOutputKey": "*"}, {})
                  for ref, type_id in zip(refs, types, strict=True)}
    criteria = {
        "same": {"expectedOutput": deep(LEVELS), "expectedClass": deep(LEVELS), "searchText": deep(LEVELS)},
        "different": {"expectedOutput": deep(LEVELS, "other"), "toolCallsOrder": deep(LEVELS)},
        "shallow": {"expectedOutput": {"k": 1}},
    }
    rows = [Row(name, name, {}, {ref: criterion for ref in refs}, index, {})
            for index, (name, criterion) in enumerate(criteria.items())]
    eval_set = EvalSet("default", root / "deep.json", "deep", "deep", refs, rows, "uipath")
    return Project(root=root, sets=[eval_set], evaluators=evaluators)


def outputs() -> dict[str, Any]:
    return {"same": deep(LEVELS), "different": deep(LEVELS), "shallow": deep(LEVELS)}


def _run_deep(root: Path, types: list[str]) -> IterationReport:
    make_project(root, sets={})
    engine = Engine(load_config(root), FixedRunner.factory(outputs()))
    return asyncio.run(engine.run_iteration(Trigger("run"), project=deep_project(root, types)))


@pytest.fixture(scope="module")
def deep_report(tmp_path_factory: pytest.TempPathFactory) -> IterationReport:
    """Exact match only: three results whose values are 100,000 levels deep, for the reports and history."""
    return _run_deep(tmp_path_factory.mktemp("deep"), ["uipath-exact-match"])


def test_every_evaluator_type_gives_a_verdict(tmp_path):
    report = _run_deep(tmp_path, supported_types())
    results = {(r.row_id, r.evaluator_type): r for r in report.results}
    assert len(results) == 3 * len(supported_types())
    exact = "uipath-exact-match"
    assert results[("same", exact)].verdict is Verdict.PASS
    assert results[("different", exact)].verdict is Verdict.FAIL
    assert results[("shallow", exact)].verdict is Verdict.FAIL
    assert "bottom" in results[("different", exact)].detail  # explained at the place they differ
    for result in report.results:
        assert isinstance(result.detail, str) and "RecursionError" not in result.detail
        assert "maximum recursion depth" not in result.detail


def test_the_text_report_prints_every_result(deep_report):
    out = io.StringIO()
    reporter = TextReporter(out, io.StringIO())
    reporter(IterationStarted(deep_report.trigger, deep_report.project or Project(Path(".")), 3,
                              len(deep_report.results), tuple(r.key[:3] for r in deep_report.results)))
    for done, result in enumerate(deep_report.results, 1):
        reporter(ResultReady(result, done, len(deep_report.results), row_complete=True))
    reporter.finish(deep_report)
    text = out.getvalue()
    assert f"({len(deep_report.results)} results in" in text
    assert text.count("deep.json › ") == len(deep_report.results)
    assert "(depth 1000" in text  # a deep path is shown shortened, with its depth


def test_the_json_report_holds_the_whole_deep_values(deep_report):
    data = encode_document(report_document(deep_report))
    assert data.startswith(b"{") and balanced(data)
    assert data.count(b'"bottom"') == 4  # the values themselves (3 outputs, 1 expectation), not a placeholder
    assert b"nested too deeply to display" not in data


def test_junit_is_valid_xml(deep_report):
    tree = ET.fromstring(junit_xml(deep_report))
    assert len(list(tree.iter("testcase"))) == len(deep_report.results)


def test_the_history_records_and_reads_back_a_deep_iteration(deep_report, tmp_path):
    make_project(tmp_path, sets={"s": [row("r", {}, {})]})
    with HistoryStore.open(load_config(tmp_path)) as store:
        number = store.record(deep_report)
        results = store.results(number)
        [info] = store.iterations()
    assert len(results) == len(deep_report.results) and info.total == len(deep_report.results)
    for args in (("history", str(tmp_path)), ("history", str(tmp_path), "1"), ("history", str(tmp_path), "--json")):
        proc = invoke_workbench(*args)
        assert_polite(proc)
        assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("kind", RUNNER_KINDS)
def test_a_real_target_printing_a_deep_value_gets_an_error_that_says_so(tmp_path, kind):
    config = faulty_project(tmp_path / "p", kind, [row("deep", {"do": "deep"}, {"result": 1})])
    [result] = run_iteration(config).results
    assert result.verdict is Verdict.ERROR
    assert "nested" in result.detail and "deep" in result.detail, result.detail
    assert "RecursionError" not in result.detail


def _deep_set(levels: int) -> str:
    """An eval set with one row expecting `deep(levels)`, as JSON text (too deep for json.dumps)."""
    return ('{"version": "1.0", "evaluatorRefs": ["exact-match-evaluator"], "evaluations": [{"id": "deep", '
            '"name": "deep", "inputs": {}, "evaluationCriterias": {"exact-match-evaluator": {"expectedOutput": '
            + deep_text(levels) + '}}}, {"id": "calm", "name": "calm", "inputs": {}, "evaluationCriterias": '
            '{"exact-match-evaluator": {"expectedOutput": {"result": 1}}}}]}')


async def test_the_tui_shows_a_deep_output_and_its_history(tmp_path: Path) -> None:
    make_project(tmp_path, sets={"deep": _deep_set(900)},
                 config={"kind": "command", "command": ["{python}", "-c", "pass"]})
    runner = FixedRunner.factory({"deep": deep(LEVELS), "calm": 1})
    app = make_app(load_config(tmp_path), watch=False, record=True, runner_factory=runner)
    async with app.run_test(size=(150, 45)) as pilot:
        await wait_idle(app, pilot)
        await settle(pilot)
        assert app.is_running
        assert "deep" in static_text(app, "#detail-title")
        actual = static_text(app, "#detail-actual")
        assert "more lines not shown" in actual  # capped, not recursed into
        assert "FAIL" in static_text(app, "#detail-meta")
        await pilot.press("2")  # the history tab, reading the recorded deep iteration back
        await settle(pilot)
        assert "iteration 1" in screen_text(app)
        await pilot.press("q")


def test_accept_refuses_an_output_too_deep_to_read_back_and_writes_nothing(tmp_path):
    make_project(tmp_path, sets={"deep": _deep_set(10)})
    project_before = (tmp_path / "evals/default/eval-sets/deep.json").read_bytes()
    engine = Engine(load_config(tmp_path), FixedRunner.factory({"deep": deep(LEVELS), "calm": 1}))
    report = asyncio.run(engine.run_iteration(Trigger("run")))
    with HistoryStore.open(load_config(tmp_path)) as store:
        store.record(report)
    proc = invoke_workbench("accept", str(tmp_path), "--set", "deep", "--row", "deep")
    assert_polite(proc)
    assert proc.returncode == 1 and "not written" in proc.stderr
    assert "too deep" in proc.stderr or "nested" in proc.stderr, proc.stderr
    assert (tmp_path / "evals/default/eval-sets/deep.json").read_bytes() == project_before


def test_accept_of_a_deep_but_readable_output_writes_a_file_that_loads_and_passes(tmp_path):
    """About 1,000 levels: as deep as JSON tools read. Accepted, the file holds it exactly and the row passes."""
    output = deep_text(1000)
    rows = [row("deep", {"do": "raw", "stdout": output}, {"k": 1})]
    make_project(tmp_path, sets={"deep": rows},
                 config={"kind": "command", "command": ["{python}", str(Path(__file__).parent.parent / "fixtures"
                                                                         / "target.py")]})
    first = invoke_workbench("run", str(tmp_path))
    assert_polite(first)
    assert first.returncode == 1 and "FAIL" in first.stdout
    accepted = invoke_workbench("accept", str(tmp_path), "--set", "deep", "--row", "deep")
    assert_polite(accepted)
    assert accepted.returncode == 0, accepted.stderr
    again = invoke_workbench("run", str(tmp_path))
    assert_polite(again)
    assert again.returncode == 0, again.stdout
    assert EXACT in (tmp_path / "evals/default/eval-sets/deep.json").read_text()


def test_inputs_as_deep_as_a_file_can_hold_reach_the_target_exactly(tmp_path):
    """About 1,000 levels (the most a file may nest): past both JSON encoders' limits, still sent exactly."""
    inputs_text = '{"v": ' + deep_text(1010) + "}"
    doc = ('{"version": "1.0", "evaluatorRefs": ["exact-match-evaluator"], "evaluations": [{"id": "r", "name": "r", '
           '"inputs": ' + inputs_text + ', "evaluationCriterias": {"exact-match-evaluator": {"expectedOutput": '
           '{"raw": ' + inputs_text + "}}}}]}")
    echo_raw = "import sys; sys.stdout.write('{\"raw\": ' + sys.stdin.read() + '}')"
    make_project(tmp_path, sets={"s": doc}, config={"kind": "command", "command": ["{python}", "-c", echo_raw]})
    proc = invoke_workbench("run", str(tmp_path))
    assert_polite(proc)
    assert proc.returncode == 0, proc.stdout  # the target got the real inputs, not a placeholder
