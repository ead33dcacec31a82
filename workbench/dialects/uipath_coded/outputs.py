"""Which value an output evaluator of a coded agent compares: `targetOutputKey` as `uipath eval` reads it.

The rules (UiPath SDK 2.14.44), which differ from the Studio Web format's:

- `"*"` is the whole output; a string is a path of keys and `[n]` indexes (`items[0].name`): its parts
  are the runs of characters other than `.`, `[`, `]`, and `[digits]`; anything else between them is
  skipped (`a..b` is `a` then `b`). A path with no parts is an error.
- a list of paths selects `{path: value}` for each (the output must be an object).
- a key, index or container that isn't there is an error for that row, never a failure.
- on the expected side, a string `expectedOutput` is parsed as JSON when the key is not `"*"`: the
  expectation is the whole output (`{"answer": "Paris"}`), and the key selects from both sides.
- numbers (not booleans) become floats on both sides, so `5` and `5.0` are equal and `5` reads as `5.0`.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal
from typing import Any

WHOLE = "*"
_PART = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


class SelectionError(ValueError):
    """The key does not select a value here: the row's result is an ERROR (the SDK raises)."""


def path_parts(path: str) -> list[str | int]:
    """The keys (str) and list indexes (int) of a dotted path."""
    parts: list[str | int] = []
    for match in _PART.finditer(path):
        key, index = match.groups()
        parts.append(int(index) if index is not None else key)
    if not parts:
        raise SelectionError(f"targetOutputKey {path!r} names no key; write e.g. \"answer\" or \"items[0].name\"")
    return parts


def _step(value: Any, part: str | int, where: str) -> Any:
    if isinstance(part, int):
        if not isinstance(value, (list, tuple)):
            raise SelectionError(f"{where} is {kind(value)}, so it has no item [{part}]")
        if part >= len(value):
            raise SelectionError(f"{where} has {len(value)} items, so no item [{part}]")
        return value[part]
    if not isinstance(value, dict):
        raise SelectionError(f"{where} is {kind(value)}, so it has no key {part!r}")
    if part not in value:
        raise SelectionError(f"{where} has no key {part!r}")
    return value[part]


def resolve(value: Any, path: str, side: str = "the output") -> Any:
    """The value at `path` in `value` ("*": all of it); SelectionError when it isn't there."""
    if path == WHOLE:
        return value
    walked = ""
    for part in path_parts(path):
        value = _step(value, part, f"{side} at {walked!r}" if walked else side)
        walked += f"[{part}]" if isinstance(part, int) else (f".{part}" if walked else part)
    return value


def kind(value: Any) -> str:
    """A value's JSON kind, in words."""
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    if value is None:
        return "null"
    return "a number"


def floats(value: Any, side: str = "the output") -> Any:
    """Every number (not a boolean) as a float, in nested objects and lists too; tuples become lists.
    SelectionError (naming `side`) for an integer too large for a float."""
    if isinstance(value, dict):
        return {key: floats(item, side) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [floats(item, side) for item in value]
    if isinstance(value, (int, float, Decimal)) and not isinstance(value, bool):
        try:
            return float(value)
        except OverflowError:  # only an int: a Decimal that large becomes inf, as json.loads reads it for the SDK
            raise SelectionError(f"{side} holds {too_large(value)}, too large for a float, which is what the SDK "
                                 "compares numbers as (its evaluator fails on it too)") from None
    return value


def too_large(value: int | float | Decimal) -> str:
    """A number beyond floats in words, without its digits: `str()` of an integer past 4,300 digits raises, and
    thousands of digits say nothing (`the integer 1.0000e+5000 (5,001 digits)`)."""
    exact = Decimal(value)  # exact for any size, without the digit limit of `str()`
    if isinstance(value, int):
        return f"the integer {exact:.4e} ({exact.adjusted() + 1:,} digits)"
    return f"the number {exact:.4e}"


def actual_value(output: Any, key: Any) -> Any:
    """The part of the row's output the evaluator compares, numbers as floats."""
    if isinstance(key, list):
        if not isinstance(output, dict):
            raise SelectionError(f"targetOutputKey is a list of keys, so the output must be an object, not "
                                 f"{kind(output)}")
        return floats({path: resolve(output, path) for path in key})
    return floats(resolve(output, key))


def _parsed(expected: Any, key: Any) -> Any:
    if not isinstance(expected, str):
        return expected
    try:
        return json.loads(expected)
    except ValueError as exc:
        raise SelectionError(f"expectedOutput is a string that is not JSON ({exc}); with targetOutputKey "
                             f"{key!r} it must be the whole expected output, e.g. {{\"answer\": ...}} or its "
                             "JSON text") from None


def expected_value(expected: Any, key: Any) -> Any:
    """The part of the criterion's `expectedOutput` compared with the output's, numbers as floats."""
    if isinstance(key, list):
        whole = _parsed(expected, key)
        if not isinstance(whole, dict):
            raise SelectionError(f"targetOutputKey is a list of keys, so expectedOutput must be an object, not "
                                 f"{kind(whole)}")
        return floats({path: resolve(whole, path, "expectedOutput") for path in key}, "expectedOutput")
    if key != WHOLE:
        return floats(resolve(_parsed(expected, key), key, "expectedOutput"), "expectedOutput")
    return floats(expected, "expectedOutput")


def py_str(value: Any) -> str:
    """The text the SDK compares: Python's `str()` (a dict reads `{'a': 1.0}`, true reads `True`)."""
    return str(value)
