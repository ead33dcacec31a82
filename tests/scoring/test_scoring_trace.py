"""The trace helpers: tool calls in order and token usage (what baselines compare)."""

from __future__ import annotations

from workbench.output_paths import MISSING
from workbench.trace import tool_calls, trace_tokens


def test_tool_calls_in_order_with_args_and_output():
    trace = [
        {"type": "tool_call", "name": "a", "args": {"x": 1}, "output": 2},
        {"type": "usage", "tokens": 3},
        {"type": "tool_call", "name": "b", "arguments": {"y": 2}},
        {"type": "tool_call", "name": "c", "args": None},
    ]
    found = tool_calls(trace)
    assert found.names == ["a", "b", "c"]
    assert found.calls[0].output == 2 and found.calls[1].output is MISSING
    assert found.calls[1].args == {"y": 2} and found.calls[2].args == {}
    assert found.malformed == 0 and found.note() == ""


def test_unusable_tool_call_events_are_counted():
    found = tool_calls([{"type": "tool_call"}, {"type": "tool_call", "name": "x", "args": [1]}, "junk"])  # type: ignore[list-item]
    assert found.calls == [] and found.malformed == 2 and "2 tool_call" in found.note()


def test_tokens_add_up_usage_events():
    trace = [{"type": "usage", "tokens": 100}, {"type": "tool_call", "name": "a"}, {"type": "usage", "tokens": 23}]
    assert trace_tokens(trace) == 123


def test_tokens_accept_input_and_output_counts():
    assert trace_tokens([{"type": "usage", "input_tokens": 10, "output_tokens": 5}]) == 15
    assert trace_tokens([{"type": "usage", "input_tokens": 10}]) == 10


def test_no_usage_means_none_and_junk_counts_are_ignored():
    assert trace_tokens([]) is None
    assert trace_tokens(None) is None
    assert trace_tokens([{"type": "tool_call", "name": "a"}]) is None
    assert trace_tokens([{"type": "usage", "tokens": True}, {"type": "usage", "tokens": -4}]) is None
    assert trace_tokens([{"type": "usage", "tokens": "12"}, {"type": "usage", "tokens": 0}]) == 0
