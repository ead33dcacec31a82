"""A conversation eval's detail in the HTML report (`HasHtmlDetail.html_detail`): the transcript turn by turn —
what was said or sent, the reply, the tool calls, the state that changed, the workflows, the time — each
turn's assertions marked ✔ / ✘, then the outcome's. Built from the result alone (its inputs hold the
turns, its actual the recorded transcript, its expected the marks), so a report read from history shows it
after the eval file changed."""

from __future__ import annotations

from typing import Any

from ... import jsonio
from ..detail import Block, RowDetail, json_block

SHOWN_CHANGES = 12


def _show(value: Any, limit: int = 200) -> str:
    return value if isinstance(value, str) else jsonio.preview(value, limit)


def _assertion(kind: str, spec: Any) -> str:
    """`state: conversation.topic equals "support"` — an assertion in brief."""
    if not isinstance(spec, dict):
        return kind
    parts = [spec["path"]] if isinstance(spec.get("path"), str) else []
    parts += [f"{key} {jsonio.preview(value, 80)}" for key, value in spec.items() if key != "path"]
    return f"{kind}: {' '.join(parts)}"


def _changes(before: Any, after: Any, prefix: str = "") -> list[tuple[str, Any, Any]]:
    if isinstance(before, dict) and isinstance(after, dict):
        found: list[tuple[str, Any, Any]] = []
        for key in dict.fromkeys([*before, *after]):
            found += _changes(before.get(key), after.get(key), f"{prefix}.{key}" if prefix else str(key))
        return found
    return [(prefix, before, after)] if before != after or type(before) is not type(after) else []


def _trigger(turn: dict[str, Any]) -> list[Block]:
    if "user" in turn:
        return [{"who": "user", "text": str(turn["user"])}]
    if "event" in turn:
        event = turn["event"]
        return [{"who": "event", "text": _show(event.get("payload") if isinstance(event, dict) else event)}]
    if "setup" in turn:
        return [{"who": "setup", "text": _show(turn["setup"])}]
    return []


def _record(record: dict[str, Any]) -> list[Block]:
    """What the bot did in one recorded turn."""
    reply = record.get("reply")
    lines: list[Block] = [{"who": "bot", "text": reply if isinstance(reply, str) else "(silence)"}]
    for call in record.get("tools") or []:
        if isinstance(call, dict):
            text = f"{call.get('name')} {_show(call.get('params', {}))}"
            lines.append({"who": "tool", "text": text + (f" → {_show(call['output'])}" if "output" in call else "")})
    changes = _changes(record.get("state_before") or {}, record.get("state_after") or {})
    for path, old, new in changes[:SHOWN_CHANGES]:
        shown_old = _show(old, 60) if old is not None else "∅"
        lines.append({"who": "state", "text": f"{path} {shown_old} → {_show(new, 80) if new is not None else '∅'}"})
    if len(changes) > SHOWN_CHANGES:
        lines.append({"who": "state", "text": f"… and {len(changes) - SHOWN_CHANGES} more changes"})
    for flow in record.get("workflows") or []:
        if isinstance(flow, dict):
            done = "completed" if flow.get("completed") else ("entered" if flow.get("entered") else "not entered")
            lines.append({"who": "flow", "text": f"{flow.get('name')} {done}"})
    return lines


def _marks(marks: list[dict[str, Any]]) -> list[Block]:
    out: list[Block] = []
    for mark in marks:
        verdict = mark.get("verdict")
        ok = True if verdict == "PASS" else (False if verdict in ("FAIL", "ERROR") else None)
        text = _assertion(str(mark.get("kind")), mark.get("assertion"))
        out.append({"ok": ok, "text": text + (f" — {mark['message']}" if mark.get("message") else "")})
    return out


def _turn(title: str, trigger: dict[str, Any], record: dict[str, Any] | None, marks: list[dict[str, Any]],
          note: str = "") -> Block:
    lines = _trigger(trigger) + (_record(record) if record is not None else [])
    shown = _marks(marks)
    time = record.get("response_time_ms") if record is not None else None
    return {"title": title, "failed": bool(note) or any(m["ok"] is False for m in shown), "note": note,
            "time_ms": time if isinstance(time, (int, float)) else None, "lines": lines, "marks": shown}


def transcript(inputs: dict[str, Any], actual: Any, expected: Any) -> Block:
    """The transcript block: setup, every turn, the outcome."""
    recorded: dict[str, Any] = actual if isinstance(actual, dict) else {}
    turns_run, stopped_at = recorded.get("turns"), recorded.get("stopped")
    records: list[Any] = turns_run if isinstance(turns_run, list) else []
    stopped: dict[str, Any] = stopped_at if isinstance(stopped_at, dict) else {}
    marks: dict[Any, list[dict[str, Any]]] = {}
    for mark in expected.get("assertions", []) if isinstance(expected, dict) else []:
        if isinstance(mark, dict):
            marks.setdefault(mark.get("turn"), []).append(mark)
    turns: list[Block] = []
    setup = inputs.get("setup")
    if isinstance(setup, dict) and isinstance(setup.get("workflow"), dict):
        note = f"stopped here: {stopped.get('error')}" if stopped.get("turn") == 0 else ""
        record = recorded.get("setup") if isinstance(recorded.get("setup"), dict) else None
        turns.append(_turn("Setup workflow", {"setup": setup["workflow"]}, record, [], note))
    conversation = inputs.get("conversation")
    for number, turn in enumerate(conversation if isinstance(conversation, list) else [], 1):
        record = records[number - 1] if number <= len(records) and isinstance(records[number - 1], dict) else None
        note = f"stopped here: {stopped.get('error')}" if stopped.get("turn") == number else ""
        if recorded and record is None and not note:
            note = "not run (the conversation stopped earlier)"
        turns.append(_turn(f"Turn {number}", turn if isinstance(turn, dict) else {}, record, marks.get(number, []),
                           note))
    if marks.get(None):
        turns.append(_turn("Outcome", {}, None, marks[None]))
    return {"kind": "transcript", "title": "Transcript", "turns": turns}


def detail_blocks(detail: RowDetail) -> list[Block]:
    """The transcript; the recorded transcript's raw JSON for anything the turns leave out."""
    result = detail.result
    inputs = result.inputs or (detail.row.inputs if detail.row is not None else {})
    blocks = [transcript(inputs, result.actual, result.expected)]
    if result.actual is not None:
        blocks.append(json_block("Recorded transcript (JSON)", result.actual, collapsed=True))
    return blocks
