"""The rules an eval object must follow (seed 002), checked when the file loads.

Every rule broken is an ERROR of that eval whose detail names where (`turn 2: ...`) and the rule, so
a misspelt assertion or a turn without a trigger never passes silently. Assertions themselves are
checked by the scorer's compiler (`scoring/conversation_checks.py`), so both read them the same way.
"""

from __future__ import annotations

from typing import Any

from ...compare import is_number
from ...scoring.common import show
from .checks import compile_eval
from .protocol import SCOPES

EVAL_FIELDS = ("name", "description", "type", "tags", "setup", "conversation", "outcome", "options")
EVAL_TYPES = ("capability", "regression")
TURN_FIELDS = ("user", "event", "expectSilence", "assert")
OPTION_FIELDS = ("idleTimeout", "judgePassThreshold")


def eval_problems(spec: dict[str, Any]) -> list[str]:
    """Every rule `spec` breaks, in the order a reader meets them; empty when it is a valid eval."""
    problems: list[str] = []
    unknown = [key for key in spec if key not in EVAL_FIELDS]
    if unknown:
        problems.append(f"unknown field{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))} "
                        f"(an eval has: {', '.join(EVAL_FIELDS)})")
    name = spec.get("name")
    if not isinstance(name, str) or not name.strip():
        problems.append(f"name is required: a unique text such as \"greeting\", not {show(name)}")
    if "description" in spec and not isinstance(spec["description"], str):
        problems.append(f"description must be text, not {show(spec['description'])}")
    if "type" in spec and spec["type"] not in EVAL_TYPES:
        problems.append(f"type must be \"capability\" or \"regression\", not {show(spec['type'])}")
    tags = spec.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(tag, str) and tag for tag in tags):
        problems.append(f"tags must be an array of names such as [\"smoke\"], not {show(tags)}")
    problems += _setup(spec.get("setup"))
    problems += _conversation(spec.get("conversation"))
    problems += _options(spec.get("options"))
    problems += compile_eval(spec).problems
    return problems


def _setup(setup: Any) -> list[str]:
    if setup is None:
        return []
    if not isinstance(setup, dict):
        return [f"setup must be an object with state and/or workflow, not {show(setup)}"]
    problems = [f"setup has unknown field {key!r} (allowed: state, workflow)" for key in setup
                if key not in ("state", "workflow")]
    state = setup.get("state")
    if state is not None:
        if not isinstance(state, dict):
            problems.append(f"setup.state must be an object with bot / user / conversation, not {show(state)}")
        else:
            problems += [f"setup.state has unknown scope {key!r} (allowed: {', '.join(SCOPES)})"
                         for key in state if key not in SCOPES]
            problems += [f"setup.state.{key} must be an object, not {show(value)}"
                         for key, value in state.items() if key in SCOPES and not isinstance(value, dict)]
    workflow = setup.get("workflow")
    if workflow is not None:
        if not isinstance(workflow, dict) or not isinstance(workflow.get("trigger"), str) or not workflow["trigger"]:
            problems.append("setup.workflow must be {\"trigger\": \"<workflow name>\", \"input\": {...}}, not "
                            f"{show(workflow)}")
        else:
            problems += [f"setup.workflow has unknown field {key!r} (allowed: trigger, input)"
                         for key in workflow if key not in ("trigger", "input")]
    return problems


def _conversation(turns: Any) -> list[str]:
    if turns is None:
        return ["conversation is required: an array of turns such as [{\"user\": \"hi\"}]"]
    if not isinstance(turns, list):
        return [f"conversation must be an array of turns, not {show(turns)}"]
    if not turns:
        return ["conversation is empty: an eval needs at least one turn, such as [{\"user\": \"hi\"}] (an eval "
                "with no turns would pass without the bot ever being asked)"]
    problems: list[str] = []
    for number, turn in enumerate(turns, 1):
        problems += [f"turn {number}: {message}" for message in _turn(turn)]
    return problems


def _turn(turn: Any) -> list[str]:
    if not isinstance(turn, dict):
        return [f"must be an object such as {{\"user\": \"hi\"}}, not {show(turn)}"]
    problems = [f"unknown field {key!r} (a turn has: {', '.join(TURN_FIELDS)})" for key in turn
                if key not in TURN_FIELDS]
    has_user, has_event = "user" in turn, "event" in turn
    if not has_user and not has_event:
        flag = " (expectSilence is a flag on a turn, not a turn of its own)" if "expectSilence" in turn else ""
        problems.append(f"needs either user or event{flag}")
    elif has_user and has_event:
        problems.append("has both user and event; a turn is one or the other (use two turns)")
    if has_user and not isinstance(turn["user"], str):
        problems.append(f"user must be the message text, not {show(turn['user'])}")
    if has_event:
        event = turn["event"]
        if not isinstance(event, dict) or "payload" not in event or len(event) != 1:
            problems.append(f"event must be {{\"payload\": ...}} (an event carries only a payload), not {show(event)}")
    return problems


def _options(options: Any) -> list[str]:
    if options is None:
        return []
    if not isinstance(options, dict):
        return [f"options must be an object, not {show(options)}"]
    problems = [f"options has unknown field {key!r} (allowed: {', '.join(OPTION_FIELDS)})" for key in options
                if key not in OPTION_FIELDS]
    timeout = options.get("idleTimeout")
    if timeout is not None and (not is_number(timeout) or timeout <= 0):
        problems.append(f"options.idleTimeout must be a number of milliseconds above 0, not {show(timeout)}")
    threshold = options.get("judgePassThreshold")
    if threshold is not None and (not is_number(threshold) or not 1 <= threshold <= 5):
        problems.append(f"options.judgePassThreshold must be a number from 1 to 5, not {show(threshold)}")
    return problems
