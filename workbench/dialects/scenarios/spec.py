"""The two shapes a scenario's `expect` evaluator reads (seed 000): the `expect` block a scenario file
writes, and the `{"actions": [...], "reply": TEXT}` response the agent gives.

Both are parsed once into small frozen types, so the matcher never meets a malformed value. A bad
`expect` raises ExpectError naming the field (`expect.anyOf[1].mode`), which the scenario loader turns
into an ERROR of that scenario; a malformed response is the target's fault and an ERROR of the row.

`anyOf` rule: each alternative is the outer block with the alternative's own fields laid over it.
`mode` and `actions` go together — an alternative that names either takes both from itself (so an
alternative `{"mode": "none"}` does not inherit the outer actions). The outer block's other fields
(`replyMustContain`, `replyMustNotContain`, `forbidActionTypes`) apply to every alternative that does
not set its own. With a non-empty `anyOf` only the alternatives are judged, never the outer block alone.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any

from ... import jsonio
from ...compare import type_name

MODES = ("any", "first", "exact", "none")
FORM_FILL = "form_fill"
_TEXT_LISTS = ("replyMustContain", "replyMustNotContain", "forbidActionTypes")
FIELDS = ("mode", "actions", *_TEXT_LISTS, "anyOf")


class ExpectError(ValueError):
    """An `expect` block that can't be judged: `field` is where (`expect.actions[0].type`)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field} {message}")
        self.field = field
        self.message = message


class ResponseError(ValueError):
    """The agent's response is not `{"actions": [...], "reply": TEXT}`."""


@dataclass(frozen=True, slots=True)
class ExpectedAction:
    type: str
    payload: dict[str, Any] | None  # None: any payload

    @property
    def fields(self) -> list[dict[str, Any]] | None:
        """The listed `form_fill` fields (matched by fieldId), or None when this action has none."""
        if self.type != FORM_FILL or self.payload is None or "fields" not in self.payload:
            return None
        return self.payload["fields"]


@dataclass(frozen=True, slots=True)
class ExpectBlock:
    mode: str = "any"
    actions: tuple[ExpectedAction, ...] = ()
    reply_must_contain: tuple[str, ...] = ()
    reply_must_not_contain: tuple[str, ...] = ()
    forbid_action_types: tuple[str, ...] = ()
    alternatives: tuple[ExpectBlock, ...] = ()  # each already laid over the outer block


@dataclass(frozen=True, slots=True)
class ActualAction:
    index: int
    type: str
    payload: Any


@dataclass(frozen=True, slots=True)
class Response:
    actions: tuple[ActualAction, ...]
    reply: str


def parse_expect(doc: Any, where: str = "expect") -> ExpectBlock:
    """The checked `expect` block, or ExpectError naming the first bad field."""
    if not isinstance(doc, dict):
        raise ExpectError(where, f"must be an object, not {type_name(doc)}")
    _check_known(doc, where)
    mode = doc.get("mode", "any")
    if mode not in MODES:
        raise ExpectError(f"{where}.mode", f"must be one of {', '.join(MODES)}, not {_quote(mode)}")
    actions = _actions(doc.get("actions", []), f"{where}.actions")
    if mode == "none" and actions:
        raise ExpectError(f"{where}.actions", f"lists {len(actions)} action(s), but mode \"none\" expects none")
    if mode == "first" and not actions:
        raise ExpectError(f"{where}.actions", "must list at least one action for mode \"first\"")
    texts = {key: _strings(doc.get(key, []), f"{where}.{key}") for key in _TEXT_LISTS}
    alternatives = doc.get("anyOf", [])
    if not isinstance(alternatives, list):
        raise ExpectError(f"{where}.anyOf", f"must be an array of expect blocks, not {type_name(alternatives)}")
    parsed = tuple(parse_expect(_laid_over(doc, alt, f"{where}.anyOf[{i}]"), f"{where}.anyOf[{i}]")
                   for i, alt in enumerate(alternatives))
    return ExpectBlock(mode, actions, texts["replyMustContain"], texts["replyMustNotContain"],
                       texts["forbidActionTypes"], parsed)


def _check_known(doc: dict[str, Any], where: str) -> None:
    for key in doc:
        if key not in FIELDS:
            close = difflib.get_close_matches(str(key), FIELDS, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else f" (fields: {', '.join(FIELDS)})"
            raise ExpectError(f"{where}.{key}", f"is not a field of expect{hint}")


def _laid_over(outer: dict[str, Any], alternative: Any, where: str) -> dict[str, Any]:
    """One `anyOf` alternative as a whole block (the module docstring states the rule)."""
    if not isinstance(alternative, dict):
        raise ExpectError(where, f"must be an object (an expect block), not {type_name(alternative)}")
    base = {key: value for key, value in outer.items() if key != "anyOf"}
    if "mode" in alternative or "actions" in alternative:
        base.pop("mode", None)
        base.pop("actions", None)
    return {**base, **alternative}


def _actions(value: Any, where: str) -> tuple[ExpectedAction, ...]:
    if not isinstance(value, list):
        raise ExpectError(where, f"must be an array of actions, not {type_name(value)}")
    out = []
    for index, item in enumerate(value):
        here = f"{where}[{index}]"
        if not isinstance(item, dict):
            raise ExpectError(here, f"must be an object such as {{\"type\": \"click\"}}, not {type_name(item)}")
        kind = item.get("type")
        if not isinstance(kind, str) or not kind:
            raise ExpectError(f"{here}.type", "is missing (a non-empty string such as \"form_fill\")"
                              if kind is None else f"must be a non-empty string, not {_quote(kind)}")
        payload = item.get("payload")
        if payload is not None and not isinstance(payload, dict):
            raise ExpectError(f"{here}.payload", f"must be an object, not {type_name(payload)}")
        extra = sorted(set(item) - {"type", "payload"})
        if extra:
            raise ExpectError(f"{here}.{extra[0]}", "is not a field of an action (fields: type, payload)")
        action = ExpectedAction(kind, payload)
        if kind == FORM_FILL and payload is not None and "fields" in payload:
            _check_fields(payload["fields"], f"{here}.payload.fields")
        out.append(action)
    return tuple(out)


def _check_fields(fields: Any, where: str) -> None:
    if not isinstance(fields, list):
        raise ExpectError(where, f"must be an array of {{\"fieldId\": ...}} objects, not {type_name(fields)}")
    for index, field in enumerate(fields):
        if not isinstance(field, dict):
            raise ExpectError(f"{where}[{index}]", f"must be an object with a \"fieldId\", not {type_name(field)}")
        if not isinstance(field.get("fieldId"), str) or not field["fieldId"]:
            raise ExpectError(f"{where}[{index}].fieldId", "is missing (a non-empty string)"
                              if "fieldId" not in field else f"must be a non-empty string, not "
                              f"{_quote(field['fieldId'])}")


def _strings(value: Any, where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        raise ExpectError(where, f"must be an array of strings, not {type_name(value)}")
    for index, item in enumerate(value):
        if not isinstance(item, str) or not item:
            raise ExpectError(f"{where}[{index}]", f"must be a non-empty string, not {_quote(item)}")
    return tuple(value)


def _quote(value: Any) -> str:
    if isinstance(value, str):
        return f'"{value}"'
    return type_name(value) if isinstance(value, (dict, list)) or value is None else repr(value)


def read_response(output: Any) -> Response:
    """The agent's actions and reply, or ResponseError saying what shape it has instead."""
    if not isinstance(output, dict) or ("actions" not in output and "reply" not in output):
        keys = ", ".join(map(str, output)) if isinstance(output, dict) else type_name(output)
        raise ResponseError("the response is not {\"actions\": [...], \"reply\": TEXT} "
                            f"(it has: {keys or 'nothing'})")
    raw_actions = output.get("actions")
    if raw_actions is None:
        raw_actions = []
    if not isinstance(raw_actions, list):
        raise ResponseError(f"the response's actions must be an array, not {type_name(raw_actions)}")
    actions = []
    for index, item in enumerate(raw_actions):
        if not isinstance(item, dict) or not isinstance(item.get("type"), str):
            raise ResponseError(f"the response's actions[{index}] must be an object with a string \"type\", "
                                f"not {_preview(item)}")
        actions.append(ActualAction(index, item["type"], item.get("payload", {})))
    reply = output.get("reply")
    if reply is None:
        reply = ""
    if not isinstance(reply, str):
        raise ResponseError(f"the response's reply must be text, not {type_name(reply)}")
    return Response(tuple(actions), reply)


def _preview(value: Any) -> str:
    return jsonio.preview(value, 60)


__all__ = ["FORM_FILL", "MODES", "ActualAction", "ExpectBlock", "ExpectError", "ExpectedAction", "Response",
           "ResponseError", "parse_expect", "read_response"]
