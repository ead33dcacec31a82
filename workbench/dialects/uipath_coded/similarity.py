"""`uipath-json-similarity`'s leaf score, as the UiPath SDK 2.14.44 computes it.

Only the expected side's leaves count (a leaf: anything that isn't an object or a list). Each scores
between 0 and 1 against the value at the same place in the output:

- two numbers: 1 - |e - a| / |e|, clamped to 0..1 (an expected 0 needs an actual within 1e-12 of 0);
- two strings: 1 - edit distance / the longer length (two empty strings: 1);
- objects: key by key over the expected keys (a key the output lacks scores 0 for all its leaves);
- lists: item by item over the common length (missing expected items score 0, extra actual ones
  cost nothing);
- anything else (booleans, null) 1 when equal; values of different kinds score 0 for all their leaves.

The score is matched / total leaves, and 1 when the expectation has no leaves at all (`{}`, `[]`).
Numbers arrive as floats (`outputs.floats`), so sums add up in the same order as the SDK's.

The edit distance is the core's (`scoring/json_similarity.edit_distance`, exact, by bit vectors, so two long
outputs take seconds, not hours); the rest is kept apart from the core's json-similarity on purpose, as the SDK
computes it: the core scores a non-finite number 0 and trims and approximates very long strings, while the SDK
scores an expected 1e400 (inf) against 5 as 1 (its ratio is nan, which its clamp turns into 1) and compares any
length exactly.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

from ...scoring.json_similarity import edit_distance as levenshtein


class Similarity(NamedTuple):
    score: float
    matched: float
    total: float


def leaves(value: Any) -> float:
    """How many leaves a value has: objects and lists count their items' leaves, anything else is one."""
    if isinstance(value, dict):
        return sum(leaves(item) for item in value.values())
    if isinstance(value, list):
        return sum(leaves(item) for item in value)
    return 1.0


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _numbers(expected: float, actual: float) -> float:
    if math.isclose(expected, 0.0, abs_tol=1e-12):
        return 1.0 if math.isclose(actual, 0.0, abs_tol=1e-12) else 0.0
    return max(0.0, min(1.0, 1.0 - abs(expected - actual) / abs(expected)))


def _strings(expected: str, actual: str) -> float:
    if not expected and not actual:
        return 1.0
    longest = max(len(expected), len(actual))
    return max(0.0, min(1.0, 1.0 - levenshtein(expected, actual) / longest))


def _objects(expected: dict[str, Any], actual: dict[str, Any]) -> tuple[float, float]:
    matched = total = 0.0
    for key, value in expected.items():
        got, count = compare(value, actual[key]) if key in actual else (0.0, leaves(value))
        matched += got
        total += count
    return matched, total


def _lists(expected: list[Any], actual: list[Any]) -> tuple[float, float]:
    matched = total = 0.0
    common = min(len(expected), len(actual))
    for index in range(common):
        got, count = compare(expected[index], actual[index])
        matched += got
        total += count
    for item in expected[common:]:
        total += leaves(item)
    return matched, total


def compare(expected: Any, actual: Any) -> tuple[float, float]:
    """(matched, total) leaves of `expected` found in `actual`."""
    if _is_number(expected) and _is_number(actual):
        return _numbers(float(expected), float(actual)), 1.0
    if type(expected) is not type(actual):
        return 0.0, leaves(expected)
    if isinstance(expected, dict):
        return _objects(expected, actual)
    if isinstance(expected, list):
        return _lists(expected, actual)
    if isinstance(expected, bool):
        return (1.0 if expected == actual else 0.0), 1.0
    if isinstance(expected, str):
        return _strings(expected, actual), 1.0
    return (1.0 if str(expected) == str(actual) else 0.0), 1.0


def similarity(expected: Any, actual: Any) -> Similarity:
    """The json-similarity score of `actual` against `expected`, with the leaf counts behind it."""
    matched, total = compare(expected, actual)
    score = 1.0 if total == 0 else matched / total
    return Similarity(max(0.0, min(1.0, score)), matched, total)
