"""`targetOutputKey`: which part of the output an evaluator looks at.

`"*"`, `""` or absent select the whole value; a dotted path (`details.rawScore`) walks dict keys on
both sides (list indexes are not paths); a list of such paths selects each of them, and an empty
list selects nothing (which scorers treat as a failure, never as a vacuous pass).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "<missing>"


MISSING: Final = _Missing()
WHOLE: Final = "*"


class SelectionError(ValueError):
    """The evaluator's targetOutputKey is not a path, a list of paths, or "*"."""


def normalize_target(target: Any) -> list[str]:
    """Turn a targetOutputKey into a list of paths; `"*"` stands for the whole value."""
    if target is None:
        return [WHOLE]
    if isinstance(target, str):
        return [target if split_path(target) else WHOLE]
    if isinstance(target, list):
        paths = []
        for item in target:
            if not isinstance(item, str):
                raise SelectionError(
                    f"targetOutputKey lists {item!r}, but every entry must be a string path")
            paths.append(item if split_path(item) else WHOLE)
        return paths
    raise SelectionError(
        f"targetOutputKey must be \"*\", a dotted path or a list of paths, not {type(target).__name__}")


def split_path(path: str) -> list[str]:
    if path.strip() == WHOLE:
        return []
    return [segment for segment in path.split(".") if segment]


def selected_paths(target: Any) -> list[list[str]] | None:
    """The parsed paths a targetOutputKey selects, or None when it selects the whole value (or can't be read):
    what the detail views (the TUI's and the HTML report's) mark and dim by."""
    try:
        paths = normalize_target(target)
    except SelectionError:
        return None
    if any(not split_path(p) for p in paths):
        return None
    return [split_path(p) for p in paths]


def select(value: Any, path: str) -> Any:
    """The value at `path` (dict keys only), or MISSING."""
    return resolve(value, split_path(path))


def resolve(value: Any, tokens: Sequence[str | int]) -> Any:
    """The value at a parsed path (a str walks a dict key, an int a list index), or MISSING."""
    for token in tokens:
        if isinstance(token, int):
            if not isinstance(value, list) or token >= len(value):
                return MISSING
        elif not isinstance(value, dict) or token not in value:
            return MISSING
        value = value[token]
    return value


@dataclass(frozen=True, slots=True)
class Selected:
    path: str
    actual: Any
    expected: Any

    @property
    def is_whole(self) -> bool:
        return self.path == WHOLE


def select_pairs(actual: Any, expected: Any, target: Any) -> list[Selected]:
    """Pairs of (actual, expected) under every selected path."""
    return [Selected(path, select(actual, path), select(expected, path)) for path in normalize_target(target)]


def describe_target(target: Any) -> str:
    try:
        paths = normalize_target(target)
    except SelectionError:
        return repr(target)
    if paths == [WHOLE]:
        return "the whole output"
    return ", ".join(paths) if paths else "nothing (empty list)"


def set_at(container: Any, tokens: Sequence[str | int], value: Any, source: Any) -> Any:
    """A copy of `container` with `value` at `tokens`. `source` is the value at the same place in the output the
    value comes from: where `container` has no list item a token indexes, the output's whole list is taken, so the
    path selects the same value from both (an object's missing keys are created, as `set_path` does)."""
    if not tokens:
        return value
    head, rest = tokens[0], tokens[1:]
    below = resolve(source, [head]) if source is not MISSING else MISSING
    if isinstance(head, int):
        if isinstance(container, list) and head < len(container):
            items = list(container)
            items[head] = set_at(items[head], rest, value, below)
            return items
        return source
    node = dict(container) if isinstance(container, dict) else {}
    node[head] = set_at(node.get(head, MISSING), rest, value, below)
    return node


def set_path(container: dict[str, Any], path: str, value: Any) -> Any:
    """A copy of `container` with `value` at `path`, creating intermediate objects as needed."""
    segments = split_path(path)
    if not segments:
        return value
    root = dict(container)
    node = root
    for segment in segments[:-1]:
        child = node.get(segment)
        child = dict(child) if isinstance(child, dict) else {}
        node[segment] = child
        node = child
    node[segments[-1]] = value
    return root
