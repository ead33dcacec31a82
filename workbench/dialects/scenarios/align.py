"""Which listed action answered which actual one, as rows a screen can draw side by side: the matched
pairs aligned (in the listed order), then each listed action nothing answered (with why), then the
actual actions nothing asked for (extra — allowed in mode `any` and after the first in `first` — or
forbidden). For `anyOf`, the alternative that matched, or the closest one.

Plain data, no Textual: the TUI's scenario view draws it, tests check it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .expect import Evaluation, evaluate, why_missing
from .match import describe, mismatch
from .spec import ExpectBlock, ExpectError, Response, ResponseError, parse_expect, read_response

MATCHED, MISSING, EXTRA, ALLOWED, FORBIDDEN = "matched", "missing", "extra", "allowed", "forbidden"


@dataclass(frozen=True, slots=True)
class AlignedAction:
    state: str  # MATCHED, MISSING, EXTRA, ALLOWED or FORBIDDEN
    expected: str | None = None  # the listed action, described (`form_fill(name, email)`)
    expected_index: int | None = None
    actual: str | None = None  # the actual action, described
    actual_index: int | None = None
    note: str = ""


@dataclass(slots=True)
class Alignment:
    ok: bool = False
    mode: str = "any"
    rows: list[AlignedAction] = field(default_factory=list)
    reply: str = ""
    must_contain: tuple[str, ...] = ()
    must_not_contain: tuple[str, ...] = ()
    alternative: int | None = None  # the anyOf alternative shown
    alternatives: int = 0
    problem: str | None = None  # why nothing can be aligned (an unusable expect block or response)


def align(expect: Any, output: Any) -> Alignment:
    """The alignment of a raw `expect` block with a raw response."""
    try:
        block = parse_expect(expect)
    except ExpectError as exc:
        return Alignment(problem=str(exc))
    try:
        response = read_response(output)
    except ResponseError as exc:
        return Alignment(problem=str(exc))
    judged = evaluate(block, response)
    shown = judged.block
    return Alignment(judged.ok, shown.mode, _rows(shown, response, judged), response.reply,
                     shown.reply_must_contain, shown.reply_must_not_contain, judged.alternative,
                     len(block.alternatives))


def _rows(block: ExpectBlock, response: Response, judged: Evaluation) -> list[AlignedAction]:
    actual = list(response.actions)
    pairs = dict(judged.pairs)
    used = set(pairs.values())
    banned = set(block.forbid_action_types)
    rows = []
    for index, action in enumerate(block.actions):
        if index in pairs:
            got = actual[pairs[index]]
            rows.append(AlignedAction(MATCHED, describe(action), index, describe(got), got.index))
        else:
            rows.append(AlignedAction(MISSING, describe(action), index, note=_why(block, index, actual, used)))
    for got in actual:
        if got.index in used:
            continue
        if got.type in banned:
            state, note = FORBIDDEN, "forbidActionTypes"
        elif block.mode == "any" or (block.mode == "first" and got.index > 0):
            state, note = ALLOWED, "not listed (extras are allowed in mode " + block.mode + ")"
        else:
            state, note = EXTRA, f"not listed (mode {block.mode})"
        rows.append(AlignedAction(state, None, None, describe(got), got.index, note))
    return rows


def _why(block: ExpectBlock, index: int, actual: list[Any], used: set[int]) -> str:
    action = block.actions[index]
    if block.mode == "exact" and index < len(actual) and len(actual) == len(block.actions):
        return f"action {index + 1} is {describe(actual[index])}: {mismatch(action, actual[index])}"
    if block.mode == "first" and index == 0:
        return f"the first action is {describe(actual[0])}" if actual else "there are no actions"
    rest = actual[1:] if block.mode == "first" else actual
    return why_missing(action, rest, used)


__all__ = ["ALLOWED", "EXTRA", "FORBIDDEN", "MATCHED", "MISSING", "AlignedAction", "Alignment", "align"]
