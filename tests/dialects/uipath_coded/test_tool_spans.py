"""Tool calls read from a row's span attributes as the SDK 2.14.44's evaluators read them."""

from __future__ import annotations

import pytest
from coded_scoring import span

from workbench.dialects.uipath_coded.tool_spans import (
    SpanError,
    ToolSpan,
    matches_expected,
    matches_key,
    parse_args,
    parse_output,
    sanitize,
    tool_spans,
)


def test_only_span_attributes_are_read_in_order():
    trace = [
        {"type": "tool_call", "name": "not-a-span"},  # no "span": not read, whatever its name says
        span("lookup"),
        span(None, **{"span_type": "function"}),  # a span without tool.name
        span("weather", tool_id=7),
        span("synth", synthesized=True),
        span(""),  # an empty tool.name is no tool
        {"span": {"name": "x"}},  # a span without attributes
    ]
    assert [(call.name, call.id, call.key) for call in tool_spans(trace)] == [
        ("lookup", None, "lookup"), ("weather", "7", "7")]


def test_a_falsy_synthesized_flag_keeps_the_call():
    assert [call.name for call in tool_spans([span("a", synthesized=False), span("b", synthesized=0)])] == ["a", "b"]


@pytest.mark.parametrize(("name", "clean"), [
    ("get weather!", "get_weather"), ("a  b\tc", "a_b_c"), ("wea!ther", "weather"), ("", ""), (None, ""),
    ("x" * 70, "x" * 64), ("ok-name_1", "ok-name_1"),
])
def test_sanitize(name, clean):
    assert sanitize(name) == clean


def test_a_call_with_an_id_matches_only_its_id():
    with_id = ToolSpan("lookup", "t1")
    assert matches_key(with_id, "t1") and not matches_key(with_id, "lookup")
    assert matches_expected(with_id, "lookup", "t1")
    assert matches_expected(with_id, "t1", None)  # an expectation without id: its name is compared with the id
    assert not matches_expected(with_id, "lookup", None)


def test_a_call_without_id_matches_by_sanitised_name():
    call = ToolSpan("get weather", None)
    assert matches_key(call, "get_weather") and matches_key(call, "get weather!")
    assert matches_expected(call, "get_weather", "some-id")  # the expected id is not looked at


@pytest.mark.parametrize(("value", "args"), [
    ('{"city": "Paris", "ok": true}', {"city": "Paris", "ok": True}),
    ("{'city': 'Paris', 'n': (1, 2)}", {"city": "Paris", "n": (1, 2)}),  # a Python literal
    ('"just text"', {}), ("[1, 2]", {}), ("not json", {}), (5, {}), ("", {}),
])
def test_arguments(value, args):
    assert parse_args(value) == args


def test_arguments_with_keys_that_are_not_strings_are_an_error():
    with pytest.raises(SpanError, match="keys that are not strings"):
        parse_args("{1: 2}")
    with pytest.raises(SpanError, match="can't be read"):
        parse_args("{[1]: 2}")  # a literal Python can't build (unhashable key)


@pytest.mark.parametrize(("value", "output"), [
    ('{"content": "sunny"}', "sunny"),
    ('"sunny"', '"sunny"'),  # JSON that isn't an object: the text itself, quotes included
    ("sunny", "sunny"),
    ('{"x": 1}', ""),  # an object without content: nothing
    ('{"content": 5}', "5"), ('{"content": 1.0}', "1.0"),
    ('{"content": {"a": 1}}', "{'a': 1}"),
    ('{"content": ""}', ""), ('{"content": 0}', ""),  # falsy content: nothing
    ("5", "5"), (5, "5"), ({"content": "x"}, "x"),
])
def test_outputs(value, output):
    assert parse_output(value) == output


def test_outputs_and_args_are_parsed_only_when_asked():
    trace = [span("w", input='{"city": "Paris"}', output='{"content": "sunny"}')]
    assert tool_spans(trace) == [ToolSpan("w", None)]
    assert tool_spans(trace, args=True, outputs=True) == [ToolSpan("w", None, {"city": "Paris"}, "sunny")]


def test_a_sequence_attribute_reads_as_python_prints_a_tuple():
    assert tool_spans([span(["a", "b"])])[0].name == "('a', 'b')"
