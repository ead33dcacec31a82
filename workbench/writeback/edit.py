"""Surgical edits of JSON text: set a value at a path, append to an array; nothing else moves.

Every edit splices new text into the original bytes at the span the scanner found, written in the
file's style. `apply_ops` then re-parses the result and checks it equals the document with the same
edits made in memory, so a scanner or layout bug can never write a file that means something else.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .. import jsonio
from ..compare import strict_equal
from . import jsonspan
from .errors import WritebackError
from .jsonspan import PathStep, Span
from .render import Hint, hint_from, render, scalar
from .style import Style


@dataclass(frozen=True, slots=True)
class SetValue:
    """Put `value` at `path`, creating missing objects on the way (a non-object in the way is replaced)."""

    path: tuple[PathStep, ...]
    value: Any


@dataclass(frozen=True, slots=True)
class AppendItem:
    """Append `value` to the array at `path`, laid out like the array's last element."""

    path: tuple[PathStep, ...]
    value: Any


Op = SetValue | AppendItem


def _nest(steps: Sequence[PathStep], value: Any) -> Any:
    for step in reversed(steps):
        if not isinstance(step, str):
            raise WritebackError(f"array index {step} does not exist; nothing written")
        value = {step: value}
    return value


def _splice(data: bytes, start: int, end: int, text: str) -> bytes:
    return data[:start] + text.encode("utf-8") + data[end:]


def _replace(data: bytes, span: Span, value: Any, style: Style, hint: Hint | None) -> bytes:
    indent = jsonspan.indent_at(data, span.start).decode("utf-8")
    column = span.start - jsonspan.line_start(data, span.start)
    return _splice(data, span.start, span.end, render(value, style, indent, column, hint))


def _member_indent(data: bytes, container: Span, first_child: int, last_child: int, style: Style) -> str:
    if jsonspan.starts_line(data, last_child):
        return jsonspan.indent_at(data, last_child).decode("utf-8")
    if jsonspan.starts_line(data, first_child):
        return jsonspan.indent_at(data, first_child).decode("utf-8")
    return jsonspan.indent_at(data, container.start).decode("utf-8") + style.indent


def _separator(data: bytes, end: int, next_start: int | None, style: Style) -> str:
    """The text between two elements on one line (`, ` or `,`), copied from the container."""
    if next_start is not None:
        between = data[end:next_start]
        if b"\n" not in between:
            return between.decode("utf-8")
    return style.comma


def insert_member(data: bytes, obj: Span, key: str, value: Any, style: Style) -> bytes:
    members = jsonspan.members(data, obj)
    if not members:
        spread = b"\n" in obj.text(data)  # `{\n}` asks for lines; `{}` says nothing
        return _replace(data, obj, {key: value}, style, Hint(False) if spread else None)
    first, last = members[0], members[-1]
    between = data[first.key_end:first.value.start]
    colon = between.decode("utf-8") if b"\n" not in between else style.colon
    key_text = scalar(key, style) + colon
    if b"\n" in data[obj.start:first.key_start]:
        indent = _member_indent(data, obj, first.key_start, last.key_start, style)
        body = render(value, style, indent, len(indent) + len(key_text) + 1)
        text = "," + style.newline + indent + key_text + body
    else:
        second = members[1].key_start if len(members) > 1 else None
        sep = _separator(data, first.value.end, second, style)
        indent = jsonspan.indent_at(data, obj.start).decode("utf-8")
        column = last.value.end - jsonspan.line_start(data, last.value.end) + len(sep) + len(key_text)
        text = sep + key_text + render(value, style, indent, column, Hint(True))
    return _splice(data, last.value.end, last.value.end, text)


def set_value(data: bytes, path: Sequence[PathStep], value: Any, style: Style) -> bytes:
    walked = jsonspan.walk(data, path)
    reached, node = walked.reached, walked.last
    if reached == len(path):
        return _replace(data, node, value, style, hint_from(data, node))
    step = path[reached]
    if isinstance(step, int):
        raise WritebackError(f"array index {step} does not exist; nothing written")
    if jsonspan.kind(data, node) == "object":
        return insert_member(data, node, step, _nest(path[reached + 1:], value), style)
    if reached == 0:
        raise WritebackError("the file's top level is not a JSON object; nothing written")
    return _replace(data, node, _nest(path[reached:], value), style, None)


def append_item(data: bytes, path: Sequence[PathStep], value: Any, style: Style) -> bytes:
    array = jsonspan.find(data, path)
    if array is None or jsonspan.kind(data, array) != "array":
        raise WritebackError(f"{_describe(path)} is not an array; nothing written")
    elements = jsonspan.items(data, array)
    outer = jsonspan.indent_at(data, array.start).decode("utf-8")
    if not elements:
        if style.single_line:
            text = "[" + style.array_pad + render(value, style, outer, 0) + style.array_pad + "]"
        else:
            inner = outer + style.indent
            text = "[" + style.newline + inner + render(value, style, inner, len(inner)) + style.newline + outer + "]"
        return _splice(data, array.start, array.end, text)
    first, last = elements[0], elements[-1]
    hint = hint_from(data, last)
    if b"\n" in data[array.start:first.start]:
        indent = _member_indent(data, array, first.start, last.start, style)
        text = "," + style.newline + indent + render(value, style, indent, len(indent), hint)
    else:
        sep = _separator(data, first.end, elements[1].start if len(elements) > 1 else None, style)
        column = last.end - jsonspan.line_start(data, last.end) + len(sep)
        text = sep + render(value, style, outer, column, hint)
    return _splice(data, last.end, last.end, text)


def _describe(path: Sequence[PathStep]) -> str:
    text = "".join(f"[{step}]" if isinstance(step, int) else f".{step}" for step in path)
    return text.lstrip(".") or "the top level"


# -- the same edits on the parsed document, to check the text edits against --------------------------

def _set_in_doc(doc: Any, path: Sequence[PathStep], value: Any) -> Any:
    if not path:
        return value
    step, rest = path[0], path[1:]
    if isinstance(step, int):
        items = list(doc)
        items[step] = _set_in_doc(doc[step], rest, value)
        return items
    if not isinstance(doc, dict):
        return _nest(path, value)
    fields = dict(doc)
    fields[step] = _set_in_doc(doc[step], rest, value) if step in doc else _nest(rest, value)
    return fields


def _append_in_doc(doc: Any, path: Sequence[PathStep], value: Any) -> Any:
    if not path:
        return [*doc, value]
    step = path[0]
    copy = list(doc) if isinstance(step, int) else dict(doc)
    copy[step] = _append_in_doc(doc[step], path[1:], value)  # type: ignore[index]
    return copy


def apply_ops(data: bytes, doc: Any, ops: Sequence[Op], style: Style) -> bytes:
    """`data` with every op applied in order; raises WritebackError if the result would not parse to
    exactly the intended document."""
    expected = doc
    for op in ops:
        if isinstance(op, SetValue):
            data = set_value(data, op.path, op.value, style)
            expected = _set_in_doc(expected, op.path, op.value)
        else:
            data = append_item(data, op.path, op.value, style)
            expected = _append_in_doc(expected, op.path, op.value)
    try:
        written = jsonio.loads(data)
    except jsonio.JsonError as exc:
        if "nested" in exc.message:
            raise WritebackError("the new value would nest the file deeper than JSON readers go (about "
                                 f"{jsonio.MAX_DEPTH_HINT} levels); nothing written") from None
        raise WritebackError(f"internal error: the edited file would not be valid JSON ({exc}); "
                             "nothing written") from None
    if not strict_equal(written, expected):
        raise WritebackError("internal error: the edited file would not hold exactly the intended change; "
                             "nothing written")
    return data
