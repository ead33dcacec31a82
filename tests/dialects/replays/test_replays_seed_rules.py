"""Issue 22, Plico (seed 001) rules: after a held approval or a denial ends the run, the rest of the script is
still checked (each wiring mistake fails the case naming its step); an unknown key in `expect` is an ERROR
with a "did you mean"; `assistant.output` `content` must be a string; and point 10: the set has one name,
`scripts`, in the text report, the JSON, `check`, the docs (docs/replays.md) and `--set`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers.cli import invoke_json, invoke_workbench
from helpers.replays import call, case, decide, replay, replay_project, say

from workbench.config import load_config
from workbench.dialects.replays import SET_NAME
from workbench.model import Verdict
from workbench.project import load_project

REFUND = call("issue_refund", {"orderId": "A-1001"}, result={"orderId": "A-1001", "status": "refunded"})
LOOKUP = call("lookup_order", {"orderId": "A-1001"}, result={"orderId": "A-1001", "total": 39.0})
REPLAYS_DOCS = Path(__file__).resolve().parents[3] / "docs" / "replays.md"


# -- the rest of the script after a held approval or a denial ---------------------------------------------

AFTER_STOP = {
    # held (no decision after REFUND), then an approval.decide that follows no call needing approval
    "held-then-stray-decide": (case(REFUND, say("Asked."), decide(True), status="waiting"),
                               "script[2] (approval.decide) does not follow a tool call that needs approval "
                               "(it follows script[1] (assistant.output))"),
    "denied-then-second-decide": (case(REFUND, decide(False), decide(True), status="failed"),
                                  "script[2] (approval.decide) does not follow a tool call that needs approval "
                                  "(script[1] (approval.decide) already decided)"),
    "held-then-decide-after-no-approval-tool": (case(REFUND, LOOKUP, decide(True), status="waiting"),
                                                "script[2] (approval.decide) does not follow a tool call that needs "
                                                "approval (lookup_order does not need approval)"),
    "denied-then-unknown-tool": (case(REFUND, decide(False), call("issue_refnd", {"orderId": "A-1001"}, result={}),
                                      status="failed"),
                                 "script[2] (tool.call issue_refnd): there is no tool 'issue_refnd' in tools.json"),
    "held-then-no-result": (case(REFUND, call("lookup_order", {"orderId": "A-1001"}), status="waiting"),
                            "script[1] (tool.call lookup_order): the call to lookup_order has no \"result\""),
    "denied-then-bad-arguments": (case(REFUND, decide(False), say("Sorry."),
                                       call("lookup_order", {"orderId": "1001"}, result={}), status="failed"),
                                  "script[3] (tool.call lookup_order): the arguments do not fit lookup_order's "
                                  "inputSchema: arguments.orderId is \"1001\""),
    "held-then-approved-call-without-result": (case(REFUND, say("Asked."), call("issue_refund", {"orderId": "A-2002"}),
                                                    decide(True), status="waiting"),
                                               "script[2] (tool.call issue_refund): the call to issue_refund has no "
                                               "\"result\""),
}


@pytest.mark.parametrize("name", sorted(AFTER_STOP))
def test_a_mistake_after_a_held_or_denied_approval_fails_the_case_naming_the_step(tmp_path: Path, name: str) -> None:
    doc, message = AFTER_STOP[name]
    result = replay(replay_project(tmp_path, {name: doc}))[name]
    assert result.verdict is Verdict.FAIL, result.detail
    assert message in result.detail, result.detail
    stopped = "waiting" if name.startswith("held") else "failed"
    assert result.actual["status"] == stopped  # the run still ended where the approval ended it
    assert f"after the run ended at script[{0 if stopped == 'waiting' else 1}]" in result.detail, result.detail
    assert result.trace[-1]["type"] == "run.status" and message in result.trace[-1]["detail"]


def test_the_outline_shows_the_stop_and_the_later_step_that_failed(tmp_path: Path) -> None:
    from workbench.dialects.replays.outline import FAILED, NOT_REACHED, WAITING, outline

    doc = case(REFUND, say("Asked."), call("nope", {}, result={}), status="waiting")
    result = replay(replay_project(tmp_path, {"held": doc}))["held"]
    assert result.actual["stoppedAt"] == 0 and result.actual["failedAt"] == 2
    plan = outline(result.inputs["script"], result.trace, result.actual)
    assert [(line.state, line.note.split(":")[0]) for line in plan.steps] == [
        (WAITING, "issue_refund is waiting for approval."), (NOT_REACHED, ""), (FAILED, "script[2] (tool.call nope)")]
    assert plan.stopped_at == 0 and plan.status == "waiting"


def test_a_clean_rest_of_the_script_after_a_hold_or_a_denial_still_passes(tmp_path: Path) -> None:
    # A later call that needs approval and has no decision (or is denied) would never run: it needs no result.
    held_again = call("issue_refund", {"orderId": "A-2002"})
    cases = {
        "held": case(REFUND, say("Waiting."), LOOKUP, held_again, status="waiting"),
        "denied": case(REFUND, decide(False), say("Sorry."), REFUND, decide(True), held_again, decide(False),
                       status="failed"),
        "held-last": case(REFUND, status="waiting"),
    }
    results = replay(replay_project(tmp_path, cases))
    for name in cases:
        assert results[name].verdict is Verdict.PASS, (name, results[name].detail)
        assert "failure" not in results[name].actual


def test_a_mistake_after_a_denial_fails_the_run_command_with_exit_1(tmp_path: Path) -> None:
    root = replay_project(tmp_path, {"denied": case(REFUND, decide(False), call("nope", {}, result={}),
                                                    status="failed")})
    proc = invoke_workbench("run", str(root))
    assert proc.returncode == 1, proc.stdout
    assert "FAIL  scripts › denied [expect]" in proc.stdout
    assert "script[2] (tool.call nope): there is no tool 'nope'" in proc.stdout


def test_a_live_step_after_the_stop_still_needs_a_handler(tmp_path: Path) -> None:
    tools = [{"name": "pay", "inputSchema": {}, "approval": "required"},
             {"name": "note", "inputSchema": {}, "approval": "never"}]
    root = replay_project(tmp_path, {"held": case(call("pay", {}, result={}), call("note", {}, live=True),
                                                  status="waiting")}, tools=tools)
    result = replay(root)["held"]
    assert result.verdict is Verdict.FAIL
    assert 'script[1] (tool.call note): note has no "handler" in tools.json' in result.detail


# -- expect keys ---------------------------------------------------------------------------------------

def test_an_unknown_expect_key_is_an_error_with_did_you_mean(tmp_path: Path) -> None:
    root = replay_project(tmp_path, {"typo": case(say("Refunded."), status="completed", outputContain="Refunded"),
                                     "far": case(say("ok"), verdict="pass"),
                                     "good": case(say("ok"), status="completed")})
    results = replay(root)
    typo = results["typo"]
    assert typo.verdict is Verdict.ERROR, typo.detail
    assert ("typo.script.json: expect has 'outputContain', which is not an expectation; did you mean "
            "'outputContains'?") in typo.detail
    far = results["far"]
    assert far.verdict is Verdict.ERROR
    assert "expect has 'verdict', which is not an expectation (expectations: status, outputContains)" in far.detail
    assert results["good"].verdict is Verdict.PASS
    problems = {p.file: p for p in load_project(root, load_config(root)).problems}
    assert problems["evals/typo.script.json"].severity == "error"
    checked = invoke_workbench("check", str(root))
    assert checked.returncode != 0
    assert "did you mean 'outputContains'?" in checked.stdout + checked.stderr


# -- assistant.output content --------------------------------------------------------------------------

@pytest.mark.parametrize(("content", "kind"), [({"reply": "Refunded"}, "object"), (3, "number"), (None, "null"),
                                               (["a"], "array")])
def test_assistant_output_content_must_be_a_string(tmp_path: Path, content: object, kind: str) -> None:
    root = replay_project(tmp_path, {"talk": case(say("Hello."), say(content), status="completed")})
    result = replay(root)["talk"]
    assert result.verdict is Verdict.ERROR, result.detail
    assert f'script[1] (assistant.output) "content" must be a string (the text the agent says), not {kind}' \
        in result.detail, result.detail


def test_an_empty_string_is_still_text(tmp_path: Path) -> None:
    result = replay(replay_project(tmp_path, {"quiet": case(say(""), status="completed")}))["quiet"]
    assert result.verdict is Verdict.PASS, result.detail


# -- point 10: one name for the set ----------------------------------------------------------------------

def test_the_set_has_one_name_in_the_report_the_json_check_the_readme_and_set(tmp_path: Path) -> None:
    root = replay_project(tmp_path, {"ok": case(say("ok"), status="completed")})
    assert SET_NAME == "scripts"
    (scripts,) = load_project(root, load_config(root)).sets
    assert {scripts.scope, scripts.file_name, scripts.stem} == {SET_NAME}
    assert scripts.name in (None, SET_NAME)

    text = invoke_workbench("run", str(root))
    assert text.returncode == 0 and "PASS  scripts › ok [expect]" in text.stdout, text.stdout
    proc, doc = invoke_json("run", str(root), "--set", SET_NAME)
    assert proc.returncode == 0 and {(r["scope"], r["set"]) for r in doc["results"]} == {(SET_NAME, SET_NAME)}
    checked = invoke_workbench("check", str(root), "-v")
    assert "scripts › ok" in checked.stdout and "evals ›" not in checked.stdout, checked.stdout
    wrong = invoke_workbench("run", str(root), "--set", "nope")
    assert "eval sets: scripts" in wrong.stderr
    docs = REPLAYS_DOCS.read_text(encoding="utf-8")
    section = docs[docs.index("# Scripted replays"):]
    section = section[:section.index("\n#", 1)]
    assert "one set, `scripts` (`workbench run --set scripts`" in section
    assert "scripts › " in section  # the page shows the report's line with that name


def test_add_row_from_run_finds_the_replay_row_recorded_under_the_one_name(tmp_path: Path) -> None:
    root = replay_project(tmp_path, {"held": case(REFUND, status="waiting")})
    assert invoke_workbench("run", str(root)).returncode == 0
    proc = invoke_workbench("add-row", str(root), "--from-run", "1", "--row", "held", "--script", "--name", "held-copy")
    assert proc.returncode == 0, proc.stderr
    copied = json.loads((root / "evals" / "held-copy.script.json").read_text())
    assert copied["expect"] == {"status": "waiting"}


# -- add-row --from-run --script from a row that is not a replay ---------------------------------------

def test_a_case_from_a_non_replay_run_says_its_output_as_text(tmp_path: Path) -> None:
    from workbench.dialects.replays.from_run import case_from_result
    from workbench.dialects.replays.script import parse_case
    from workbench.model import Result

    traced = [{"type": "assistant.output", "content": {"draft": "Refunding"}},
              {"type": "tool_call", "name": "lookup_order", "args": {"orderId": "A-1001"}, "output": {"total": 39}}]
    result = Result("default", "grading.json", "r1", "refund", "exact", Verdict.PASS, 1.0, "",
                    actual={"reply": "Refunded", "amount": 39}, trace=traced)
    doc, _notes = case_from_result(result, description="from a command target")
    said = [step["content"] for step in doc["script"] if step["type"] == "assistant.output"]
    assert said == ['{"draft":"Refunding"}', '{"reply":"Refunded","amount":39}']
    assert doc["expect"] == {"status": "completed", "outputContains": '{"reply":"Refunded","amount":39}'}
    parse_case(doc, "copy.script.json")  # the case it writes is one workbench reads

    text = Result("default", "grading.json", "r2", "hi", "exact", Verdict.PASS, 1.0, "", actual="Hello.",
                  trace=[{"type": "assistant.output", "content": "Hello."}])
    doc, _notes = case_from_result(text, description="text")
    assert doc["script"] == [{"type": "assistant.output", "content": "Hello."}]  # said once, as it was
