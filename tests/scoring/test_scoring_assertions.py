"""workbench-assertions: checks on the output, the tool calls and the run; each failure is named."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from workbench.model import EvaluatorDef, Verdict
from workbench.scoring import CriterionError, Score, ScoreInput, scorer_for

TYPE = "workbench-assertions"
OUTPUT = {"reply": "Votre ticket TKT-042 est créé", "priority": "high", "count": 3,
          "tags": ["billing", "urgent"], "ticket": {"id": "TKT-042", "items": [{"sku": "A1"}]}}
TRACE: list[dict[str, Any]] = [
    {"type": "tool_call", "name": "lookupUser", "args": {"email": "ada@example.com"}},
    {"type": "tool_call", "name": "searchKb", "args": {"query": "reset password"}},
    {"type": "tool_call", "name": "createTicket",
     "args": {"priority": "high", "department": "Engineering", "meta": {"source": "chat"}}},
    {"type": "usage", "tokens": 900},
]


def score(checks: Any, *, criterion: dict[str, Any] | None = None, duration_ms: float = 1200.0,
          **config: Any) -> Score:
    ev = EvaluatorDef("default", "ev", Path("ev.json"), None, None, TYPE, config, {})
    scorer = scorer_for(TYPE)
    assert scorer is not None and scorer.check_config(ev) is None
    data = ScoreInput(ev, criterion if criterion is not None else {"checks": checks}, OUTPUT, TRACE, duration_ms)
    try:
        return scorer.score(data)
    except CriterionError as exc:
        return Score.error(str(exc))


@pytest.mark.parametrize("check", [
    {"path": "reply", "contains": "TKT"},
    {"path": "reply", "not_contains": "error"},
    {"path": "reply", "matches": "TKT-\\d{3}"},
    {"path": "priority", "equals": "high"},
    {"path": "priority", "in": ["high", "urgent"]},
    {"path": "count", "gte": 3, "lte": 3},
    {"path": "missing", "exists": False},
    {"path": "ticket.id", "exists": True},
    {"path": "ticket.items[0].sku", "equals": "A1"},
    {"path": "tags", "contains": "urgent"},
    {"equals": OUTPUT},
    {"tool_called": "createTicket"},
    {"tool_called": "createTicket", "params": {"priority": {"equals": "high"}, "department": {"contains": "Eng"}}},
    {"tool_called": "createTicket", "params": {"priority": "high", "meta.source": "chat"}},
    {"tool_not_called": "deleteTicket"},
    {"tool_call_order": ["lookupUser", "createTicket"]},
    {"duration_ms": {"lte": 5000}},
    {"duration_ms": {"gte": 100}},
    {"tokens": {"lte": 1000}},
    {"anyOf": [[{"path": "priority", "equals": "low"}], [{"path": "priority", "equals": "high"}]]},
])
def test_holding_checks_pass(check: dict[str, Any]):
    result = score([check])
    assert (result.verdict, result.score) == (Verdict.PASS, 1.0), result.detail


@pytest.mark.parametrize(("check", "reason"), [
    ({"path": "reply", "contains": "invoice"}, "does not contain \"invoice\""),
    ({"path": "reply", "not_contains": "ticket"}, "contains \"ticket\""),
    ({"path": "reply", "matches": "^TKT"}, "does not match"),
    ({"path": "priority", "equals": "low"}, "is \"high\", expected \"low\""),
    ({"path": "priority", "in": ["low"]}, "not one of"),
    ({"path": "count", "gte": 5}, "expected >= 5"),
    ({"path": "count", "lte": 1}, "expected <= 1"),
    ({"path": "reply", "gte": 1}, "works on numbers"),
    ({"path": "missing", "equals": 1}, "missing is missing"),
    ({"path": "ticket.id", "exists": False}, "expected it to be absent"),
    ({"path": "count", "contains": "3"}, "works on text or arrays"),
    ({"tool_called": "deleteTicket"}, "deleteTicket was not called (tools called: lookupUser, searchKb, createTicket)"),
    ({"tool_called": "createTicket", "params": {"priority": {"equals": "low"}}}, "call #3: priority is \"high\""),
    ({"tool_not_called": "searchKb"}, "searchKb was called 1 time(s)"),
    ({"tool_call_order": ["createTicket", "lookupUser"]}, "stuck at lookupUser"),
    ({"duration_ms": {"lte": 1000}}, "duration_ms is 1200"),
    ({"tokens": {"lte": 500}}, "tokens is 900"),
    ({"anyOf": [[{"path": "priority", "equals": "low"}], [{"path": "count", "equals": 4}]]}, "no alternative held"),
])
def test_failing_checks_are_named_with_their_reason(check: dict[str, Any], reason: str):
    result = score([{"path": "priority", "exists": True}, check])
    assert (result.verdict, result.score) == (Verdict.FAIL, 0.0)
    assert "1 of 2 checks failed" in result.detail
    assert "checks[1]" in result.detail and reason in result.detail, result.detail


def test_every_failing_check_is_listed():
    result = score([{"path": "priority", "equals": "low"}, {"path": "count", "equals": 3},
                    {"name": "no deletes", "tool_not_called": "searchKb"}])
    assert "2 of 3 checks failed" in result.detail
    assert "checks[0]" in result.detail and "checks[2] no deletes:" in result.detail
    assert "checks[1]" not in result.detail


def test_case_and_accent_insensitive_text_checks():
    assert score([{"path": "reply", "contains": "est cree"}]).verdict is Verdict.FAIL
    assert score([{"path": "reply", "contains": "est cree", "ignore_accents": True}]).verdict is Verdict.PASS
    assert score([{"path": "reply", "contains": "VOTRE", "ignore_case": True}]).verdict is Verdict.PASS
    assert score([{"path": "reply", "equals": "VOTRE TICKET TKT-042 EST CREE"}],
                 ignoreCase=True, ignoreAccents=True).verdict is Verdict.PASS
    assert score([{"path": "reply", "matches": "cree$"}], ignoreAccents=True).verdict is Verdict.PASS
    assert score([{"path": "reply", "contains": "votre", "ignore_case": False}], ignoreCase=True).verdict \
        is Verdict.FAIL


def test_tool_params_with_text_flags():
    check = {"tool_called": "createTicket", "params": {"department": {"equals": "engineering"}}, "ignore_case": True}
    assert score([check]).verdict is Verdict.PASS


def test_top_level_any_of_is_one_more_check():
    criterion = {"checks": [{"path": "count", "equals": 3}],
                 "anyOf": [[{"tool_called": "escalate"}], [{"path": "priority", "equals": "high"}]]}
    assert score(None, criterion=criterion).verdict is Verdict.PASS


def test_no_usage_in_trace_fails_the_token_check():
    ev = EvaluatorDef("default", "ev", Path("ev.json"), None, None, TYPE, {}, {})
    scorer = scorer_for(TYPE)
    assert scorer is not None
    result = scorer.score(ScoreInput(ev, {"checks": [{"tokens": {"lte": 10}}]}, OUTPUT, [], 0.0))
    assert result.verdict is Verdict.FAIL and "no token usage" in result.detail


@pytest.mark.parametrize(("checks", "needle"), [
    ([{"path": "reply", "matches": "("}], "not a valid regular expression"),
    ([{"path": "reply"}], "no operator"),
    ([{"path": "reply", "contain": "x"}], "unknown key"),
    ([{"tool_called": "a", "tool_not_called": "b"}], "more than one check"),
    ([{"nothing": 1}], "no recognised check"),
    ([{"path": "count", "gte": "3"}], "gte needs a number"),
    ([{"path": "count", "in": "abc"}], "in needs an array"),
    ([{"path": "x", "exists": "yes"}], "exists must be true or false"),
    ([{"path": "x[", "equals": 1}], "cannot read path"),
    ([{"duration_ms": 5000}], "duration_ms must be an object"),
    ([{"tool_call_order": []}], "non-empty array"),
    ([{"anyOf": []}], "non-empty array"),
    ([{"anyOf": [{"path": "x", "exists": True}]}], "must be an array of checks"),
    ([], "nothing to assert"),
    ("not a list", "must be an array of checks"),
])
def test_unusable_checks_are_errors_naming_the_check(checks: Any, needle: str):
    result = score(checks)
    assert result.verdict is Verdict.ERROR and needle in result.detail, result.detail


def test_unknown_criterion_keys_are_errors():
    result = score(None, criterion={"checks": [{"path": "x", "exists": False}], "expectedOutput": {}})
    assert result.verdict is Verdict.ERROR and "'expectedOutput'" in result.detail


def test_bad_config_flags_are_reported_up_front():
    scorer = scorer_for(TYPE)
    assert scorer is not None
    ev = EvaluatorDef("default", "ev", Path("ev.json"), None, None, TYPE, {"ignoreCase": 1}, {})
    assert "ignoreCase" in (scorer.check_config(ev) or "")
