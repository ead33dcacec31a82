"""The tool calls of one row, read from its spans the way `uipath eval`'s tool-call evaluators read them.

Only `event["span"]["attributes"]` of the trace events that carry a span is read, in trace order. A span is
a tool call when it has a non-empty `tool.name` and no true `tool.synthesized`. Its key is `tool.id`
(as text) when the span has one, else its name; an expected key matches a call with an id only by that
id, and one without an id by the sanitised name (whitespace runs become `_`, characters other than
letters, digits, `_` and `-` are dropped, at most 64 kept) — never across the two.

Arguments are `input.value` parsed as JSON, else as a Python literal; anything that isn't an object is
`{}`. The output is `output.value` parsed as JSON: an object's `content` (other objects: empty), a JSON
text that isn't an object as the text itself (so a tool returning "sunny" has the output `"sunny"`,
quotes included), an unparseable text as is; then Python's `str()` of it, and empty when falsy.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

_DISALLOWED = re.compile(r"[^a-zA-Z0-9_-]")


class SpanError(ValueError):
    """A tool span the SDK can't read either (its evaluator errors): the row's result is an ERROR."""


@dataclass(frozen=True, slots=True)
class ToolSpan:
    name: str
    id: str | None
    args: dict[str, Any] = field(default_factory=dict)
    output: str = ""

    @property
    def key(self) -> str:
        """What this call is counted and ordered by: its id when it has one, else its name."""
        return self.id if self.id is not None else self.name


def sanitize(name: str | None) -> str:
    """A tool name as the LangChain runtime sanitises it."""
    if not name:
        return ""
    return _DISALLOWED.sub("", "_".join(name.split()))[:64]


def matches_key(call: ToolSpan, key: str) -> bool:
    """Does an expected key (a name or an id) stand for this call?"""
    if call.id is not None:
        return key == call.id
    return sanitize(key) == sanitize(call.name)


def matches_expected(call: ToolSpan, name: str, expected_id: str | None) -> bool:
    """Does an expected `{name, id?}` stand for this call? A call with an id compares it with the
    expected id, or with the expected name when the expectation has no id."""
    if call.id is not None:
        return call.id == (expected_id if expected_id is not None else name)
    return sanitize(call.name) == sanitize(name)


def _attribute(value: Any) -> Any:
    """An attribute as OpenTelemetry holds it: a sequence is a tuple (its `str()` reads `('a', 'b')`)."""
    return tuple(value) if isinstance(value, list) else value


def span_attributes(trace: Iterable[Any]) -> list[dict[str, Any]]:
    """The attributes of every span in the trace, in order."""
    found = []
    for event in trace:
        span = event.get("span") if isinstance(event, Mapping) else None
        attrs = span.get("attributes") if isinstance(span, Mapping) else None
        found.append({str(k): _attribute(v) for k, v in attrs.items()} if isinstance(attrs, Mapping) else {})
    return found


def _is_tool(attrs: Mapping[str, Any]) -> bool:
    return bool(attrs) and not attrs.get("tool.synthesized", False) and bool(attrs.get("tool.name"))


def parse_args(value: Any) -> dict[str, Any]:
    """A span's `input.value` as the tool's arguments: JSON, else a Python literal; `{}` otherwise."""
    if isinstance(value, dict):
        parsed: Any = value
    elif not isinstance(value, str):
        return {}
    else:
        try:
            try:
                parsed = json.loads(value)
            except ValueError:
                parsed = ast.literal_eval(value)
        except (SyntaxError, ValueError):
            return {}
        except Exception as exc:  # the SDK's evaluator fails on these too (a literal it can't build)
            raise SpanError(f"a tool span's input.value can't be read as arguments ({type(exc).__name__}: "
                            f"{exc})") from None
    if not isinstance(parsed, dict):
        return {}
    if not all(isinstance(key, str) for key in parsed):
        raise SpanError(f"a tool span's input.value has keys that are not strings: {value!r:.120}")
    return parsed


def _content(value: Mapping[str, Any]) -> Any:
    return value.get("content", "")


def parse_output(value: Any) -> str:
    """A span's `output.value` as the tool's output text."""
    if isinstance(value, str):
        try:
            parsed = json.loads(value)
        except ValueError:
            final: Any = value
        else:
            final = _content(parsed) if isinstance(parsed, dict) else value
    elif isinstance(value, dict):
        final = _content(value)
    else:
        final = str(value)
    return str(final) if final else ""


def is_json_string(text: str) -> bool:
    """Whether an output text is a JSON string's text (`"Nairobi"`, quotes included: what a tool returning the
    string Nairobi has as its output, which the expected output Nairobi does not match)."""
    if not text.startswith('"'):
        return False
    try:
        return isinstance(json.loads(text), str)
    except ValueError:
        return False


def tool_spans(trace: Iterable[Any], *, args: bool = False, outputs: bool = False) -> list[ToolSpan]:
    """The row's tool calls in trace order (arguments and outputs parsed only when asked for)."""
    calls = []
    for attrs in span_attributes(trace):
        if not _is_tool(attrs):
            continue
        tool_id = attrs.get("tool.id")
        calls.append(ToolSpan(
            name=str(attrs["tool.name"]),
            id=str(tool_id) if tool_id is not None else None,
            args=parse_args(attrs.get("input.value", {})) if args else {},
            output=parse_output(attrs.get("output.value", "")) if outputs else "",
        ))
    return calls
