"""`uipath-json-similarity`'s leaf score as the UiPath SDK 2.14.44 computes it: the core's one computation
(`scoring/json_similarity.compare`) with the SDK's rules (`SDK_RULES`).

Only the expected side's leaves count; two numbers score 1 - |e - a| / |e| clamped to 0..1, two strings
1 - edit distance / the longer length, objects key by key over the expected keys, lists item by item (extra
keys and items in the output cost nothing), booleans and null 1 when equal, values of different kinds 0 for all
their leaves; matched / total leaves, and 1 when the expectation has none. Numbers arrive as floats
(`outputs.floats`). The SDK's rules: a non-finite number is taken as it comes (an expected 1e400 reads as inf,
and inf / inf is nan, which its clamp turns into 1), and strings of any length are compared exactly.
"""

from __future__ import annotations

from typing import Any

from ...scoring.json_similarity import Similarity, SimilarityRules, compare, count_leaves
from ...scoring.json_similarity import edit_distance as levenshtein

SDK_RULES = SimilarityRules(finite_only=False, max_edit_cells=None)


def similarity(expected: Any, actual: Any) -> Similarity:
    """The json-similarity of `actual` against `expected`, with the leaf counts behind it."""
    return compare(expected, actual, rules=SDK_RULES)


leaves = count_leaves

__all__ = ["SDK_RULES", "leaves", "levenshtein", "similarity"]
