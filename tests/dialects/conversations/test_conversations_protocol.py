"""The turn protocol seen from the target (requests, state, history, events, the setup workflow, the per-turn
timeout), what happens when the target fails mid-conversation, and `llm_judge` with a local judge command."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers.conversations import (
    ScriptedTarget,
    config_for,
    eval_doc,
    failures,
    judge_script,
    play,
    result_of,
    turn,
    write_evals,
)

from workbench.model import Verdict
from workbench.scoring.judge_client import clear_cache


@pytest.fixture(autouse=True)
def _fresh_judge_cache() -> None:
    clear_cache()


def counting_bot(request: dict[str, Any]) -> dict[str, Any]:
    """Counts its turns in conversation state and echoes what it was sent."""
    seen = request["state"]["conversation"].get("seen", 0) + 1
    said = request.get("user") or request.get("event") or request.get("setup")
    return {"reply": f"{seen}: {said}", "state": {"conversation": {"seen": seen}}}


def test_requests_carry_the_eval_the_turn_the_state_and_the_history(tmp_path: Path) -> None:
    write_evals(tmp_path, {"e": eval_doc("talk", [turn("hello"), turn({"orderId": "ORD-1"}), turn("bye")],
                                         setup={"state": {"user": {"plan": "pro"}}})})
    target = ScriptedTarget(counting_bot)
    play(tmp_path, target)
    first, second, third = target.requests
    assert first == {"eval": "talk", "turn": 1, "user": "hello", "history": [],
                     "state": {"bot": {}, "user": {"plan": "pro"}, "conversation": {}}}
    assert second["event"] == {"payload": {"orderId": "ORD-1"}} and "user" not in second
    assert second["state"]["conversation"] == {"seen": 1}
    assert third["history"] == [{"turn": 1, "user": "hello", "reply": "1: hello"},
                                {"turn": 2, "event": {"payload": {"orderId": "ORD-1"}},
                                 "reply": "2: {'payload': {'orderId': 'ORD-1'}}"}]
    assert third["state"] == {"bot": {}, "user": {"plan": "pro"}, "conversation": {"seen": 2}}


def test_the_setup_workflow_is_asked_first_and_its_state_and_workflows_count(tmp_path: Path) -> None:
    def bot(request: dict[str, Any]) -> dict[str, Any]:
        if "setup" in request:
            return {"reply": None, "state": {"user": {"onboarded": True}},
                    "workflows": [{"name": request["setup"]["workflow"]["trigger"], "completed": True}]}
        return {"reply": f"onboarded={request['state']['user'].get('onboarded')}"}

    setup = {"workflow": {"trigger": "onboarding", "input": {"userId": "u1"}}}
    outcome = {"workflow": [{"name": "onboarding", "completed": True}],
               "state": [{"path": "user.onboarded", "changed": True}]}
    write_evals(tmp_path, {"e": eval_doc("flow", [turn("hi", response=[{"contains": "onboarded=True"}])],
                                         setup=setup, outcome=outcome)})
    target = ScriptedTarget(bot)
    result = result_of(play(tmp_path, target), "flow")
    assert result.verdict is Verdict.PASS, result.detail
    assert target.requests[0] == {"eval": "flow", "turn": 0, "setup": setup, "history": [],
                                  "state": {"bot": {}, "user": {}, "conversation": {}}}
    assert result.actual["setup"]["workflows"] == [{"name": "onboarding", "entered": True, "completed": True}]


def test_idle_timeout_bounds_each_turn_and_30_seconds_is_the_default(tmp_path: Path) -> None:
    """Seed 002: idleTimeout defaults to 30,000 ms per turn (it was the runner's 60 s before issue 22)."""
    write_evals(tmp_path, {"a": eval_doc("quick", [turn("x"), turn("y")], options={"idleTimeout": 1500}),
                           "b": eval_doc("plain", [turn("x")])})
    target = ScriptedTarget(lambda request: {"reply": "ok"})
    play(tmp_path, target)
    by_eval = {}
    for request, timeout in zip(target.requests, target.timeouts, strict=True):
        by_eval.setdefault(request["eval"], []).append(timeout)
    assert by_eval == {"quick": [1.5, 1.5], "plain": [30.0]}


def test_a_target_error_stops_the_conversation_as_an_error_naming_the_turn(tmp_path: Path) -> None:
    def bot(request: dict[str, Any]) -> dict[str, Any]:
        if request["turn"] == 2:
            raise RuntimeError("model overloaded")
        return {"reply": "fine"}

    turns = [turn("one", response=[{"contains": "nope"}]), turn("two"), turn("three"), turn("four")]
    write_evals(tmp_path, {"e": eval_doc("crash", turns, outcome={"state": [{"path": "bot.x", "exists": False}]})})
    target = ScriptedTarget(bot)
    result = result_of(play(tmp_path, target), "crash")
    assert result.verdict is Verdict.ERROR
    lines = result.detail.splitlines()
    assert lines[0] == "turn 2: the target raised RuntimeError: model overloaded"
    assert lines[1] == "turns 3–4 and the outcome did not run; 0 of 1 assertions checked before it hold"
    assert failures(result) == ["turn 1 · response: reply \"fine\" does not contain \"nope\""]
    assert [r["turn"] for r in target.requests] == [1, 2]
    assert [t["turn"] for t in result.actual["turns"]] == [1]  # the transcript up to the failure is kept
    assert "── turn 2 · user ──" in result.log and "boom at" in result.log


def test_a_failing_setup_workflow_runs_no_turn(tmp_path: Path) -> None:
    def bot(request: dict[str, Any]) -> dict[str, Any]:
        raise ValueError("no such workflow") if "setup" in request else AssertionError("a turn ran")

    write_evals(tmp_path, {"e": eval_doc("s", [turn("x")], setup={"workflow": {"trigger": "missing"}})})
    result = result_of(play(tmp_path, bot), "s")
    assert result.verdict is Verdict.ERROR
    assert result.detail.startswith("setup workflow: the target raised ValueError: no such workflow")


@pytest.mark.parametrize(("answer", "message"), [
    ("just text", "the target answered string; a turn's answer is an object"),
    ({"reply": 42}, "\"reply\" must be text or null, not number"),
    ({"reply": "x", "tools": {"name": "t"}}, "\"tools\" must be an array, not object"),
    ({"reply": "x", "tools": [{"params": {}}]}, "tools[0] must be an object with a \"name\""),
    ({"reply": "x", "state": {"session": {}}}, "\"state\" has 'session'; its keys are bot, user and conversation"),
    ({"reply": "x", "state": {"bot": []}}, "\"state\".bot must be an object"),
    ({"reply": "x", "workflows": [{"name": "w", "completed": "yes"}]}, "workflows[0].completed must be true or false"),
])
def test_an_answer_that_breaks_the_protocol_is_an_error_of_that_turn(tmp_path: Path, answer: Any, message: str) -> None:
    write_evals(tmp_path, {"e": eval_doc("p", [turn("x"), turn("y")])})
    result = result_of(play(tmp_path, lambda request: answer if request["turn"] == 2 else {"reply": "ok"}), "p")
    assert result.verdict is Verdict.ERROR
    assert result.detail.startswith(f"turn 2: the target's answer breaks the turn protocol: {message}"), result.detail


# -- llm_judge ---------------------------------------------------------------------------------------

JUDGED = [turn("open a ticket", response=[{"llm_judge": "Confirms the ticket"}])]


def judged(tmp_path: Path, score: Any, *, threshold: float = 3.0, options: dict | None = None,
           reply: str | None = "Ticket TKT-1 created", judge: bool = True):
    write_evals(tmp_path, {"e": eval_doc("j", JUDGED, **({"options": options} if options else {}))})
    command = judge_script(tmp_path, score) if judge else None
    config = config_for(tmp_path, judge=command, threshold=threshold)
    return result_of(play(tmp_path, lambda request: {"reply": reply}, config=config), "j")


@pytest.mark.parametrize(("score", "threshold", "options", "verdict"), [
    (3, 3.0, None, Verdict.PASS),  # the default threshold is 3
    (2, 3.0, None, Verdict.FAIL),
    (2, 2.0, None, Verdict.PASS),  # [evals] judge_pass_threshold
    (4, 2.0, {"judgePassThreshold": 5}, Verdict.FAIL),  # the eval's options win over the settings
    (5, 4.0, {"judgePassThreshold": 5}, Verdict.PASS),
    (4.5, 3.0, {"judgePassThreshold": 4.5}, Verdict.PASS),
])
def test_judge_thresholds(tmp_path: Path, score: float, threshold: float, options: dict | None,
                          verdict: Verdict) -> None:
    result = judged(tmp_path, score, threshold=threshold, options=options)
    assert result.verdict is verdict, result.detail
    message = result.expected["assertions"][0]["message"]
    assert message.startswith(f"judge scored {score:g}/5 {'≥' if verdict is Verdict.PASS else '<'} ")
    assert "'Confirms the ticket' — fixed" in message


def test_a_judge_score_outside_1_to_5_is_an_error(tmp_path: Path) -> None:
    result = judged(tmp_path, 7)
    assert result.verdict is Verdict.ERROR
    assert "turn 1 · response: the judge's score must be from 1 to 5, not 7" in result.detail


def test_without_a_judge_an_llm_judge_assertion_is_an_error_that_says_how_to_add_one(tmp_path: Path) -> None:
    result = judged(tmp_path, None, judge=False)
    assert result.verdict is Verdict.ERROR
    assert "llm_judge needs an LLM judge, but none is configured: add a [judge] section" in result.detail


def test_a_silent_reply_fails_llm_judge_without_asking(tmp_path: Path) -> None:
    result = judged(tmp_path, "not even read", reply=None)
    assert result.verdict is Verdict.FAIL
    assert "turn 1 · response: the bot said nothing, so there is no reply to judge" in result.detail


def test_the_judge_sees_the_criterion_the_earlier_turns_and_the_reply(tmp_path: Path) -> None:
    body = ("import json\nok = all(part in prompt for part in ('Confirms the ticket', 'User: hi', 'Bot: hello',"
            " 'User: open a ticket', 'Bot: Ticket TKT-1 created', '1 to 5'))\n"
            "print(json.dumps({'score': 5 if ok else 1, 'justification': prompt[-300:]}))\n")
    write_evals(tmp_path, {"e": eval_doc("j", [turn("hi"), *JUDGED])})
    config = config_for(tmp_path, judge=judge_script(tmp_path, body=body))
    answers = iter([{"reply": "hello"}, {"reply": "Ticket TKT-1 created"}])
    result = result_of(play(tmp_path, lambda request: next(answers), config=config), "j")
    assert result.verdict is Verdict.PASS, result.detail
