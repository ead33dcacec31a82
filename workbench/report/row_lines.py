"""The line a row starts on in its eval file, for CI annotations (`::error file=…,line=…`).

Rows don't carry a line: a loader reads a file into values, and a line that is wrong is worse than none.
So the line is found again from the file: the document is parsed as the loaders parse it (`jsonio`), the
row's value (`Row.raw`, what the loader read) is found in it — at `[row.index]` of an array first, then
anywhere — and the offset of that value is taken from a scan of the text that tracks each value's path
(strings decoded by the json module's own scanner, so `"{"` inside a string is never a bracket). A row
that is a whole file (a scenario, a replay script) starts where its document does. A format whose files
aren't JSON answers itself (`LocatesRows.row_line`: TypeScript evals, say).
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import jsonio
from ..model import EvalSet, Row
from ..regular_files import read_regular_file

MAX_BYTES = 64 * 2**20
_MAX_PATH_DEPTH = 8  # rows sit at most a few levels down; deeper values are scanned, not indexed
_SEARCH_DEPTH = 4
_NUMBER_OR_WORD = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null")
_WS = " \t\n\r"
_SPACE = re.compile(r"[ \t\n\r]*")

PathKey = tuple[str | int, ...]


def value_offsets(text: str) -> dict[PathKey, int]:
    """Each value's path (keys and indexes from the root) → the offset of its first character, for values at
    most `_MAX_PATH_DEPTH` deep. A duplicate key keeps its last occurrence, as the parsers do. `text` must
    be valid JSON (the caller parsed it first)."""
    offsets: dict[PathKey, int] = {}
    stack: list[_Frame] = []
    i = 1 if text.startswith("\ufeff") else 0
    n = len(text)
    while i < n:
        char = text[i]
        if char in _WS:
            i = _SPACE.match(text, i).end()  # type: ignore[union-attr]  # `*` always matches
            continue
        top = stack[-1] if stack else None
        if top is not None and top.kind == "{" and top.wants_key:
            if char == ",":
                i += 1
            elif char == "}":
                stack.pop()
                i = _ended(stack, i + 1)
            else:
                top.key, i = _string(text, i)
                i = text.index(":", i) + 1
                top.wants_key = False
            continue
        if top is not None and top.kind == "[":
            if char == ",":
                top.key = int(top.key) + 1
                i += 1
                continue
            if char == "]":
                stack.pop()
                i = _ended(stack, i + 1)
                continue
        path = tuple(frame.key for frame in stack)
        if len(path) <= _MAX_PATH_DEPTH:
            offsets[path] = i
        if char in "{[":
            stack.append(_Frame(char, 0, char == "{"))
            i += 1
            continue
        if char == '"':
            _, i = _string(text, i)
        else:
            match = _NUMBER_OR_WORD.match(text, i)
            if match is None:
                raise ValueError(f"offset {i}: not JSON")
            i = match.end()
        i = _ended(stack, i)
        if not stack:
            break
    return offsets


@dataclass(slots=True)
class _Frame:
    kind: str  # "{" or "["
    key: str | int  # the key or index of the value being read in it
    wants_key: bool = False


def _ended(stack: list[_Frame], i: int) -> int:
    """A value ended at `i`: the object holding it reads its next key next."""
    if stack and stack[-1].kind == "{":
        stack[-1].wants_key = True
    return i


def _string(text: str, i: int) -> tuple[str, int]:
    """The string starting at the quote at `i`, decoded as the json module does, and the offset after it."""
    value, end = json.decoder.scanstring(text, i + 1, False)  # type: ignore[attr-defined]
    return value, end


@dataclass(slots=True)
class _Document:
    text: str
    value: Any
    offsets: dict[PathKey, int] | None = None
    used: dict[PathKey, bool] = field(default_factory=dict)

    newlines: list[int] = field(default_factory=list)

    def line_of(self, path: PathKey) -> int | None:
        if self.offsets is None:
            self.offsets = value_offsets(self.text)
            self.newlines = [match.start() for match in re.finditer("\n", self.text)]
        offset = self.offsets.get(path)
        return None if offset is None else bisect.bisect_left(self.newlines, offset) + 1


class RowLines:
    """Finds rows' lines, reading and scanning each file once (a run's failing rows share a few files)."""

    def __init__(self) -> None:
        self._documents: dict[Path, _Document | None] = {}

    def line(self, eval_set: EvalSet, row: Row) -> int | None:
        """The 1-based line `row` starts on in `eval_set.source_of(row)`, or None when it can't be told."""
        path = eval_set.source_of(row)
        whole_file = row.source is not None and row.source != eval_set.path
        document = self._document(path)
        if document is None:
            return 1 if whole_file else None
        if whole_file:
            return document.line_of(())
        for found in _paths_of(document.value, row.raw, row.index):
            if not document.used.get(found):  # two rows written alike: each takes the next one
                document.used[found] = True
                return document.line_of(found)
        return None

    def _document(self, path: Path) -> _Document | None:
        if path not in self._documents:
            self._documents[path] = _read(path)
        return self._documents[path]


def _read(path: Path) -> _Document | None:
    try:
        data = read_regular_file(path, MAX_BYTES)
        value = jsonio.parse(data).value
        text = data.decode("utf-8", errors="surrogateescape")
    except (OSError, ValueError):  # not a regular file, too big, not JSON (JsonError is a ValueError)
        return None
    return _Document(text, value)


def _paths_of(document: Any, raw: Any, index: int) -> Iterator[PathKey]:
    """Where `raw` sits in `document`: the root, `[index]` of an array (the loaders' rows), then anywhere."""
    if raw is None:
        return
    if document == raw:
        yield ()
    arrays: list[tuple[PathKey, list[Any]]] = [((), document)] if isinstance(document, list) else []
    if isinstance(document, dict):
        arrays += [((key,), value) for key, value in document.items() if isinstance(value, list)]
    for where, array in arrays:
        if index < len(array) and array[index] == raw:
            yield (*where, index)
    yield from _search(document, raw, (), 0)


def _search(value: Any, raw: Any, where: PathKey, depth: int) -> Iterator[PathKey]:
    if depth >= _SEARCH_DEPTH:
        return
    items: Any = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in items:
        if child == raw:
            yield (*where, key)
        elif isinstance(child, (dict, list)):
            yield from _search(child, raw, (*where, key), depth + 1)
