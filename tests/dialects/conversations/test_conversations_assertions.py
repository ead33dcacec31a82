"""Every assertion of a conversation eval (seed 002) and every match operator, checked turn by turn against
what an in-process scripted target answered: what passes, what fails, and how the failure is named."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers.conversations import eval_doc, failures, play, result_of, turn, write_evals

from workbench.model import Result, Verdict


def verdict_of(tmp_path: Path, turns: list[dict], answers: list[Any] | Any, **fields: Any) -> Result:
    """Play one eval whose turns get `answers` in order (or the same answer every turn)."""
    write_evals(tmp_path, {"e": eval_doc("e", turns, **fields)})
    queue = list(answers) if isinstance(answers, list) else None

    def answer(request: dict) -> Any:
        return queue.pop(0) if queue is not None else answers
    result = result_of(play(tmp_path, answer), "e")
    assert result.verdict is not Verdict.ERROR or "turn" in result.detail, result.detail
    return result



def passes_or_says(result: Result, where: str, message: str | None) -> None:
    """No message: the result passed. A message: it failed, saying `where` + `message` in its detail."""
    if message is None:
        assert result.verdict is Verdict.PASS, result.detail
    else:
        assert result.verdict is Verdict.FAIL and f"{where}{message}" in result.detail

# -- response ----------------------------------------------------------------------------------------

@pytest.mark.parametrize(("assertion", "holds"), [
    ({"contains": "ticket"}, True),
    ({"contains": "Ticket"}, False),
    ({"not_contains": "error"}, True),
    ({"not_contains": "ticket"}, False),
    ({"matches": r"TKT-\d{3}"}, True),
    ({"matches": r"^TKT"}, False),
])
def test_response_operators(tmp_path: Path, assertion: dict, holds: bool) -> None:
    result = verdict_of(tmp_path, [turn("open one", response=[assertion])], {"reply": "Your ticket is TKT-042"})
    assert result.verdict is (Verdict.PASS if holds else Verdict.FAIL)
    if not holds:
        assert failures(result)[0].startswith("turn 1 · response: reply \"Your ticket is TKT-042\"")


def test_a_response_assertion_on_a_silent_turn_fails_saying_so(tmp_path: Path) -> None:
    result = verdict_of(tmp_path, [turn("hi", response=[{"contains": "x"}])], {"reply": None})
    assert result.verdict is Verdict.FAIL
    assert "turn 1 · response: the bot said nothing" in result.detail


@pytest.mark.parametrize(("answer", "holds"), [
    ({"reply": None}, True),
    ({}, True),
    ({"reply": ""}, False),
    ({"reply": "I'm here"}, False),
])
def test_expect_silence_passes_only_without_a_reply(tmp_path: Path, answer: dict, holds: bool) -> None:
    result = verdict_of(tmp_path, [turn("ignore this", silence=True)], answer)
    assert result.verdict is (Verdict.PASS if holds else Verdict.FAIL)
    if not holds:
        assert "turn 1 · expectSilence: expected silence, but the bot replied" in result.detail
    if answer == {"reply": ""}:
        assert "an empty string is a reply" in result.detail


# -- tools -------------------------------------------------------------------------------------------

CALLS = {"reply": "ok", "tools": [
    {"name": "lookupUser", "params": {"id": 7}},
    {"name": "audit", "params": {}},
    {"name": "createTicket", "params": {"priority": "high", "department": "IT Engineering", "count": 3,
                                        "tags": ["vpn", "urgent"]}, "output": {"id": "TKT-1"}},
]}


@pytest.mark.parametrize(("params", "holds"), [
    ({"priority": {"equals": "high"}}, True),
    ({"priority": {"equals": "High"}}, False),
    ({"department": {"contains": "Engineering"}}, True),
    ({"department": {"not_contains": "HR"}}, True),
    ({"department": {"not_contains": "IT"}}, False),
    ({"department": {"matches": "^IT "}}, True),
    ({"priority": {"in": ["high", "urgent"]}}, True),
    ({"priority": {"in": ["low"]}}, False),
    ({"priority": {"exists": True}}, True),
    ({"assignee": {"exists": False}}, True),
    ({"assignee": {"exists": True}}, False),
    ({"count": {"gte": 3}}, True),
    ({"count": {"lte": 2}}, False),
    ({"tags": {"contains": "vpn"}}, True),
    ({"priority": {"equals": "high"}, "count": {"gte": 3, "lte": 3}}, True),
])
def test_called_with_params_uses_every_match_operator(tmp_path: Path, params: dict, holds: bool) -> None:
    result = verdict_of(tmp_path, [turn("go", tools=[{"called": "createTicket", "params": params}])], CALLS)
    assert result.verdict is (Verdict.PASS if holds else Verdict.FAIL), result.detail
    if not holds:
        assert "turn 1 · tools: no call to createTicket had the expected params" in result.detail


@pytest.mark.parametrize(("assertion", "message"), [
    ({"called": "createTicket"}, None),
    ({"called": "deleteTicket"}, "deleteTicket was not called (tools called: lookupUser, audit, createTicket)"),
    ({"not_called": "deleteTicket"}, None),
    ({"not_called": "audit"}, "audit was called 1 time(s)"),
    ({"call_order": ["lookupUser", "createTicket"]}, None),
    ({"call_order": ["createTicket", "lookupUser"]}, "expected createTicket → lookupUser in that order"),
])
def test_called_not_called_and_call_order(tmp_path: Path, assertion: dict, message: str | None) -> None:
    passes_or_says(verdict_of(tmp_path, [turn("go", tools=[assertion])], CALLS), "turn 1 · tools: ", message)


def test_tool_assertions_see_only_their_own_turns_calls(tmp_path: Path) -> None:
    turns = [turn("first", tools=[{"called": "lookupUser"}]),
             turn("second", tools=[{"not_called": "lookupUser"}, {"called": "lookupUser"},
                                   {"call_order": ["lookupUser", "createTicket"]}])]
    answers = [{"reply": "a", "tools": [{"name": "lookupUser"}]},
               {"reply": "b", "tools": [{"name": "createTicket"}]}]
    result = verdict_of(tmp_path, turns, answers)
    assert failures(result) == [
        "turn 2 · tools: lookupUser was not called (tools called: createTicket)",
        "turn 2 · tools: expected lookupUser → createTicket in that order; the calls were createTicket "
        "(stuck at lookupUser)",
    ]


def test_tool_calls_written_to_the_trace_count_for_their_turn(tmp_path: Path) -> None:
    answers = [{"reply": "a", "__trace__": [{"type": "tool_call", "name": "search", "args": {"q": "vpn"}},
                                            {"type": "usage", "tokens": 40}]},
               {"reply": "b", "__trace__": [{"type": "usage", "tokens": 2}]}]
    turns = [turn("one", tools=[{"called": "search", "params": {"q": {"equals": "vpn"}}}]),
             turn("two", tools=[{"not_called": "search"}])]
    result = verdict_of(tmp_path, turns, answers)
    assert result.verdict is Verdict.PASS, result.detail
    assert [e.get("tokens") for e in result.trace if e["type"] == "usage"] == [40, 2]  # baselines add them up


# -- state -------------------------------------------------------------------------------------------

STATE = {"bot": {"count": 3}, "user": {"plan": "pro", "tags": ["a", "b"]}, "conversation": {"topic": "billing"}}


@pytest.mark.parametrize(("assertion", "holds"), [
    ({"path": "conversation.topic", "equals": "billing"}, True),
    ({"path": "conversation.topic", "equals": "support"}, False),
    ({"path": "bot.count", "equals": 3.0}, True),
    ({"path": "bot.count", "equals": "3"}, False),
    ({"path": "user.plan", "contains": "pr"}, True),
    ({"path": "user.plan", "not_contains": "pr"}, False),
    ({"path": "user.plan", "matches": "^p.o$"}, True),
    ({"path": "user.plan", "in": ["pro", "team"]}, True),
    ({"path": "user.tags", "contains": "b"}, True),
    ({"path": "user.missing", "exists": False}, True),
    ({"path": "user.missing", "equals": 1}, False),
    ({"path": "bot.count", "gte": 3}, True),
    ({"path": "bot.count", "lte": 2}, False),
])
def test_state_operators(tmp_path: Path, assertion: dict, holds: bool) -> None:
    result = verdict_of(tmp_path, [turn("x", state=[assertion])], {"reply": "ok", "state": STATE})
    assert result.verdict is (Verdict.PASS if holds else Verdict.FAIL), result.detail
    if not holds:
        assert failures(result)[0].startswith(f"turn 1 · state: {assertion['path']} ")


def test_changed_compares_with_the_state_before_the_turn_and_the_seed_is_the_first_baseline(tmp_path: Path) -> None:
    turns = [turn("one", state=[{"path": "conversation.topic", "changed": False},
                                {"path": "bot.count", "changed": True}]),
             turn("two", state=[{"path": "bot.count", "changed": False},
                                {"path": "conversation.topic", "changed": True}])]
    answers = [{"reply": "a", "state": {"bot": {"count": 2}}},  # topic stays as seeded, count moves from 1
               {"reply": "b"}]  # nothing returned: nothing changes
    setup = {"state": {"bot": {"count": 1}, "conversation": {"topic": "billing"}}}
    result = verdict_of(tmp_path, turns, answers, setup=setup)
    assert failures(result) == ["turn 2 · state: conversation.topic did not change (still \"billing\")"]


def test_outcome_changed_is_measured_against_the_seeded_state(tmp_path: Path) -> None:
    outcome = {"state": [{"path": "user.plan", "changed": False}, {"path": "bot.count", "changed": True},
                         {"path": "conversation.resolved", "changed": True}]}
    answers = [{"reply": "a", "state": {"bot": {"count": 5}}},
               {"reply": "b", "state": {"bot": {"count": 1}, "conversation": {"resolved": True}}}]
    result = verdict_of(tmp_path, [turn("one"), turn("two")], answers, outcome=outcome,
                        setup={"state": {"bot": {"count": 1}, "user": {"plan": "pro"}}})
    assert failures(result) == ["outcome · state: bot.count did not change (still 1)"]


def test_each_returned_scope_replaces_its_own_and_the_others_are_kept(tmp_path: Path) -> None:
    turns = [turn("one"), turn("two", state=[{"path": "user.plan", "equals": "pro"},
                                             {"path": "bot.n", "equals": 1}, {"path": "bot.old", "exists": False}])]
    answers = [{"reply": "a", "state": {"bot": {"n": 1}}}, {"reply": "b"}]
    result = verdict_of(tmp_path, turns, answers, setup={"state": {"user": {"plan": "pro"}, "bot": {"old": 1}}})
    assert result.verdict is Verdict.PASS, result.detail


# -- workflow, timing, outcome ----------------------------------------------------------------------

@pytest.mark.parametrize(("assertion", "message"), [
    ({"name": "onboarding", "entered": True}, None),
    ({"name": "onboarding", "completed": True}, "onboarding did not complete (workflows: onboarding)"),
    ({"name": "onboarding", "completed": False}, None),
    ({"name": "billing", "entered": True}, "billing was not entered (workflows: onboarding)"),
    ({"name": "billing", "entered": False}, None),
    ({"name": "onboarding", "entered": False}, "onboarding was entered"),
    ({"name": "onboarding", "entered": True, "params": {"userId": {"equals": "u1"}}}, None),
    ({"name": "onboarding", "params": {"userId": {"equals": "u2"}}}, "no run of onboarding had the expected params"),
])
def test_workflow_entered_completed_and_params(tmp_path: Path, assertion: dict, message: str | None) -> None:
    answer = {"reply": "ok", "workflows": [{"name": "onboarding", "entered": True, "input": {"userId": "u1"}}]}
    passes_or_says(verdict_of(tmp_path, [turn("x", workflow=[assertion])], answer), "turn 1 · workflow: ", message)


def test_workflows_from_trace_events_count_and_outcome_sees_every_turn(tmp_path: Path) -> None:
    answers = [{"reply": "a", "__trace__": [{"type": "workflow", "name": "ticketFlow"}]},
               {"reply": "b", "workflows": [{"name": "ticketFlow", "completed": True}]}]
    turns = [turn("one", workflow=[{"name": "ticketFlow", "entered": True}]),
             turn("two", workflow=[{"name": "ticketFlow", "completed": True}])]
    outcome = {"workflow": [{"name": "ticketFlow", "entered": True, "completed": True},
                            {"name": "refundFlow", "entered": True}]}
    result = verdict_of(tmp_path, turns, answers, outcome=outcome)
    assert failures(result) == ["outcome · workflow: refundFlow was not entered (workflows: ticketFlow)"]


def test_timing_bounds_each_turns_response_time(tmp_path: Path) -> None:
    turns = [turn("x", timing=[{"response_time": {"lte": 60_000}}, {"response_time": {"gte": 0}}]),
             turn("y", timing=[{"response_time": {"gte": 60_000}}])]
    result = verdict_of(tmp_path, turns, {"reply": "ok"})
    assert len(failures(result)) == 1
    assert failures(result)[0].startswith("turn 2 · timing: response_time (ms) is ")
    assert "expected >= 60000" in failures(result)[0]
    assert all(t["response_time_ms"] >= 0 for t in result.actual["turns"])


def test_later_turns_still_run_after_a_failed_assertion_and_every_failure_is_named(tmp_path: Path) -> None:
    turns = [turn("one", response=[{"contains": "A"}]), turn("two", tools=[{"called": "createTicket"}]),
             turn("three", response=[{"contains": "C"}])]
    answers = [{"reply": "x"}, {"reply": "y", "tools": [{"name": "lookupUser"}]}, {"reply": "C"}]
    result = verdict_of(tmp_path, turns, answers)
    assert result.verdict is Verdict.FAIL
    assert result.detail.splitlines()[0] == "2 of 3 assertions failed"
    assert failures(result) == ["turn 1 · response: reply \"x\" does not contain \"A\"",
                                "turn 2 · tools: createTicket was not called (tools called: lookupUser)"]
    assert result.score == pytest.approx(1 / 3)
    assert [a["verdict"] for a in result.expected["assertions"]] == ["FAIL", "FAIL", "PASS"]
    assert [a["turn"] for a in result.expected["assertions"]] == [1, 2, 3]


def test_a_passing_conversation_says_how_many_assertions_held(tmp_path: Path) -> None:
    result = verdict_of(tmp_path, [turn("one", response=[{"contains": "o"}]), turn("two")], {"reply": "ok"},
                        outcome={"state": [{"path": "bot.x", "exists": False}]})
    assert (result.verdict, result.score, result.detail) == (Verdict.PASS, 1.0, "all 2 assertions hold over 2 turns")
