"""Write a JSON value as text in a file's own style, laid out like the text it replaces.

A `Hint` is the layout of existing text (which containers sit on one line, which are spread over
several); new text follows it where the shapes agree and falls back to the file's habits elsewhere.
Rendering is iterative, so deeply nested values never hit Python's recursion limit.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import orjson

from .. import jsonio
from . import jsonspan
from .errors import WritebackError
from .jsonspan import Span
from .style import MAX_LINE, Style

MAX_HINT_DEPTH = 64


@dataclass(frozen=True, slots=True)
class Hint:
    """Layout of an existing container: `inline` when it sits on one line."""

    inline: bool
    keys: dict[str, Hint] = field(default_factory=dict)
    item: Hint | None = None


def hint_from(data: bytes, span: Span, depth: int = 0) -> Hint | None:
    """The layout of the container at `span`; None for a scalar or an empty container, whose text
    (`{}`) says nothing about how its content would be laid out."""
    kind = jsonspan.kind(data, span)
    if kind not in ("object", "array") or data[jsonspan.skip_ws(data, span.start + 1)] in b"]}":
        return None
    inline = b"\n" not in span.text(data)
    if inline or depth >= MAX_HINT_DEPTH:
        return Hint(inline)
    if kind == "object":
        keys = {}
        for member in jsonspan.members(data, span):
            child = hint_from(data, member.value, depth + 1)
            if child is not None:
                keys[member.key] = child
        return Hint(False, keys=keys)
    for element in jsonspan.items(data, span):
        child = hint_from(data, element, depth + 1)
        if child is not None:
            return Hint(False, item=child)
    return Hint(False)


def scalar(value: Any, style: Style) -> str:
    """One JSON scalar (or an empty container) as text."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return jsonio.int_text(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise WritebackError(f"{value} is not a JSON number; nothing written")
        return orjson.dumps(value).decode()
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise WritebackError(f"{value} is not a JSON number; nothing written")
        return str(value)
    if isinstance(value, str):
        if style.ensure_ascii:
            return json.dumps(value)
        try:
            return orjson.dumps(value).decode()
        except orjson.JSONEncodeError:  # lone surrogates: escape them rather than write invalid UTF-8
            return json.dumps(value)
    if isinstance(value, dict) and not value:
        return "{}"
    if isinstance(value, list) and not value:
        return "[]"
    raise WritebackError(f"cannot write a {type(value).__name__} as JSON; nothing written")


def _entries(value: dict[str, Any] | list[Any]) -> list[tuple[str | None, Any]]:
    if isinstance(value, dict):
        for key in value:
            if not isinstance(key, str):
                raise WritebackError(f"object key {key!r} is not a string; nothing written")
        return list(value.items())
    return [(None, item) for item in value]


def _is_container(value: Any) -> bool:
    return isinstance(value, (dict, list)) and bool(value)


def inline(value: Any, style: Style) -> str:
    """`value` on one line, spaced like the file's one-line objects and arrays."""
    out: list[str] = []
    stack: list[tuple[bool, Any]] = [(False, value)]  # (is literal text, payload)
    while stack:
        literal, payload = stack.pop()
        if literal:
            out.append(payload)
            continue
        if not _is_container(payload):
            out.append(scalar(payload, style))
            continue
        is_object = isinstance(payload, dict)
        pad = style.object_pad if is_object else style.array_pad
        pieces: list[tuple[bool, Any]] = [(True, ("{" if is_object else "[") + pad)]
        entries = _entries(payload)
        for index, (key, child) in enumerate(entries):
            if index:
                pieces.append((True, style.comma))
            if key is not None:
                pieces.append((True, scalar(key, style) + style.colon))
            pieces.append((False, child))
        pieces.append((True, pad + ("}" if is_object else "]")))
        stack.extend(reversed(pieces))
    return "".join(out)


def _fits_inline(value: Any, style: Style, column: int, hint: Hint | None) -> str | None:
    """The one-line text for `value` when the layout allows it and it fits the file's line width."""
    if style.single_line:
        return inline(value, style)
    if hint is not None:
        allowed, limit = hint.inline, max(style.line_limit, MAX_LINE)  # it was on one line: keep it there
    else:
        allowed = style.inline_objects if isinstance(value, dict) else style.inline_arrays
        limit = style.line_limit
    if not allowed or column + len(jsonio.dumps(value)) > limit:
        return None
    text = inline(value, style)
    return text if column + len(text) <= limit else None


def render(value: Any, style: Style, indent: str, column: int, hint: Hint | None = None) -> str:
    """`value` as it would appear at `column` on a line indented by `indent`; nested lines are
    indented from `indent` by the file's unit, and the closing bracket lines up with `indent`."""
    out: list[str] = []
    # (is literal text, payload); payload for a value is (value, indent, column, hint)
    stack: list[tuple[bool, Any]] = [(False, (value, indent, column, hint))]
    while stack:
        literal, payload = stack.pop()
        if literal:
            out.append(payload)
            continue
        item, here, col, layout = payload
        if not _is_container(item):
            out.append(scalar(item, style))
            continue
        one_line = _fits_inline(item, style, col, layout)
        if one_line is not None:
            out.append(one_line)
            continue
        is_object = isinstance(item, dict)
        inner = here + style.indent
        pieces: list[tuple[bool, Any]] = [(True, "{" if is_object else "[")]
        entries = _entries(item)
        for index, (key, child) in enumerate(entries):
            prefix = style.newline + inner + (scalar(key, style) + style.colon if key is not None else "")
            pieces.append((True, prefix))
            child_hint = None
            if layout is not None:
                child_hint = layout.keys.get(key) if key is not None else layout.item
            width = len(prefix) - len(style.newline) + (1 if index < len(entries) - 1 else 0)
            pieces.append((False, (child, inner, width, child_hint)))
            if index < len(entries) - 1:
                pieces.append((True, ","))
        pieces.append((True, style.newline + here + ("}" if is_object else "]")))
        stack.extend(reversed(pieces))
    return "".join(out)
