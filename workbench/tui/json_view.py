"""Pretty JSON as Rich Text, line by line, knowing which path each line belongs to.

That is what lets the detail pane highlight the lines where expected and actual differ, and dim
the lines an evaluator's `targetOutputKey` does not look at. Iterative, capped in lines, and built
from Text objects (never markup), so hostile keys and values are shown literally.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from rich.text import Text

from .. import jsonio
from ..compare import Path
from ..textsafe import printable

MAX_LINES = 1500
INDENT = "  "
MAX_INDENT_LEVELS = 32  # deeper lines are not indented further (a 1,000-deep value would be 2,000 columns)

STYLE_KEY = "bold #7aa2f7"
STYLE_STRING = "#9ece6a"
STYLE_NUMBER = "#ff9e64"
STYLE_LITERAL = "#bb9af7"
STYLE_PUNCT = "#a9b1d6"
STYLE_DIFF = "on #5c2b2b"
STYLE_DIM = "dim"


@dataclass(frozen=True, slots=True)
class _Line:
    depth: int
    path: Path
    key: str | None
    value: Any  # a scalar to print, or one of the markers below
    closer: str = ""
    comma: bool = False


_OPEN_DICT, _OPEN_LIST, _EMPTY_DICT, _EMPTY_LIST = object(), object(), object(), object()


def _lines(value: Any) -> Iterable[_Line]:
    """Lines of the pretty-printed value, depth-first, without recursion."""
    stack: list[tuple[int, Path, str | None, Any, bool, str]] = [(0, (), None, value, False, "")]
    while stack:
        depth, path, key, node, comma, closer = stack.pop()
        if closer:
            yield _Line(depth, path, None, None, closer, comma)
            continue
        if isinstance(node, dict) and node:
            yield _Line(depth, path, key, _OPEN_DICT)
            stack.append((depth, path, None, None, comma, "}"))
            items = list(node.items())
            for index in range(len(items) - 1, -1, -1):
                child_key, child = items[index]
                stack.append((depth + 1, (*path, child_key), child_key, child, index < len(items) - 1, ""))
        elif isinstance(node, list) and node:
            yield _Line(depth, path, key, _OPEN_LIST)
            stack.append((depth, path, None, None, comma, "]"))
            for index in range(len(node) - 1, -1, -1):
                stack.append((depth + 1, (*path, index), None, node[index], index < len(node) - 1, ""))
        else:
            if isinstance(node, dict):
                node = _EMPTY_DICT
            elif isinstance(node, list):
                node = _EMPTY_LIST
            yield _Line(depth, path, key, node, "", comma)


def _scalar(value: Any) -> Text:
    if value is _EMPTY_DICT:
        return Text("{}", STYLE_PUNCT)
    if value is _EMPTY_LIST:
        return Text("[]", STYLE_PUNCT)
    text = printable(jsonio.dumps(value), keep_newlines=False)
    if isinstance(value, str):
        return Text(text, STYLE_STRING)
    if value is None or isinstance(value, bool):
        return Text(text, STYLE_LITERAL)
    return Text(text, STYLE_NUMBER)


def _within(path: Path, prefixes: Iterable[Path]) -> bool:
    return any(path[: len(prefix)] == prefix for prefix in prefixes)


def _ancestor_of(path: Path, paths: Iterable[Path]) -> bool:
    return any(p[: len(path)] == path for p in paths)


def render_json(value: Any, *, highlight: Iterable[Path] = (), selected: list[Path] | None = None,
                max_lines: int = MAX_LINES) -> Text:
    """`value` as indented JSON. Lines inside a `highlight` path get a red background; with `selected`,
    lines outside every selected path (other than their ancestors) are dimmed."""
    highlight = list(highlight)
    out = Text(no_wrap=False)
    for count, line in enumerate(_lines(value)):
        if count >= max_lines:
            out.append(f"… (more lines not shown; the value is longer than {max_lines} lines)\n", STYLE_DIM)
            break
        row = Text(INDENT * min(line.depth, MAX_INDENT_LEVELS))
        if line.depth > MAX_INDENT_LEVELS:
            row.append(f"⋮{line.depth} ", STYLE_DIM)
        if line.closer:
            row.append(line.closer, STYLE_PUNCT)
        else:
            if line.key is not None:
                row.append(printable(jsonio.dumps(line.key), keep_newlines=False), STYLE_KEY)
                row.append(": ", STYLE_PUNCT)
            if line.value is _OPEN_DICT:
                row.append("{", STYLE_PUNCT)
            elif line.value is _OPEN_LIST:
                row.append("[", STYLE_PUNCT)
            else:
                row.append_text(_scalar(line.value))
        if line.comma:
            row.append(",", STYLE_PUNCT)
        if highlight and _within(line.path, highlight):
            row.stylize(STYLE_DIFF)
        elif selected is not None and not _within(line.path, selected) and not _ancestor_of(line.path, selected):
            row.stylize(STYLE_DIM)
        out.append_text(row)
        out.append("\n")
    out.rstrip()
    return out


def first_highlighted_line(text: Text) -> int | None:
    """The line number (from 0) of the first line `render_json` highlighted as a difference."""
    starts = [span.start for span in text.spans if span.style == STYLE_DIFF]
    return text.plain.count("\n", 0, min(starts)) if starts else None
