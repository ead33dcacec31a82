"""The pieces of a conversation transcript as Rich Text: one block per turn (what was said or sent, the
reply, the tool calls, the state that changed, the workflows, the time) with each of the turn's
assertions marked ✔ / ✘ beside it. Plain functions of the recorded transcript, so the view and its
tests share them. Text from files and targets goes through `one_line` (never markup)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from rich.text import Text

from ... import jsonio
from ...model import Verdict
from ...report.text import format_duration
from ...textsafe import one_line

MARKS = {"PASS": ("✔", "green"), "FAIL": ("✘", "red"), "ERROR": ("!", "yellow"), "?": ("·", "dim")}
SHOWN_CHANGES = 12


def show(value: Any, limit: int = 80) -> str:
    return one_line(value if isinstance(value, str) else jsonio.preview(value, limit * 2), limit)


def describe_assertion(kind: str, spec: Any) -> str:
    """`conversation.topic equals "support"`, `called "createTicket" params {...}`: an assertion in brief."""
    if not isinstance(spec, dict):
        return kind
    parts = [spec["path"]] if isinstance(spec.get("path"), str) else []
    parts += [f"{key} {jsonio.preview(value, 60)}" for key, value in spec.items() if key != "path"]
    return one_line(" ".join(parts), 100)


def state_changes(before: Any, after: Any, prefix: str = "") -> Iterator[tuple[str, Any, Any]]:
    """(dotted path, old, new) for every leaf that differs; `None` stands for absent on either side."""
    if isinstance(before, dict) and isinstance(after, dict):
        for key in dict.fromkeys([*before, *after]):
            yield from state_changes(before.get(key), after.get(key), f"{prefix}.{key}" if prefix else str(key))
    elif before != after or type(before) is not type(after):
        yield prefix, before, after


def trigger_lines(turn: dict[str, Any]) -> Text:
    text = Text()
    if "user" in turn:
        text.append("  user  ", "bold cyan")
        text.append(one_line(str(turn["user"]), 300))
    elif "event" in turn:
        text.append("  event ", "bold magenta")
        text.append(show(turn["event"].get("payload") if isinstance(turn["event"], dict) else turn["event"], 200))
    elif "setup" in turn:
        text.append("  setup ", "bold magenta")
        text.append(show(turn["setup"], 200))
    return text


def record_lines(record: dict[str, Any]) -> Text:
    """What the bot did in one recorded turn: reply, tools, state changes, workflows."""
    text = Text()
    reply = record.get("reply")
    text.append("\n  bot   ", "bold green")
    text.append(one_line(reply, 300) if isinstance(reply, str) else "(silence)", "" if reply is not None else "dim")
    for call in record.get("tools") or []:
        text.append("\n  tool  ", "bold")
        text.append(one_line(str(call.get("name")), 60), "cyan")
        text.append(f" {show(call.get('params', {}), 100)}", "dim")
        if "output" in call:
            text.append(f" → {show(call['output'], 60)}", "dim")
    changes = list(state_changes(record.get("state_before") or {}, record.get("state_after") or {}))
    for path, old, new in changes[:SHOWN_CHANGES]:
        text.append("\n  state ", "bold")
        text.append(f"{one_line(path, 60)} ", "yellow")
        text.append(f"{show(old, 40) if old is not None else '∅'} → {show(new, 60) if new is not None else '∅'}")
    if len(changes) > SHOWN_CHANGES:
        text.append(f"\n  state … and {len(changes) - SHOWN_CHANGES} more changes", "dim")
    for flow in record.get("workflows") or []:
        done = "completed" if flow.get("completed") else ("entered" if flow.get("entered") else "not entered")
        text.append("\n  flow  ", "bold")
        text.append(f"{one_line(str(flow.get('name')), 60)} {done}")
    return text


def mark_lines(marks: list[dict[str, Any]]) -> Text:
    text = Text()
    for mark in marks:
        glyph, style = MARKS.get(str(mark.get("verdict")), ("?", "dim"))
        text.append(f"\n  {glyph} ", f"bold {style}")
        kind = str(mark.get("kind"))
        text.append(f"{kind}: {describe_assertion(kind, mark.get('assertion'))}", style if glyph != "✔" else "")
        if mark.get("message"):
            text.append(f" — {one_line(str(mark['message']), 240)}", "dim" if glyph == "✔" else style)
    return text


def turn_heading(title: str, record: dict[str, Any] | None, marks: list[dict[str, Any]]) -> Text:
    failed = sum(1 for m in marks if m.get("verdict") != Verdict.PASS.value)
    text = Text(title, "bold red" if failed else "bold")
    if record is not None and "response_time_ms" in record:
        text.append(f"   {format_duration(float(record['response_time_ms']))}", "dim")
    if failed:
        text.append(f"   {failed} failed", "red")
    return text


def turn_block(title: str, trigger: dict[str, Any], record: dict[str, Any] | None, marks: list[dict[str, Any]],
               note: str | None = None) -> Text:
    """One turn: heading, trigger, what the bot did (when it ran), its assertions and marks."""
    text = turn_heading(title, record, marks)
    trigger_text = trigger_lines(trigger)
    if trigger_text:
        text.append("\n")
        text.append_text(trigger_text)
    if record is not None:
        text.append_text(record_lines(record))
    if note:
        text.append(f"\n  {one_line(note, 400)}", "yellow")
    text.append_text(mark_lines(marks))
    return text


def planned_marks(turn: dict[str, Any]) -> list[dict[str, Any]]:
    """A turn's assertions before any run, unmarked (shown as written)."""
    marks = [{"kind": "expectSilence", "assertion": True, "verdict": "?"}] if turn.get("expectSilence") is True else []
    checks = turn.get("assert")
    for kind, items in (checks.items() if isinstance(checks, dict) else []):
        if isinstance(items, list):
            marks += [{"kind": kind, "assertion": item, "verdict": "?"} for item in items]
    return marks
