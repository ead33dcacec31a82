"""How far a replay got, step by step: what a front-end shows for a scripted case — each step of the
script with the state it reached (done, waiting, denied, failed, not reached), the approval decisions,
and where the run stopped (and, when a hold or a denial ended it, the later step whose mistake failed the
case). Computed from the script as it ran and the replay's trace; no Textual here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ... import jsonio
from ...trace import TOOL_CALL as TRACE_TOOL_CALL
from .executor import APPROVAL_DECIDED, RUN_STATUS
from .script import APPROVAL_DECIDE, ARTIFACT_WRITE, ASSISTANT_OUTPUT, TOOL_CALL

DONE, WAITING, DENIED, FAILED, NOT_REACHED, NOT_RUN = "done", "waiting", "denied", "failed", "not reached", "not run"


@dataclass(frozen=True, slots=True)
class StepLine:
    index: int
    kind: str
    summary: str  # one line: what the step does (and returned)
    state: str
    note: str = ""  # why it stopped here, for the step where the run stopped


@dataclass(frozen=True, slots=True)
class Outline:
    status: str | None  # None: not run yet
    output: Any
    detail: str | None
    stopped_at: int | None
    steps: list[StepLine]


def _short(value: Any, limit: int = 60) -> str:
    return jsonio.preview(value, limit)


def _summary(raw: Any, events: list[dict[str, Any]]) -> tuple[str, str]:
    """(kind, one-line summary) of a step as written, with what it returned when it ran."""
    if not isinstance(raw, dict):
        return "?", _short(raw)
    kind = str(raw.get("type", "?"))
    if kind == ASSISTANT_OUTPUT:
        return kind, f"said {_short(raw.get('content'))}"
    if kind == TOOL_CALL:
        text = f"{raw.get('toolName')} {_short(raw.get('arguments', {}), 50)}"
        call = next((e for e in events if e.get("type") == TRACE_TOOL_CALL), None)
        if call is not None:
            text += f" → {_short(call.get('output'), 50)}" + (" (live)" if call.get("live") else "")
        return kind, text
    if kind == APPROVAL_DECIDE:
        return kind, "approved" if raw.get("approved") is True else "denied"
    if kind == ARTIFACT_WRITE:
        listed = raw.get("files")
        files = listed if isinstance(listed, list) else []
        return kind, ", ".join(str(f.get("path")) for f in files if isinstance(f, dict)) or "no files"
    return kind, _short(raw)


def outline(script: Any, trace: list[Any] | None, output: Any) -> Outline:
    """The steps of `script` with the states the replay (`trace`, `output`: its recorded result, or
    None when it has not run) left them in."""
    steps = script if isinstance(script, list) else []
    ran = trace is not None and isinstance(output, dict)
    by_step: dict[int, list[dict[str, Any]]] = {}
    for event in trace or ():
        if isinstance(event, dict) and isinstance(event.get("step"), int) and event.get("type") != RUN_STATUS:
            by_step.setdefault(event["step"], []).append(event)
    run = output if ran else {}
    stopped = run.get("stoppedAt") if isinstance(run.get("stoppedAt"), int) else None
    # a mistake found in the steps after a hold or a denial: that step failed, the stop is still the stop
    failed_at = run.get("failedAt") if isinstance(run.get("failedAt"), int) else None
    detail = run.get("failure") or run.get("detail")
    lines: list[StepLine] = []
    for index, raw in enumerate(steps):
        events = by_step.get(index, [])
        kind, summary = _summary(raw, events)
        note = ""
        if not ran:
            state = NOT_RUN
        elif index == failed_at:
            state, note = FAILED, str(run.get("failure") or "")
        elif index == stopped:
            stop_failed = run.get("failure") and failed_at is None
            state = FAILED if stop_failed else WAITING if run.get("status") == "waiting" else DENIED
            note = str(detail if failed_at is None else run.get("detail") or "")
        elif any(e.get("type") == APPROVAL_DECIDED and e.get("approved") is False for e in events):
            state = DENIED
        elif stopped is not None and index > stopped:
            state = NOT_REACHED
        else:
            state = DONE
        lines.append(StepLine(index, kind, summary, state, note))
    return Outline(run.get("status") if ran else None, run.get("output"), detail if ran else None, stopped, lines)


__all__ = ["DENIED", "DONE", "FAILED", "NOT_REACHED", "NOT_RUN", "WAITING", "Outline", "StepLine", "outline"]
