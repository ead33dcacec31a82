"""The turn protocol: what the target is asked once per turn, and how its answer is read.

Request (the runner's `inputs`: JSON on stdin for `command`, a request line for `worker`, the
argument for `python`):

    {"eval": NAME, "turn": N, "user": TEXT, "state": {...}, "history": [...]}
    {"eval": NAME, "turn": N, "event": {"payload": ...}, "state": {...}, "history": [...]}
    {"eval": NAME, "turn": 0, "setup": {"workflow": {"trigger": ..., "input": ...}}, "state": {...}, "history": []}

`state` always has `bot`, `user` and `conversation` (seeded from `setup.state`, then what the target
last returned); `history` lists the earlier turns with their replies. Response:

    {"reply": TEXT or null, "tools": [{"name", "params", "output"}], "state": {...},
     "workflows": [{"name", "entered", "completed", "input"}]}

A null or absent `reply` is silence. Each scope in `state` replaces that scope for the next turn
(scopes left out are kept). Tool calls and workflows may also come as trace events of the turn
(`{"type": "tool_call", "name", "args", "output"}`, `{"type": "workflow", "name", ...}`); they are
added after the ones in the response.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...compare import type_name
from ...output_paths import MISSING
from ...trace import TOOL_CALL, tool_calls

SCOPES = ("bot", "user", "conversation")
WORKFLOW_EVENT = "workflow"


class ProtocolError(ValueError):
    """The target's answer to a turn is not a turn response; the conversation stops there."""


@dataclass(slots=True)
class TurnReply:
    reply: str | None = None
    tools: list[dict[str, Any]] = field(default_factory=list)
    workflows: list[dict[str, Any]] = field(default_factory=list)
    state: dict[str, Any] | None = None  # the scopes the target returned, when it returned any


def seeded_state(setup: Any) -> dict[str, Any]:
    """`setup.state` with all three scopes present (empty when not seeded)."""
    given = setup.get("state") if isinstance(setup, dict) else None
    given = given if isinstance(given, dict) else {}
    return {scope: given.get(scope) if isinstance(given.get(scope), dict) else {} for scope in SCOPES}


def next_state(state: dict[str, Any], returned: dict[str, Any] | None) -> dict[str, Any]:
    """The state the next turn sees: each scope the target returned replaces the one it had."""
    return state if not returned else {**state, **returned}


def read_reply(output: Any, trace: list[dict[str, Any]]) -> TurnReply:
    """The target's answer as a TurnReply, or ProtocolError saying what is wrong with it."""
    if not isinstance(output, dict):
        raise ProtocolError(f"the target answered {type_name(output)}; a turn's answer is an object such as "
                            "{\"reply\": \"...\"} (null or no reply means silence)")
    reply = output.get("reply")
    if reply is not None and not isinstance(reply, str):
        raise ProtocolError(f"\"reply\" must be text or null, not {type_name(reply)}")
    answer = TurnReply(reply=reply)
    answer.tools = [_tool(item, index) for index, item in enumerate(_array(output, "tools"))]
    answer.tools += [{"name": call.name, "params": call.args,
                      **({"output": call.output} if call.output is not MISSING else {})}
                     for call in tool_calls([e for e in trace if e.get("type") == TOOL_CALL]).calls]
    answer.workflows = [_workflow(item, f"workflows[{index}]")
                        for index, item in enumerate(_array(output, "workflows"))]
    answer.workflows += [_workflow(event, "a workflow trace event") for event in trace
                         if event.get("type") == WORKFLOW_EVENT]
    if output.get("state") is not None:
        answer.state = _state(output["state"])
    return answer


def _array(output: dict[str, Any], key: str) -> list[Any]:
    value = output.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise ProtocolError(f"\"{key}\" must be an array, not {type_name(value)}")
    return value


def _tool(item: Any, index: int) -> dict[str, Any]:
    if not isinstance(item, dict) or not isinstance(item.get("name"), str) or not item["name"]:
        raise ProtocolError(f"tools[{index}] must be an object with a \"name\", such as "
                            "{\"name\": \"createTicket\", \"params\": {...}}")
    params = item.get("params", item.get("args", {}))
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise ProtocolError(f"tools[{index}].params must be an object, not {type_name(params)}")
    call = {"name": item["name"], "params": params}
    if "output" in item:
        call["output"] = item["output"]
    return call


def _workflow(item: Any, where: str) -> dict[str, Any]:
    if not isinstance(item, dict) or not isinstance(item.get("name"), str) or not item["name"]:
        raise ProtocolError(f"{where} must be an object with a \"name\", such as "
                            "{\"name\": \"onboarding\", \"entered\": true, \"completed\": false}")
    record: dict[str, Any] = {"name": item["name"]}
    for key, default in (("entered", True), ("completed", False)):
        value = item.get(key, default)
        if not isinstance(value, bool):
            raise ProtocolError(f"{where}.{key} must be true or false, not {type_name(value)}")
        record[key] = value
    if "input" in item:
        record["input"] = item["input"]
    return record


def _state(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ProtocolError(f"\"state\" must be an object with bot / user / conversation, not {type_name(value)}")
    unknown = [key for key in value if key not in SCOPES]
    if unknown:
        raise ProtocolError(f"\"state\" has {', '.join(map(repr, unknown))}; its keys are bot, user and "
                            "conversation")
    for scope, scoped in value.items():
        if not isinstance(scoped, dict):
            raise ProtocolError(f"\"state\".{scope} must be an object, not {type_name(scoped)}")
    return value
