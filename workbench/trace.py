"""A row's trace: what the target reports it did besides its output.

The `command` runner sets `WORKBENCH_TRACE` to a fresh file; the target may append one JSON object
per line. Two event types mean something to workbench (others are kept and shown, never judged):

    {"type": "tool_call", "name": "lookupUser", "args": {"id": 7}, "output": {"name": "Ada"}}
    {"type": "usage", "tokens": 1234}

Tool-call evaluators read the `tool_call` events in order; baselines add up `usage` tokens.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import jsonio
from .output_paths import MISSING
from .regular_files import read_regular_file

TRACE_ENV = "WORKBENCH_TRACE"
TOOL_CALL = "tool_call"
USAGE = "usage"

TRACE_MAX_BYTES = 256 * 1024 * 1024  # a trace file larger than this is reported, not read


def read_trace(path: Path) -> tuple[list[dict[str, Any]], list[str]]:
    """Events a target appended to its trace file, and complaints about lines that weren't events."""
    events: list[dict[str, Any]] = []
    complaints: list[str] = []
    try:
        data = read_regular_file(path, TRACE_MAX_BYTES)
    except FileNotFoundError:
        return events, complaints
    except OSError as exc:
        return events, [f"trace file unreadable: {exc.strerror or exc}"]
    for number, line in enumerate(data.splitlines(), 1):
        if not line.strip():
            continue
        try:
            event = jsonio.loads(line)
        except jsonio.JsonError as exc:
            complaints.append(f"trace line {number} is not JSON ({exc.message}); ignored")
            continue
        if isinstance(event, dict):
            events.append(event)
        else:
            complaints.append(f"trace line {number} is not a JSON object; ignored")
    return events, complaints


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One `tool_call` event. `output` is MISSING when the event did not report one."""

    name: str
    args: dict[str, Any] = field(default_factory=dict)
    output: Any = MISSING
    index: int = 0


@dataclass(slots=True)
class ToolCalls:
    """The trace's tool calls in order, and how many `tool_call` events were unusable."""

    calls: list[ToolCall]
    malformed: int = 0

    @property
    def names(self) -> list[str]:
        return [call.name for call in self.calls]

    def note(self) -> str:
        """A line for a result's detail when some events were skipped, else ""."""
        if not self.malformed:
            return ""
        return (f"({self.malformed} tool_call event(s) in the trace had no string \"name\" or non-object "
                "\"args\" and were ignored)")


def tool_calls(trace: list[dict[str, Any]] | None) -> ToolCalls:
    """The `tool_call` events of a trace. `arguments` is accepted as a spelling of `args`."""
    calls: list[ToolCall] = []
    malformed = 0
    for index, event in enumerate(trace or ()):
        if not isinstance(event, dict) or event.get("type") != TOOL_CALL:
            continue
        name = event.get("name")
        args = event.get("args", event.get("arguments", {}))
        if args is None:
            args = {}
        if not isinstance(name, str) or not isinstance(args, dict):
            malformed += 1
            continue
        calls.append(ToolCall(name, args, event.get("output", MISSING), index))
    return ToolCalls(calls, malformed)


def _count(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0 or value != value:
        return None
    return int(value)


def trace_tokens(trace: list[dict[str, Any]] | None) -> int | None:
    """Total tokens reported by `usage` events, or None when the trace reports no usage at all.

    An event counts `tokens`; without it, `input_tokens + output_tokens` (the shape most model APIs
    report) is accepted. Negative, non-numeric or boolean values are ignored.
    """
    total: int | None = None
    for event in trace or ():
        if not isinstance(event, dict) or event.get("type") != USAGE:
            continue
        tokens = _count(event.get("tokens"))
        if tokens is None:
            parts = [_count(event.get(key)) for key in ("input_tokens", "output_tokens")]
            if all(part is None for part in parts):
                continue
            tokens = sum(part or 0 for part in parts)
        total = (total or 0) + tokens
    return total


__all__ = ["TOOL_CALL", "TRACE_ENV", "USAGE", "ToolCall", "ToolCalls", "tool_calls", "trace_tokens"]
