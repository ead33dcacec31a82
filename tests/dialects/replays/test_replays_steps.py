"""Replaying scripted cases: every step type, the wiring mistakes that fail a case, every approval path
and every misplaced approval.decide, bare-array files, file problems, and the trace the other
evaluators read."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from helpers.project import make_project, row
from helpers.replays import TOOLS, call, case, decide, replay, replay_project, say, write

from workbench.actions.accept import preview_accept
from workbench.actions.writing import Refused
from workbench.config import load_config
from workbench.dialects import runner_needed
from workbench.engine import Engine
from workbench.events import IterationReport, Trigger
from workbench.model import EvaluatorDef, Verdict
from workbench.project import load_project
from workbench.rescoring import ReuseBook, ReusePolicy
from workbench.scoring import ScoreInput, scorer_for
from workbench.session import Session

REFUND = call("issue_refund", {"orderId": "A-1001"}, result={"orderId": "A-1001", "status": "refunded"})
LOOKUP = call("lookup_order", {"orderId": "A-1001"}, result={"orderId": "A-1001", "total": 39.0})


def types(result: Any) -> list[str]:
    return [event["type"] for event in result.trace]


# -- step types ----------------------------------------------------------------------------------------

def test_assistant_output_the_last_one_is_the_runs_output(tmp_path: Path) -> None:
    root = replay_project(tmp_path, {"talk": case(say("Hello."), say("Refunded order A-1001."),
                                                  status="completed", outputContains="Refunded")})
    result = replay(root)["talk"]
    assert result.verdict is Verdict.PASS, result.detail
    assert result.actual == {"status": "completed", "output": "Refunded order A-1001."}
    assert [e.get("content") for e in result.trace if e["type"] == "assistant.output"] == ["Hello.",
                                                                                           "Refunded order A-1001."]


def test_tool_call_uses_the_given_result_and_traces_it_as_a_tool_call(tmp_path: Path) -> None:
    root = replay_project(tmp_path, {"look": case(LOOKUP, say("Order A-1001 cost 39."), status="completed")})
    result = replay(root)["look"]
    assert result.verdict is Verdict.PASS, result.detail
    assert result.trace[0] == {"type": "tool_call", "step": 0, "name": "lookup_order",
                               "args": {"orderId": "A-1001"}, "output": {"orderId": "A-1001", "total": 39.0}}
    assert result.trace[-1] == {"type": "run.status", "status": "completed", "step": None, "detail": None}


def test_artifact_write_goes_to_the_rows_folder_under_workbench_never_the_project(tmp_path: Path) -> None:
    files = [{"path": "out/receipt.md", "content": "# Refund\n", "mimeType": "text/markdown"},
             {"path": "note.txt", "content": "ok"}]
    root = replay_project(tmp_path, {"art": case(write(*files), say("done"), status="completed")})
    before = sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if ".workbench" not in p.parts)
    result = replay(root)["art"]
    assert result.verdict is Verdict.PASS, result.detail
    scratch = root / ".workbench" / "replays" / "art"
    assert (scratch / "out" / "receipt.md").read_text() == "# Refund\n"
    assert (scratch / "note.txt").read_text() == "ok"
    after = sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if ".workbench" not in p.parts)
    assert after == before
    assert result.actual["artifacts"] == ["out/receipt.md", "note.txt"]
    event = next(e for e in result.trace if e["type"] == "artifact.write")
    assert event["path"] == "out/receipt.md" and event["mimeType"] == "text/markdown" and event["bytes"] == 9
    # A second run starts from an empty folder: nothing of the first is left behind.
    (scratch / "stale.txt").write_text("old")
    replay(root)
    assert not (scratch / "stale.txt").exists()


def test_an_artifact_path_that_leads_out_is_refused_when_the_file_is_read(tmp_path: Path) -> None:
    root = replay_project(tmp_path, {"escape": case(write({"path": "../../evil.txt", "content": "x"}))})
    result = replay(root)["escape"]
    assert result.verdict is Verdict.ERROR
    assert "script[0] (artifact.write) files[0] path '../../evil.txt' must be a relative path" in result.detail
    assert not (tmp_path.parent / "evil.txt").exists()


# -- wiring mistakes fail the case -------------------------------------------------------------------

def test_an_unknown_tool_fails_the_case_naming_it_and_the_known_tools(tmp_path: Path) -> None:
    root = replay_project(tmp_path, {"typo": case(call("issue_refnd", {"orderId": "A-1001"}, result={}),
                                                  status="completed")})
    result = replay(root)["typo"]
    assert result.verdict is Verdict.FAIL
    assert ("the case failed: script[0] (tool.call issue_refnd): there is no tool 'issue_refnd' in tools.json "
            "(tools: issue_refund, lookup_order)") in result.detail


def test_without_tools_json_every_tool_is_unknown(tmp_path: Path) -> None:
    root = replay_project(tmp_path, {"none": case(LOOKUP)}, tools=None)
    assert "there is no tool 'lookup_order': the project has no tools.json" in replay(root)["none"].detail


def test_arguments_that_break_the_schema_fail_the_case_naming_tool_and_rule(tmp_path: Path) -> None:
    bad = call("lookup_order", {"orderId": "1001", "amount": 900, "note": "x"}, result={})
    # Expecting "failed" does not make a wiring mistake pass.
    root = replay_project(tmp_path, {"schema": case(bad, status="failed")})
    result = replay(root)["schema"]
    assert result.verdict is Verdict.FAIL
    assert "script[0] (tool.call lookup_order): the arguments do not fit lookup_order's inputSchema" in result.detail
    assert ('arguments.orderId is "1001", which does not match "^[A-Z]-\\\\d{4}$" '
            "(inputSchema.properties.orderId.pattern)") in result.detail
    assert "arguments.amount is 900, more than 500 (inputSchema.properties.amount.maximum)" in result.detail
    assert "arguments.note is not a property of this tool" in result.detail
    assert types(result) == ["run.status"]  # the tool never ran
    missing = replay_project(tmp_path / "m", {"m": case(call("lookup_order", {}, result={}))})
    assert "arguments.orderId is required but missing (inputSchema.required)" in replay(missing)["m"].detail


def test_a_call_without_result_fails_the_case_naming_the_tool(tmp_path: Path) -> None:
    root = replay_project(tmp_path, {"bare": case(call("lookup_order", {"orderId": "A-1001"}), say("hi"))})
    result = replay(root)["bare"]
    assert result.verdict is Verdict.FAIL
    assert ('script[0] (tool.call lookup_order): the call to lookup_order has no "result"; evals never run a '
            'handler by surprise') in result.detail
    assert result.actual["output"] is None  # the run stopped there


# -- approvals -----------------------------------------------------------------------------------------

def test_held_no_decision_stops_as_waiting_and_the_tool_never_runs(tmp_path: Path) -> None:
    root = replay_project(tmp_path, {"held": case(REFUND, say("Refunded."), status="waiting"),
                                     "held-last": case(REFUND, status="waiting")})
    results = replay(root)
    for name in ("held", "held-last"):
        result = results[name]
        assert result.verdict is Verdict.PASS, result.detail
        assert result.actual["status"] == "waiting" and result.actual["output"] is None
        assert result.actual["detail"] == "issue_refund is waiting for approval."
        assert types(result) == ["approval.requested", "run.status"]


def test_approved_records_request_and_decision_uses_the_result_and_carries_on(tmp_path: Path) -> None:
    root = replay_project(tmp_path, {"ok": case(REFUND, decide(True), say("Refunded order A-1001."),
                                                status="completed", outputContains="Refunded")})
    result = replay(root)["ok"]
    assert result.verdict is Verdict.PASS, result.detail
    assert types(result) == ["approval.requested", "approval.decided", "tool_call", "assistant.output", "run.status"]
    assert result.trace[1] == {"type": "approval.decided", "step": 1, "tool": "issue_refund", "approved": True}
    assert result.trace[2]["output"] == {"orderId": "A-1001", "status": "refunded"}


def test_denied_ends_failed_before_the_tool_runs_with_the_denial_line(tmp_path: Path) -> None:
    root = replay_project(tmp_path, {"no": case(REFUND, decide(False), say("never said"), status="failed"),
                                     "no-but-completed": case(REFUND, decide(False), status="completed")})
    results = replay(root)
    result = results["no"]
    assert result.verdict is Verdict.PASS, result.detail
    assert result.actual["detail"] == "Approval for issue_refund was denied."
    assert result.detail.splitlines()[-1] == "Approval for issue_refund was denied."
    assert types(result) == ["approval.requested", "approval.decided", "run.status"]
    assert result.actual["output"] is None
    wrong = results["no-but-completed"]
    assert wrong.verdict is Verdict.FAIL
    assert "status failed, expected completed" in wrong.detail


def test_a_live_tool_that_is_held_or_denied_is_never_called(tmp_path: Path) -> None:
    tools = [{"name": "mark", "inputSchema": {}, "approval": "required", "handler": "marker:mark"}]
    marker = "def mark(arguments):\n    open(arguments['path'], 'w').write('ran')\n    return 'ran'\n"
    flag = tmp_path / "ran.flag"
    live = call("mark", {"path": str(flag)}, live=True)
    root = replay_project(tmp_path, {"held": case(live, status="waiting"),
                                     "denied": case(live, decide(False), status="failed")},
                          tools=tools, files={"marker.py": marker})
    results = replay(root)
    assert [results[n].verdict for n in ("held", "denied")] == [Verdict.PASS, Verdict.PASS]
    assert not flag.exists()


def test_each_misplaced_approval_decide_fails_the_case(tmp_path: Path) -> None:
    cases = {
        "first": case(decide(True), say("hi")),
        "after-output": case(say("hi"), decide(True)),
        "after-no-approval-tool": case(LOOKUP, decide(True)),
        "twice": case(REFUND, decide(True), decide(True), say("done")),
    }
    results = replay(replay_project(tmp_path, cases))
    why = {name: results[name].detail for name in cases}
    assert all(results[name].verdict is Verdict.FAIL for name in cases), why
    assert "script[0] (approval.decide) does not follow a tool call that needs approval (it is the first step)" \
        in why["first"]
    assert "script[1] (approval.decide) does not follow a tool call that needs approval (it follows script[0] " \
           "(assistant.output))" in why["after-output"]
    assert "(lookup_order does not need approval)" in why["after-no-approval-tool"]
    assert "script[2] (approval.decide) does not follow a tool call that needs approval (script[1] " \
           "(approval.decide) already decided)" in why["twice"]


# -- files ---------------------------------------------------------------------------------------------

def test_a_bare_array_file_is_a_case_named_after_its_file(tmp_path: Path) -> None:
    root = replay_project(tmp_path, {"just-steps": [LOOKUP, say("Found it.")],
                                     "named": {"name": "Refund, approved", "script": [REFUND, decide(True)]}})
    project = load_project(root, load_config(root))
    (scripts,) = project.sets
    assert scripts.stem == "scripts" and scripts.dialect == "replays"
    assert [(r.id, r.name) for r in scripts.rows] == [("just-steps", "just-steps"), ("named", "Refund, approved")]
    assert scripts.rows[0].source == root / "evals" / "just-steps.script.json"
    assert scripts.rows[0].inputs == {"script": [LOOKUP, say("Found it.")]}
    results = replay(root)
    assert results["just-steps"].verdict is Verdict.PASS
    assert results["just-steps"].actual == {"status": "completed", "output": "Found it."}
    assert "status completed (nothing expected)" in results["just-steps"].detail
    assert results["Refund, approved"].verdict is Verdict.PASS


def test_broken_cases_are_errors_naming_the_file_and_step_and_the_others_still_run(tmp_path: Path) -> None:
    root = replay_project(tmp_path, {
        "good": case(say("ok")),
        "no-type": case({"toolName": "lookup_order"}),
        "no-tool-name": case({"type": "tool.call", "arguments": {}}),
        "bad-expect": case(say("ok"), status="done"),
        "not-json": "{ nope",
        "no-script": {"steps": []},
    })
    results = replay(root)
    assert results["good"].verdict is Verdict.PASS
    detail = {name: results[name].detail for name in results if name != "good"}
    assert all(results[name].verdict is Verdict.ERROR for name in detail)
    assert 'no-type.script.json: script[0] has no "type"; a step is one of assistant.output' in detail["no-type"]
    assert 'script[0] (tool.call) has no "toolName"' in detail["no-tool-name"]
    assert "expect.status must be one of completed, waiting, failed, not 'done'" in detail["bad-expect"]
    assert "not-json.script.json could not be loaded" in detail["not-json"]
    assert 'has no "script"; it must be the array of steps' in detail["no-script"]
    problems = {p.file: p.message for p in load_project(root, load_config(root)).problems}
    assert "is not valid JSON" in problems["evals/not-json.script.json"]


def test_tools_json_problems_name_the_file_and_the_entry(tmp_path: Path) -> None:
    tools = [*TOOLS, {"name": "pay", "approval": "sometimes"}, {"name": "run", "handler": "not a spec"},
             {"description": "nameless"}, {"name": "fuzzy", "inputSchema": {"anyOf": [{"type": "string"}]}}]
    root = replay_project(tmp_path, {"ok": case(say("hi"))}, tools=tools)
    problems = [(p.file, p.severity, p.message) for p in load_project(root, load_config(root)).problems]
    assert ("tools.json", "error", "tools[2] ('pay').approval must be \"required\" or \"never\", not 'sometimes'; "
                                   "the tool is skipped") in problems
    assert ("tools.json", "error", "tools[3] ('run').handler must be \"package.module:function\", not 'not a spec'; "
                                   "the tool is skipped") in problems
    assert ("tools.json", "error", 'tools[4] has no "name" (a non-empty string); the tool is skipped') in problems
    assert ("tools.json", "warning", "tools[5] ('fuzzy') uses inputSchema.anyOf, which replays do not check") \
        in problems
    (root / "tools.json").write_text(json.dumps({"tools": TOOLS}))  # the shape of an MCP tools/list answer
    assert load_project(root, load_config(root)).problems == []


# -- the trace is the one the other evaluators read ------------------------------------------------------

def _score(type_id: str, criterion: dict[str, Any], result: Any) -> Any:
    evaluator = EvaluatorDef("s", "e", Path("e.json"), None, None, type_id, {}, {})
    scorer = scorer_for(type_id)
    assert scorer is not None
    return scorer.score(ScoreInput(evaluator, criterion, result.actual, result.trace, result.duration_ms))


def test_tool_call_evaluators_and_assertions_score_a_replays_trace(tmp_path: Path) -> None:
    root = replay_project(tmp_path, {"ok": case(LOOKUP, REFUND, decide(True), say("Refunded order A-1001."))})
    result = replay(root)["ok"]
    order = _score("uipath-tool-call-order", {"toolCallsOrder": ["lookup_order", "issue_refund"]}, result)
    args = _score("uipath-tool-call-args", {"toolCalls": [{"name": "issue_refund", "args": {"orderId": "A-1001"}}]},
                  result)
    output = _score("uipath-tool-call-output", {"toolOutputs": [{"name": "lookup_order",
                                                                 "output": {"orderId": "A-1001", "total": 39.0}}]},
                    result)
    checks = _score("workbench-assertions", {"checks": [
        {"tool_called": "issue_refund", "params": {"orderId": "A-1001"}},
        {"tool_call_order": ["lookup_order", "issue_refund"]},
        {"path": "output", "contains": "Refunded"}, {"path": "status", "equals": "completed"}]}, result)
    assert [s.verdict for s in (order, args, output, checks)] == [Verdict.PASS] * 4, [order, args, output, checks]
    held = replay(replay_project(tmp_path / "h", {"held": case(LOOKUP, REFUND)}))["held"]
    not_run = _score("workbench-assertions", {"checks": [{"tool_not_called": "issue_refund"}]}, held)
    assert not_run.verdict is Verdict.PASS  # a held call never ran, so it is not a tool call


# -- a project of replays only needs no runner -----------------------------------------------------------

def test_a_replays_only_project_needs_no_runner_and_a_mixed_one_does(tmp_path: Path) -> None:
    only = replay_project(tmp_path / "only", {"ok": case(say("hi"))})
    assert not runner_needed(only, None)
    report = asyncio.run(_session_iteration(only))  # the watch loop / TUI path re-reads the settings first
    assert report is not None and report.problems == [] and [r.verdict for r in report.results] == [Verdict.PASS]
    empty = tmp_path / "empty"
    (empty / "evals").mkdir(parents=True)
    (empty / "tools.json").write_text("[]")
    assert not runner_needed(empty, None)
    mixed = make_project(tmp_path / "mixed", sets={"qa": [row("a", {"q": 1}, {"a": 1})]})
    replay_project(mixed, {"ok": case(say("hi"))})
    assert runner_needed(mixed, None)


async def _session_iteration(root: Path) -> IterationReport | None:
    session = Session(load_config(root), record=False)
    try:
        return await session.iterate_now(Trigger("start"))
    finally:
        await session.aclose()


# -- pay once and accept ------------------------------------------------------------------------------

def test_a_reused_replay_is_rescored_until_its_steps_or_tools_change(tmp_path: Path) -> None:
    root = replay_project(tmp_path, {"held": case(REFUND, status="waiting")},
                          config='[replay]\ntools = "evals/tools.json"\n', tools=None)
    (root / "evals" / "tools.json").write_text(json.dumps(TOOLS))
    engine = Engine(load_config(root))
    policy = ReusePolicy(ReuseBook(None, None))  # re-score from this process's memory
    asyncio.run(engine.run_iteration(Trigger("run"), reuse=policy))
    case_file = root / "evals" / "held.script.json"
    case_file.write_text(json.dumps(case(REFUND, status="completed")))  # only the expectation changed
    second = asyncio.run(engine.run_iteration(Trigger("run"), reuse=policy))
    assert second.reused_rows == 1 and second.results[0].verdict is Verdict.FAIL
    never = [{**tool, "approval": "never"} for tool in TOOLS]
    (root / "evals" / "tools.json").write_text(json.dumps(never))  # the tools changed: replay again
    third = asyncio.run(engine.run_iteration(Trigger("run"), reuse=policy))
    assert third.reused_rows == 0 and third.results[0].verdict is Verdict.PASS


def test_accept_refuses_a_replay_and_says_how_to_copy_a_run(tmp_path: Path) -> None:
    root = replay_project(tmp_path, {"held": case(REFUND, status="completed")})
    project = load_project(root, load_config(root))
    (scripts,) = project.sets
    with pytest.raises(Refused) as refused:
        preview_accept(project, scripts, scripts.rows[0], replay(root).values())
    assert "'held' is a scripted replay: its expect (status, outputContains) is written by hand" in str(refused.value)
    assert "add-row --from-run N --row ROW --script" in str(refused.value)
