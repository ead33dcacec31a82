"""Does one actual action satisfy one listed action, and which actual action answers which listed one.

A listed action matches an actual one of the same `type` whose payload holds every listed key with an
equal value (the exact-match rules; extra actual keys are fine). `form_fill`'s `fields` match by
`fieldId` in any order; a listed field's other keys (a pinned `value`) must be equal, an unpinned one
takes any value. Each listed action (and each listed field) takes a *distinct* actual one: that is a
bipartite matching, solved exactly here, so the order the actions are listed in can never make a
matchable scenario fail the way a greedy first-fit would.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any

from ...compare import strict_equal
from ...output_paths import MISSING
from ...scoring.common import show
from .spec import FORM_FILL, ActualAction, ExpectedAction

# Payload keys that usually name what an action acts on, tried first when describing one.
_NAMING_KEYS = ("id", "target", "elementId", "buttonId", "fieldId", "screen", "route", "name", "to")


def maximum_matching(left: int, right: int, fits: Callable[[int, int], bool]) -> dict[int, int]:
    """A largest set of (left → right) pairs, each side used at most once, with `fits(left, right)` for every
    pair (augmenting paths, breadth first; iterative, so no input is too large to answer)."""
    table = [[r for r in range(right) if fits(node, r)] for node in range(left)]
    left_of: dict[int, int] = {}
    right_of: dict[int, int] = {}
    for start in range(left):
        came_from: dict[int, int] = {}  # right node -> the left node that reached it
        queue, free = deque([start]), None
        while queue and free is None:
            node = queue.popleft()
            for r in table[node]:
                if r in came_from:
                    continue
                came_from[r] = node
                if r not in left_of:
                    free = r
                    break
                queue.append(left_of[r])
        while free is not None:  # flip the path: every left node on it takes the right node after it
            node = came_from[free]
            previous = right_of.get(node)
            right_of[node], left_of[free] = free, node
            free = None if node == start else previous
    return right_of


def mismatch(expected: ExpectedAction, actual: ActualAction) -> str | None:
    """Why `actual` doesn't satisfy `expected` (without the type prefix), or None when it does."""
    if actual.type != expected.type:
        return f"the action is {actual.type}, not {expected.type}"
    if expected.payload is None:
        return None
    payload = actual.payload
    if not isinstance(payload, dict):
        return f"its payload is {show(payload)}, not an object"
    for key, want in expected.payload.items():
        got = payload.get(key, MISSING)
        if key == "fields" and expected.fields is not None:
            reason = fields_mismatch(expected.fields, got)
            if reason:
                return reason
            continue
        if got is MISSING:
            return f"payload has no {key!r} (payload keys: {', '.join(map(str, payload)) or 'none'})"
        if not strict_equal(got, want):
            return f"payload.{key} is {show(got)}, expected {show(want)}"
    return None


def fields_mismatch(listed: list[dict[str, Any]], got: Any) -> str | None:
    """Why the actual `fields` don't hold every listed field (by fieldId, any order), or None."""
    if got is MISSING:
        return "payload has no 'fields'"
    if not isinstance(got, list):
        return f"payload.fields is {show(got)}, not an array of fields"
    matched = maximum_matching(len(listed), len(got), lambda i, j: _field_mismatch(listed[i], got[j]) is None)
    ids = [str(item.get("fieldId")) for item in got if isinstance(item, dict)]
    for index, want in enumerate(listed):
        if index in matched:
            continue
        field_id = want["fieldId"]
        same = [item for item in got if isinstance(item, dict) and item.get("fieldId") == field_id]
        if not same:
            return f"no field {field_id!r} (fields: {', '.join(ids) or 'none'})"
        reasons = [reason for reason in (_field_mismatch(want, item) for item in same) if reason]
        if len(reasons) == len(same):
            return f"field {field_id!r}: {reasons[0]}"
        listed_times = sum(1 for item in listed if item["fieldId"] == field_id)
        return f"field {field_id!r} is listed {listed_times} times but filled {len(same)} time(s)"
    return None


def _field_mismatch(want: dict[str, Any], got: Any) -> str | None:
    if not isinstance(got, dict) or got.get("fieldId") != want["fieldId"]:
        return "another field"
    for key, value in want.items():
        if key == "fieldId":
            continue
        if key not in got:
            return f"has no {key!r}"
        if not strict_equal(got[key], value):
            return f"{key} is {show(got[key])}, expected {show(value)}"
    return None


def describe(action: ExpectedAction | ActualAction) -> str:
    """A short name for an action in a detail line: `click btn-cancel`, `form_fill(name, email)`."""
    payload = action.payload
    if not isinstance(payload, dict) or not payload:
        return action.type
    fields = payload.get("fields")
    if action.type == FORM_FILL and isinstance(fields, list):
        ids = [str(f.get("fieldId")) for f in fields if isinstance(f, dict)]
        return f"{action.type}({', '.join(ids)})"
    keys = [k for k in _NAMING_KEYS if k in payload] + [k for k in payload if k not in _NAMING_KEYS]
    for key in keys:
        value = payload[key]
        if isinstance(value, str) and value and len(value) <= 40 and not any(c.isspace() for c in value):
            return f"{action.type} {value}"
        if isinstance(value, (str, int, float)) and not isinstance(value, bool):
            return f"{action.type} {show(value, 40)}"
    return f"{action.type} {show(payload, 40)}"


__all__ = ["describe", "fields_mismatch", "maximum_matching", "mismatch"]
