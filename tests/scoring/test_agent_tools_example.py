"""examples/agent-tools end to end: a traced target scored by seven evaluator types side by side."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
from pathlib import Path

import pytest
from helpers.cli import invoke_workbench
from helpers.paths import EXAMPLES

from workbench.config import load_config
from workbench.engine import Engine
from workbench.events import IterationReport, Trigger
from workbench.model import Verdict
from workbench.scoring.classification import result_pairs, set_metric
from workbench.scoring.judge_client import clear_cache
from workbench.trace import tool_calls, trace_tokens

EXAMPLE = EXAMPLES / "agent-tools"
FAILING_ON_PURPOSE = {"reply-mentions-queue", "ticket-similarity", "routing", "ticket-args", "reply-judge"}


def run(root: Path) -> IterationReport:
    clear_cache()
    return asyncio.run(Engine(load_config(root)).run_iteration(Trigger("run")))


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> IterationReport:
    """A copy, not the example in place: parallel workers may each build this fixture at once."""
    root = tmp_path_factory.mktemp("example") / "agent-tools"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns(".workbench", "__pycache__"))
    return run(root)


def test_every_evaluator_type_scores_every_row(report: IterationReport):
    assert report.complete and not report.error_problems
    types = {r.evaluator_type for r in report.results}
    assert types == {"uipath-contains", "uipath-json-similarity", "uipath-multiclass-classification",
                     "uipath-tool-call-order", "uipath-tool-call-args", "workbench-assertions",
                     "uipath-llm-judge-output-semantic-similarity"}
    assert len(report.results) == 4 * 7
    assert all(r.verdict is not Verdict.ERROR for r in report.results), [r.detail for r in report.results]


def test_only_the_refund_row_fails_and_only_where_the_bug_shows(report: IterationReport):
    failing = {(r.row_id, r.evaluator) for r in report.results if r.verdict is Verdict.FAIL}
    assert failing == {("row-refund", ref) for ref in FAILING_ON_PURPOSE}
    by_ref = {r.evaluator: r for r in report.results if r.row_id == "row-refund"}
    # queue "billing" vs "sales": edit distance 6 of 7 -> 1/7; priority matches -> (1/7 + 1) / 2
    assert by_ref["ticket-similarity"].score == pytest.approx((1 / 7 + 1) / 2)
    # the stand-in judge: 7 of 11 words shared -> 64/100, under the 0.7 threshold
    assert by_ref["reply-judge"].score == 0.64
    assert by_ref["tool-order"].verdict is Verdict.PASS and by_ref["checks"].verdict is Verdict.PASS


def test_results_carry_the_trace(report: IterationReport):
    login = next(r for r in report.results if r.row_id == "row-login-error")
    assert tool_calls(login.trace).names == ["lookupUser", "searchKb", "createTicket"]
    assert trace_tokens(login.trace) == 64


def test_routing_metric_over_the_set(report: IterationReport):
    project = report.project
    assert project is not None
    routing = project.evaluators[("default", "routing")]
    metric = set_metric(routing, result_pairs(routing, report.results))
    assert metric is not None and metric.rows == 4 and metric.value < 1.0


def test_fixing_the_agent_turns_every_result_green(tmp_path: Path):
    root = tmp_path / "agent-tools"
    shutil.copytree(EXAMPLE, root)
    agent = root / "agent.py"
    source = agent.read_text()
    assert '("invoice", "charge", "payment")' in source
    agent.write_text(source.replace('("invoice", "charge", "payment")', '("invoice", "charge", "payment", "refund")'))
    fixed = run(root)
    assert fixed.green, [(r.row_id, r.evaluator, r.detail) for r in fixed.results if not r.passed]


def test_cli_json_report_has_scores_and_traces(tmp_path: Path):
    root = tmp_path / "agent-tools"
    shutil.copytree(EXAMPLE, root)  # a run records history under the project's .workbench/
    proc = invoke_workbench("run", str(root), "--json", env=dict(os.environ))  # as the subprocess inherited it
    assert proc.returncode == 1, proc.stderr
    document = json.loads(proc.stdout)
    assert document["summary"] == {"total": 28, "passed": 23, "failed": 5, "errors": 0}
    judged = [r for r in document["results"] if r["evaluator"] == "reply-judge" and r["row_id"] == "row-refund"]
    assert judged[0]["score"] == 0.64
    assert any(event.get("type") == "usage" for event in judged[0]["trace"])
