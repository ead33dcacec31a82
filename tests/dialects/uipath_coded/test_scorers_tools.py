"""The coded format's tool-call evaluator types, scored from the row's spans: every score here is the one the
SDK 2.14.44 gives for the same evaluator, criterion and spans."""

from __future__ import annotations

import pytest
from coded_scoring import SCORERS, score, span

from workbench.model import Verdict

ORDER, COUNT = "uipath-tool-call-order", "uipath-tool-call-count"
ARGS, OUTPUT = "uipath-tool-call-args", "uipath-tool-call-output"


def calls(*names: str) -> list[dict]:
    return [span(name) for name in names]


def test_order_scores_the_longest_common_subsequence():
    reversed_pair = score(ORDER, {"toolCallsOrder": ["lookup", "weather"]}, trace=calls("weather", "lookup"))
    assert (reversed_pair.verdict, reversed_pair.score) == (Verdict.FAIL, 0.5)
    assert "LCS ['lookup'] of expected ['lookup', 'weather']" in reversed_pair.detail
    assert reversed_pair.expected == ["lookup", "weather"]
    assert score(ORDER, {"toolCallsOrder": ["lookup", "weather"]}, trace=calls("lookup", "x", "weather")).score == 1.0
    three = score(ORDER, {"toolCallsOrder": ["book", "weather", "lookup"]}, trace=calls("lookup", "weather", "book"))
    assert three.score == pytest.approx(1 / 3, abs=1e-12)


def test_strict_order_is_all_or_nothing():
    criterion = {"toolCallsOrder": ["lookup", "weather"]}
    assert score(ORDER, criterion, trace=calls("lookup", "weather"), strict=True).score == 1.0
    extra = score(ORDER, criterion, trace=calls("lookup", "weather", "book"), strict=True)
    assert (extra.verdict, extra.score) == (Verdict.FAIL, 0.0)


@pytest.mark.parametrize(("expected", "made", "value"), [
    ([], (), 1.0), ([], ("lookup",), 0.0), (["lookup"], (), 0.0),
])
def test_empty_sides(expected, made, value):
    for strict in (False, True):
        assert score(ORDER, {"toolCallsOrder": expected}, trace=calls(*made), strict=strict).score == value


def test_a_span_with_an_id_is_ordered_by_its_id_only():
    trace = [span("lookup", tool_id="t1"), span("get weather")]
    assert score(ORDER, {"toolCallsOrder": ["lookup", "get_weather"]}, trace=trace).score == 0.5
    assert score(ORDER, {"toolCallsOrder": ["t1", "get_weather"]}, trace=trace).score == 1.0


def test_synthesized_and_other_spans_are_not_calls():
    trace = [span("lookup", synthesized=True), span(None), span("weather")]
    assert score(ORDER, {"toolCallsOrder": ["weather"]}, trace=trace, strict=True).score == 1.0


def test_count_scores_the_share_of_counts_that_hold():
    trace = calls("lookup", "lookup", "weather")
    result = score(COUNT, {"toolCallsCount": {"lookup": ["=", 2], "weather": [">", 1], "book": ["=", 0]}},
                   trace=trace)
    assert result.score == pytest.approx(2 / 3, abs=1e-12)
    assert "lookup: 2 ✓ = 2" in result.detail and "weather: 1 ✗ > 1" in result.detail
    strict = score(COUNT, {"toolCallsCount": {"lookup": ["=", 2], "weather": [">", 1]}}, trace=trace, strict=True)
    assert (strict.verdict, strict.score) == (Verdict.FAIL, 0.0)


def test_expecting_zero_calls_fails_when_no_tool_is_called_at_all():
    assert score(COUNT, {"toolCallsCount": {"book": ["=", 0]}}).score == 0.0
    assert score(COUNT, {"toolCallsCount": {"book": ["=", 0]}}, trace=calls("lookup")).score == 1.0


def test_count_looks_a_key_up_as_written_then_sanitised():
    trace = calls("get_weather", "get weather")
    assert score(COUNT, {"toolCallsCount": {"get weather": ["=", 1]}}, trace=trace).score == 1.0
    assert score(COUNT, {"toolCallsCount": {"get weather!": ["=", 1]}}, trace=trace).score == 1.0  # → get_weather


def test_count_takes_a_count_written_as_text_as_the_sdk_does():
    assert score(COUNT, {"toolCallsCount": {"lookup": ["<=", "2"]}}, trace=calls("lookup")).score == 1.0


def test_an_unknown_comparator_is_an_error_when_reached():
    result = score(COUNT, {"toolCallsCount": {"lookup": ["~", 1]}}, trace=calls("lookup"))
    assert result.verdict is Verdict.ERROR and "comparator '~'" in result.detail
    # with no calls at all the SDK returns 0 before looking at comparators
    assert score(COUNT, {"toolCallsCount": {"lookup": ["~", 1]}}).verdict is Verdict.FAIL


def test_args_match_expected_arguments_allowing_extra_ones():
    trace = [span("lookup", input='{"city": "Paris", "n": 1}'), span("lookup", input="{'city': 'Lyon'}")]
    both = {"toolCalls": [{"name": "lookup", "args": {"city": "Lyon"}}, {"name": "lookup", "args": {"city": "Paris"}}]}
    assert score(ARGS, both, trace=trace).score == 1.0
    assert score(ARGS, both, trace=trace, subset=True).score == 1.0  # subset changes nothing
    twice = {"toolCalls": [{"name": "lookup", "args": {"city": "Paris"}}] * 2}  # one call can match once
    assert score(ARGS, twice, trace=trace).score == 0.5
    strict = score(ARGS, twice, trace=trace, strict=True)
    assert (strict.verdict, strict.score) == (Verdict.FAIL, 0.0)
    assert score(ARGS, {"toolCalls": [{"name": "lookup", "args": {"n": True}}]}, trace=trace).score == 1.0  # 1 == True


def test_args_of_a_call_with_an_id_need_that_id():
    trace = [span("lookup", tool_id="t1", input='{"city": "Paris"}')]
    by_name = {"toolCalls": [{"name": "lookup", "args": {}}]}
    assert score(ARGS, by_name, trace=trace).score == 0.0
    assert score(ARGS, {"toolCalls": [{"name": "lookup", "id": "t1", "args": {}}]}, trace=trace).score == 1.0


def test_output_compares_the_extracted_text():
    trace = [span("weather", output='"sunny"'), span("lookup", output='{"content": "Paris"}')]
    quoted = {"toolOutputs": [{"name": "weather", "output": '"sunny"'}, {"name": "lookup", "output": "Paris"}]}
    assert score(OUTPUT, quoted, trace=trace).score == 1.0
    bare = {"toolOutputs": [{"name": "weather", "output": "sunny"}, {"name": "lookup", "output": "Paris"}]}
    assert score(OUTPUT, bare, trace=trace).score == 0.5  # a tool returning "sunny" records it as JSON text
    strict = score(OUTPUT, bare, trace=trace, strict=True)
    assert (strict.verdict, strict.score) == (Verdict.FAIL, 0.0)


def test_an_unreadable_span_is_an_error():
    result = score(ARGS, {"toolCalls": [{"name": "a", "args": {}}]}, trace=[span("a", input="{1: 2}")])
    assert result.verdict is Verdict.ERROR


def test_tool_types_say_what_they_compare():
    assert all("tool calls" in SCORERS[type_id].compares for type_id in (ORDER, COUNT, ARGS, OUTPUT))
    assert not any(SCORERS[type_id].uses_expected_output for type_id in (ORDER, COUNT, ARGS, OUTPUT))
