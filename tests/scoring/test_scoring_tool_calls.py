"""Tool-call evaluators scored from the trace: order, count, args, output (hand-computed scores)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from workbench.model import EvaluatorDef, Verdict
from workbench.scoring import CriterionError, Score, ScoreInput, scorer_for

TRACE: list[dict[str, Any]] = [
    {"type": "tool_call", "name": "lookupUser", "args": {"id": 7}, "output": {"name": "Ada"}},
    {"type": "log", "message": "thinking"},
    {"type": "tool_call", "name": "searchKb", "args": {"q": "reset"}, "output": ["KB-1"]},
    {"type": "tool_call", "name": "createTicket", "args": {"user": 7, "priority": "high"}, "output": "TKT-1"},
    {"type": "usage", "tokens": 120},
]


def score(type_id: str, criterion: dict[str, Any], trace: list[dict[str, Any]] | None = None,
          **config: Any) -> Score:
    ev = EvaluatorDef("default", "ev", Path("ev.json"), None, None, type_id, config, {})
    scorer = scorer_for(type_id)
    assert scorer is not None and scorer.check_config(ev) is None
    try:
        return scorer.score(ScoreInput(ev, criterion, {"result": None}, TRACE if trace is None else trace))
    except CriterionError as exc:
        return Score.error(str(exc))


ORDER = "uipath-tool-call-order"
COUNT = "uipath-tool-call-count"
ARGS = "uipath-tool-call-args"
OUTPUT = "uipath-tool-call-output"


@pytest.mark.parametrize("type_id,criterion", [
    (ORDER, {"toolCallsOrder": []}),
    (COUNT, {"toolCallsCount": {}}),
    (ARGS, {"toolCalls": []}),
    (OUTPUT, {"toolOutputs": []}),
])
def test_empty_on_both_sides_scores_one_and_one_side_empty_scores_zero(type_id: str, criterion: dict[str, Any]):
    both = score(type_id, criterion, trace=[{"type": "usage", "tokens": 5}])
    assert (both.verdict, both.score) == (Verdict.PASS, 1.0)
    expected_only = {ORDER: {"toolCallsOrder": ["a"]}, COUNT: {"toolCallsCount": {"a": 1}},
                     ARGS: {"toolCalls": [{"name": "a", "args": {}}]},
                     OUTPUT: {"toolOutputs": [{"name": "a", "output": 1}]}}[type_id]
    no_calls = score(type_id, expected_only, trace=[])
    assert (no_calls.verdict, no_calls.score) == (Verdict.FAIL, 0.0)
    assert "WORKBENCH_TRACE" in no_calls.detail
    unexpected_calls = score(type_id, criterion)
    assert (unexpected_calls.verdict, unexpected_calls.score) == (Verdict.FAIL, 0.0)


def test_order_is_longest_common_subsequence_over_expected_length():
    assert score(ORDER, {"toolCallsOrder": ["lookupUser", "createTicket"]}).score == 1.0
    assert score(ORDER, {"toolCallsOrder": ["createTicket", "lookupUser"]}).score == 0.5
    partial = score(ORDER, {"toolCallsOrder": ["lookupUser", "notify", "createTicket"]})
    assert partial.score == pytest.approx(2 / 3) and partial.verdict is Verdict.FAIL
    assert "longest common subsequence" in partial.detail


def test_order_strict_demands_the_exact_sequence():
    assert score(ORDER, {"toolCallsOrder": ["lookupUser", "createTicket"]}, strict=True).score == 0.0
    exact = score(ORDER, {"toolCallsOrder": ["lookupUser", "searchKb", "createTicket"]}, strict=True)
    assert (exact.verdict, exact.score) == (Verdict.PASS, 1.0)


def test_order_passes_at_a_lower_threshold():
    result = score(ORDER, {"toolCallsOrder": ["createTicket", "lookupUser"]}, passThreshold=0.5)
    assert result.verdict is Verdict.PASS


def test_count_is_the_fraction_of_rules_that_hold():
    criterion = {"toolCallsCount": {"lookupUser": ["=", 1], "createTicket": [">=", 2], "searchKb": 1}}
    result = score(COUNT, criterion)
    assert result.score == pytest.approx(2 / 3)
    assert "FAIL createTicket: called 1 time(s), expected >= 2" in result.detail
    assert score(COUNT, criterion, strict=True).score == 0.0
    assert score(COUNT, {"toolCallsCount": {"deleteUser": ["==", 0], "lookupUser": ["<", 2]}}).score == 1.0


def test_count_rejects_unknown_operators():
    for rule in (["~", 1], [["="], 1], ["=", 1.5], ["=", 1, 2], "one", True):
        result = score(COUNT, {"toolCallsCount": {"lookupUser": rule}})
        assert result.verdict is Verdict.ERROR and "operator" in result.detail, rule
    assert score(COUNT, {"toolCallsCount": {"lookupUser": ["==", 1.0]}}).score == 1.0
    assert score(COUNT, {"toolCallsCount": {"lookupUser": ["=", 10**400]}}).verdict is Verdict.FAIL


def test_args_must_be_equal_unless_subset():
    criterion = {"toolCalls": [{"name": "lookupUser", "args": {"id": 7}},
                               {"name": "createTicket", "args": {"priority": "high"}}]}
    exact = score(ARGS, criterion)
    assert exact.score == 0.5
    assert "FAIL [1] createTicket" in exact.detail
    assert score(ARGS, criterion, subset=True).score == 1.0
    assert score(ARGS, criterion, strict=True).score == 0.0


def test_args_use_exact_match_rules_and_accept_arguments_spelling():
    assert score(ARGS, {"toolCalls": [{"name": "lookupUser", "arguments": {"id": 7.0}}]}).score == 1.0
    assert score(ARGS, {"toolCalls": [{"name": "lookupUser", "args": {"id": "7"}}]}).score == 0.0


def test_each_actual_call_matches_one_expected_call():
    criterion = {"toolCalls": [{"name": "lookupUser", "args": {"id": 7}}, {"name": "lookupUser", "args": {"id": 7}}]}
    assert score(ARGS, criterion).score == 0.5


def test_outputs_compare_exactly_or_as_json_text():
    criterion = {"toolOutputs": [{"name": "lookupUser", "output": {"name": "Ada"}},
                                 {"name": "createTicket", "output": "TKT-1"}]}
    assert score(OUTPUT, criterion).score == 1.0
    as_text = {"toolOutputs": [{"name": "lookupUser", "output": '{"name": "Ada"}'}]}
    assert score(OUTPUT, as_text).score == 1.0
    wrong = {"toolOutputs": [{"name": "lookupUser", "output": {"name": "Ada"}},
                             {"name": "createTicket", "output": "TKT-2"}]}
    assert score(OUTPUT, wrong).score == 0.5


def test_malformed_criteria_are_errors():
    assert score(ORDER, {"toolCallsOrder": "lookupUser"}).verdict is Verdict.ERROR
    assert score(ORDER, {"toolCallsOrder": [1]}).verdict is Verdict.ERROR
    assert score(ARGS, {"toolCalls": [{"args": {}}]}).verdict is Verdict.ERROR
    assert score(OUTPUT, {"toolOutputs": [{"name": "x"}]}).verdict is Verdict.ERROR
    missing = score(COUNT, {})
    assert missing.verdict is Verdict.ERROR and "toolCallsCount" in missing.detail


def test_malformed_trace_events_are_ignored_and_mentioned():
    trace = [*TRACE, {"type": "tool_call", "name": 5}, {"type": "tool_call", "name": "x", "args": "bad"}]
    result = score(ORDER, {"toolCallsOrder": ["lookupUser", "searchKb", "createTicket"]}, trace=trace)
    assert result.score == 1.0 and "2 tool_call event(s)" in result.detail


def test_bad_flags_are_reported_up_front():
    scorer = scorer_for(ARGS)
    assert scorer is not None
    ev = EvaluatorDef("default", "ev", Path("ev.json"), None, None, ARGS, {"subset": "yes"}, {})
    assert "subset" in (scorer.check_config(ev) or "")
