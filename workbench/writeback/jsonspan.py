"""Byte offsets of JSON values in the original text, so an edit can touch only the bytes it changes.

The scanner works on the raw bytes (UTF-8 never uses ASCII bytes inside a multi-byte character, so
every structural character is found exactly) and only walks the containers on the path it is asked
for; siblings are skipped with C-speed regular expressions. It assumes the text already parsed as JSON
(callers check that with `jsonio` first) and raises SpanError when it meets something it can't read.
As in `jsonio`, a key that appears twice means its last occurrence.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from ..jsonio import UTF8_BOM

_WS = re.compile(rb"[ \t\r\n]*")
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_SCALAR = re.compile(rb"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?|true|false|null")
# Everything up to the next bracket: plain bytes and whole strings (brackets inside them don't count).
_FILLER = re.compile(rb'(?:[^"\[\]{}]++|"[^"\\]*+(?:\\.[^"\\]*+)*+")*+', re.DOTALL)
_OPEN = frozenset(b"[{")
_QUOTE = ord('"')

PathStep = str | int
Entry = TypeVar("Entry")


class SpanError(ValueError):
    """The text is not the JSON the caller expected at this place."""


@dataclass(frozen=True, slots=True)
class Span:
    """`data[start:end]` is the value's exact text."""

    start: int
    end: int

    def text(self, data: bytes) -> bytes:
        return data[self.start:self.end]


@dataclass(frozen=True, slots=True)
class Member:
    """One `"key": value` of an object; `key_start` is the offset of the key's opening quote."""

    key: str
    key_start: int
    key_end: int
    value: Span


def skip_ws(data: bytes, pos: int) -> int:
    match = _WS.match(data, pos)
    return match.end() if match else pos


def value_end(data: bytes, pos: int) -> int:
    """The offset just past the value that starts at `pos`."""
    char = data[pos:pos + 1]
    if char == b'"':
        match = _STRING.match(data, pos)
        if not match:
            raise SpanError(f"unterminated string at byte {pos}")
        return match.end()
    if char and char[0] in _OPEN:
        depth, at = 1, pos + 1
        while depth:
            at = _FILLER.match(data, at).end()  # type: ignore[union-attr]  # `*+` always matches
            if at >= len(data) or data[at] == _QUOTE:
                raise SpanError(f"unclosed {char.decode()} (or string) after byte {pos}")
            depth += 1 if data[at] in _OPEN else -1
            at += 1
        return at
    match = _SCALAR.match(data, pos)
    if not match:
        raise SpanError(f"expected a JSON value at byte {pos}")
    return match.end()


def root(data: bytes) -> Span:
    """The document's top-level value (after any BOM and whitespace)."""
    start = skip_ws(data, len(UTF8_BOM) if data.startswith(UTF8_BOM) else 0)
    return Span(start, value_end(data, start))


def kind(data: bytes, span: Span) -> str:
    """`object`, `array`, `string` or `scalar`."""
    return {ord("{"): "object", ord("["): "array", _QUOTE: "string"}.get(data[span.start], "scalar")


def _expect(data: bytes, pos: int, char: bytes) -> None:
    if data[pos:pos + 1] != char:
        found = data[pos:pos + 1].decode("utf-8", errors="replace") or "end of file"
        raise SpanError(f"expected {char.decode()!r} at byte {pos}, found {found!r}")


def decode_key(raw: bytes) -> str:
    return json.loads(raw.decode("utf-8", errors="surrogatepass"))


def members(data: bytes, span: Span) -> list[Member]:
    """Every member of the object at `span`, in file order (duplicates included)."""

    def read(pos: int) -> tuple[Member, int]:
        match = _STRING.match(data, pos)
        if not match:
            raise SpanError(f"expected a key at byte {pos}")
        pos = skip_ws(data, match.end())
        _expect(data, pos, b":")
        start = skip_ws(data, pos + 1)
        end = value_end(data, start)
        return Member(decode_key(match.group()), match.start(), match.end(), Span(start, end)), end

    return _entries(data, span, b"{", b"}", read)


def member(data: bytes, span: Span, key: str) -> Member | None:
    """The member that wins for `key` (the last one, as parsers keep), or None."""
    chosen = None
    for item in members(data, span):
        if item.key == key:
            chosen = item
    return chosen


def items(data: bytes, span: Span, upto: int | None = None) -> list[Span]:
    """The elements of the array at `span`, in order (only the first `upto + 1` when given)."""

    def read(pos: int) -> tuple[Span, int]:
        end = value_end(data, pos)
        return Span(pos, end), end

    return _entries(data, span, b"[", b"]", read, upto)


def _entries(data: bytes, span: Span, opener: bytes, closer: bytes, read: Callable[[int], tuple[Entry, int]],
             upto: int | None = None) -> list[Entry]:
    """The entries of the container at `span` between `opener` and `closer`, each `read` from where it
    starts (giving the entry and where it ends), separated by commas; only the first `upto + 1` when given."""
    _expect(data, span.start, opener)
    pos = skip_ws(data, span.start + 1)
    found: list[Entry] = []
    if data[pos:pos + 1] == closer:
        return found
    while True:
        entry, end = read(pos)
        found.append(entry)
        if upto is not None and len(found) > upto:
            return found
        pos = skip_ws(data, end)
        if data[pos:pos + 1] == b",":
            pos = skip_ws(data, pos + 1)
            continue
        _expect(data, pos, closer)
        return found


@dataclass(frozen=True, slots=True)
class Walk:
    """How far a path reaches: `spans[i]` is the value after `i` steps; `reached` steps exist."""

    spans: list[Span]

    @property
    def reached(self) -> int:
        return len(self.spans) - 1

    @property
    def last(self) -> Span:
        return self.spans[-1]


def walk(data: bytes, path: Sequence[PathStep]) -> Walk:
    """Follow `path` (object keys and array indexes) from the root as far as it exists."""
    spans = [root(data)]
    for step in path:
        current = spans[-1]
        if isinstance(step, int):
            if kind(data, current) != "array":
                break
            elements = items(data, current, upto=step)
            if not 0 <= step < len(elements):
                break
            spans.append(elements[step])
        else:
            if kind(data, current) != "object":
                break
            found = member(data, current, step)
            if found is None:
                break
            spans.append(found.value)
    return Walk(spans)


def find(data: bytes, path: Sequence[PathStep]) -> Span | None:
    """The span of the value at `path`, or None when some step is missing."""
    result = walk(data, path)
    return result.last if result.reached == len(path) else None


def line_start(data: bytes, pos: int) -> int:
    return data.rfind(b"\n", 0, pos) + 1


def indent_at(data: bytes, pos: int) -> bytes:
    """The leading whitespace of the line holding `pos`."""
    start = line_start(data, pos)
    match = re.compile(rb"[ \t]*").match(data, start)
    end = match.end() if match else start
    return data[start:min(end, pos)]


def starts_line(data: bytes, pos: int) -> bool:
    """True when only indentation precedes `pos` on its line."""
    return not data[line_start(data, pos):pos].strip(b" \t")
