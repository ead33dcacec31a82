"""`uipath-json-similarity`: leaf-by-leaf similarity of the selected output to `expectedOutput`. Graded.

The one computation of the type for every format (`compare`, with the few rules formats differ in as a
`SimilarityRules`); this module's scorer is seed 003's. Following the UiPath SDK: only the expected
side's leaves count (extra keys and extra array items in the output cost nothing); a leaf scores its
number similarity (1 - relative difference, floored at 0), string similarity (1 - edit distance /
longer length), or 1/0 for booleans and null; a type mismatch or a missing key scores 0 for every
leaf below it. The score is matched / total leaves, and 1.0 when the expectation has no leaves at all.
The walk is iterative, so any nesting depth works.

Where formats differ (`SimilarityRules`): seed 003 scores a non-finite number 0 and compares two very long,
different strings approximately (`MAX_EDIT_CELLS`); the SDK's arithmetic takes a non-finite number as it comes
(an expected inf against 5 is 1 - inf/inf = nan, which its clamp `max(0, min(1, nan))` turns into 1) and
compares any length exactly.
"""

from __future__ import annotations

import difflib
import math
from dataclasses import dataclass
from typing import Any, ClassVar

from ..compare import format_path, is_number, type_name
from ..model import EvaluatorDef
from ..output_paths import MISSING, SelectionError, normalize_target, select_pairs, split_path
from .base import CriterionError, Score, ScoreInput, Scorer
from .common import check_threshold, graded, show
from .exact_match import expected_output

# Above this many edit-distance cells (about 20,000 × 20,000 characters, ~0.5 s) a string pair is
# compared approximately instead.
MAX_EDIT_CELLS = 400_000_000
_SHOWN = 10

Path = tuple[str | int, ...]


@dataclass(frozen=True, slots=True)
class SimilarityRules:
    """The rules of a leaf's score that formats differ in."""

    finite_only: bool = True
    """A non-finite number (inf, nan) scores 0; False: the ratio's arithmetic as it comes, clamped to 0..1."""
    max_edit_cells: int | None = MAX_EDIT_CELLS
    """Above this many edit-distance cells a string pair is compared approximately; None: always exactly."""


SEED_RULES = SimilarityRules()


@dataclass(slots=True)
class Miss:
    path: Path
    expected: Any
    actual: Any
    matched: float
    leaves: float
    why: str = ""


@dataclass(slots=True)
class Similarity:
    matched: float = 0.0
    total: float = 0.0
    approximate: bool = False

    @property
    def score(self) -> float:
        return 1.0 if self.total == 0 else max(0.0, min(1.0, self.matched / self.total))


def count_leaves(value: Any) -> int:
    """Leaves under a value: every scalar is one; empty objects and arrays have none."""
    count, stack = 0, [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
        else:
            count += 1
    return count


def number_similarity(expected: Any, actual: Any, finite_only: bool = True) -> float:
    """1 - |e - a| / |e|, clamped to 0..1 (an expected 0 needs an actual within 1e-12 of 0)."""
    if expected == actual:
        return 1.0
    try:
        e, a = float(expected), float(actual)
    except (OverflowError, ValueError):
        return 0.0
    if finite_only and not (math.isfinite(e) and math.isfinite(a)):
        return 0.0
    if math.isclose(e, 0.0, abs_tol=1e-12):
        return 1.0 if math.isclose(a, 0.0, abs_tol=1e-12) else 0.0
    return max(0.0, min(1.0, 1.0 - abs(e - a) / abs(e)))


def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance (insert, delete, substitute all cost 1).

    Myers' bit-parallel algorithm (Hyyrö's formulation): one column of the DP table is a pair of
    Python ints, so two 20,000-character strings take well under a second.
    """
    if len(a) < len(b):
        a, b = b, a
    if not b:
        return len(a)
    positions: dict[str, int] = {}
    for i, char in enumerate(b):
        positions[char] = positions.get(char, 0) | (1 << i)
    full = (1 << len(b)) - 1
    top = 1 << (len(b) - 1)
    plus, minus, distance = full, 0, len(b)
    for char in a:
        eq = positions.get(char, 0)
        xv = eq | minus
        xh = (((eq & plus) + plus) ^ plus) | eq
        hp = minus | (~(xh | plus) & full)
        hm = plus & xh
        if hp & top:
            distance += 1
        elif hm & top:
            distance -= 1
        hp = ((hp << 1) | 1) & full
        hm = (hm << 1) & full
        plus = hm | (~(xv | hp) & full)
        minus = hp & xv
    return distance


def string_similarity(expected: str, actual: str, max_cells: int | None = MAX_EDIT_CELLS) -> tuple[float, bool]:
    """(1 - distance / longer length, approximated?). Common ends are trimmed first (which keeps the distance);
    above `max_cells` edit-distance cells (None: never) the pair is compared approximately."""
    if expected == actual:
        return 1.0, False
    longest = max(len(expected), len(actual))
    start = 0
    while start < min(len(expected), len(actual)) and expected[start] == actual[start]:
        start += 1
    end = 0
    while (end < min(len(expected), len(actual)) - start
           and expected[-1 - end] == actual[-1 - end]):
        end += 1
    e, a = expected[start:len(expected) - end], actual[start:len(actual) - end]
    if max_cells is not None and len(e) * len(a) > max_cells:
        # An upper bound on difflib's ratio, linear in the lengths: only for huge, different texts.
        ratio = difflib.SequenceMatcher(None, e, a).quick_ratio()
        distance = round((1 - ratio) * max(len(e), len(a)))
        return max(0.0, 1.0 - distance / longest), True
    return max(0.0, 1.0 - edit_distance(e, a) / longest), False


def compare(expected: Any, actual: Any, base: Path = (), misses: list[Miss] | None = None,
            rules: SimilarityRules = SEED_RULES) -> Similarity:
    """Matched and total leaves of `expected` found in `actual`; records imperfect leaves in `misses`.

    Iterative, and each node's path is kept as a link to its parent's (made into a tuple only for a
    miss), so the cost stays linear however deep the values nest."""
    result = Similarity()
    Trail = tuple[Any, Any] | None  # (key, parent trail), innermost first
    stack: list[tuple[Trail, Any, Any]] = [(None, expected, actual)]

    def miss(trail: Trail, e: Any, a: Any, matched: float, leaves: float, why: str = "") -> None:
        if misses is not None and matched < leaves:
            keys: list[str | int] = []
            while trail is not None:
                key, trail = trail
                keys.append(key)
            misses.append(Miss((*base, *reversed(keys)), e, a, matched, leaves, why))

    while stack:
        trail, e, a = stack.pop()
        if a is MISSING:
            leaves = count_leaves(e)
            result.total += leaves
            miss(trail, e, a, 0.0, leaves, "missing from the actual output")
        elif is_number(e) and is_number(a):
            score = number_similarity(e, a, rules.finite_only)
            result.matched += score
            result.total += 1
            miss(trail, e, a, score, 1)
        elif type_name(e) != type_name(a):
            leaves = count_leaves(e)
            result.total += leaves
            miss(trail, e, a, 0.0, leaves, f"expected {type_name(e)}, got {type_name(a)}")
        elif isinstance(e, dict):
            stack.extend(((key, trail), value, a.get(key, MISSING)) for key, value in reversed(e.items()))
        elif isinstance(e, list):
            stack.extend(((i, trail), item, a[i] if i < len(a) else MISSING)
                         for i, item in reversed(list(enumerate(e))))
        elif isinstance(e, str):
            score, approximate = string_similarity(e, a, rules.max_edit_cells)
            result.approximate |= approximate
            result.matched += score
            result.total += 1
            miss(trail, e, a, score, 1)
        else:  # booleans and null
            score = 1.0 if e == a else 0.0
            result.matched += score
            result.total += 1
            miss(trail, e, a, score, 1)
    return result


def describe(miss: Miss) -> str:
    where = format_path(miss.path)
    if miss.leaves == 1 and not miss.why:
        return f"{where}: expected {show(miss.expected)}, got {show(miss.actual)} (leaf {miss.matched:.2f})"
    if miss.why.startswith("missing"):
        return f"{where}: {miss.why} (0 of {miss.leaves:g} leaves)"
    return f"{where}: {miss.why} — {show(miss.actual)} (0 of {miss.leaves:g} leaves)"


class JsonSimilarity(Scorer):
    type_id: ClassVar[str] = "uipath-json-similarity"
    uses_expected_output: ClassVar[bool] = True
    structural: ClassVar[bool] = True
    extra_output_ignored: ClassVar[bool] = True

    def check_config(self, evaluator: EvaluatorDef) -> str | None:
        try:
            normalize_target(evaluator.target_output_key)
        except SelectionError as exc:
            return str(exc)
        return check_threshold(evaluator)

    def score(self, data: ScoreInput) -> Score:
        expected = expected_output(data.criterion, data.evaluator.ref)
        pairs = select_pairs(data.output, expected, data.evaluator.target_output_key)
        if not pairs:
            raise CriterionError("targetOutputKey is an empty list: nothing selected to compare")
        total = Similarity()
        misses: list[Miss] = []
        for pair in pairs:
            if pair.expected is MISSING:
                raise CriterionError(f"expectedOutput has no {pair.path!r}, which targetOutputKey selects")
            base: Path = () if pair.is_whole else tuple(split_path(pair.path))
            part = compare(pair.expected, pair.actual, base, misses)
            total.matched += part.matched
            total.total += part.total
            total.approximate |= part.approximate
        lines = [f"matched {total.matched:.2f} of {total.total:g} expected leaves"]
        if total.total == 0:
            lines = ["expectedOutput has no leaves to compare (an empty object or array scores 1)"]
        misses.sort(key=lambda m: (m.matched / m.leaves if m.leaves else 1.0, [str(p) for p in m.path]))
        lines += [describe(m) for m in misses[:_SHOWN]]
        if len(misses) > _SHOWN:
            lines.append(f"… and {len(misses) - _SHOWN} more imperfect leaves")
        if total.approximate:
            lines.append("(some very long strings were compared approximately)")
        return graded(total.score, data, "\n".join(lines), expected)
