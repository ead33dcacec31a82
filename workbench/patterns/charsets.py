"""Exact character sets: what one character-level node of a Python pattern matches, as code point ranges.

RE2 and `regex` disagree with Python's `re` on what `\\d`, `\\w`, `\\s` and case-insensitive letters
match (RE2's classes are ASCII; `regex` follows Unicode's word definition, which adds combining marks;
each has its own case folding and Unicode version). So a translated pattern never uses their classes
or their IGNORECASE: every character node is written out as the set of code points Python's own engine
matches, under this interpreter's Unicode tables. The categories are found by scanning every code point
once; a case-insensitive node by testing every cased character (uncased ones match case-insensitively
exactly when they match case-sensitively, which `tests/scoring/test_user_patterns.py` checks over all code points).
"""

from __future__ import annotations

import _sre  # type: ignore[import-not-found]
import array
import functools
import re
import sys
from collections.abc import Iterable
from re import _casefix  # type: ignore[attr-defined]
from re import _constants as C  # type: ignore[attr-defined]

Ranges = tuple[tuple[int, int], ...]
TOP = 0x10FFFF
EVERYTHING: Ranges = ((0, TOP),)
_CATEGORY_SYNTAX = {C.CATEGORY_DIGIT: r"\d", C.CATEGORY_NOT_DIGIT: r"\D", C.CATEGORY_SPACE: r"\s",
                    C.CATEGORY_NOT_SPACE: r"\S", C.CATEGORY_WORD: r"\w", C.CATEGORY_NOT_WORD: r"\W"}
_NEGATED = {C.CATEGORY_NOT_DIGIT: C.CATEGORY_DIGIT, C.CATEGORY_NOT_SPACE: C.CATEGORY_SPACE,
            C.CATEGORY_NOT_WORD: C.CATEGORY_WORD}
CHAR_FLAGS = re.IGNORECASE | re.ASCII | re.DOTALL  # the flags that change what one character node matches


def normalize(ranges: Iterable[tuple[int, int]]) -> Ranges:
    """Sorted, merged, non-overlapping ranges."""
    merged: list[list[int]] = []
    for lo, hi in sorted(ranges):
        if merged and lo <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], hi)
        else:
            merged.append([lo, hi])
    return tuple((lo, hi) for lo, hi in merged)


def complement(ranges: Ranges) -> Ranges:
    out, start = [], 0
    for lo, hi in ranges:
        if lo > start:
            out.append((start, lo - 1))
        start = hi + 1
    if start <= TOP:
        out.append((start, TOP))
    return tuple(out)


def intersect(a: Ranges, b: Ranges) -> Ranges:
    out, i, j = [], 0, 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if lo <= hi:
            out.append((lo, hi))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return tuple(out)


def _runs(points: Iterable[int]) -> Ranges:
    return normalize((p, p) for p in points)


def every_character() -> str:
    """All code points, lone surrogates included (a JSON string may hold them), in order."""
    codes = array.array("I", range(TOP + 1))
    assert codes.itemsize == 4
    return codes.tobytes().decode(f"utf-32-{'le' if sys.byteorder == 'little' else 'be'}", "surrogatepass")


@functools.cache
def category(code: object, ascii_only: bool) -> Ranges:
    """What `\\d` `\\w` `\\s` (and their negations) match in Python, with or without re.ASCII: one scan
    over every code point (over ASCII with re.ASCII), the first time each is needed."""
    if code in _NEGATED:
        return complement(category(_NEGATED[code], ascii_only))
    pattern = re.compile(f"{_CATEGORY_SYNTAX[code]}+", re.ASCII if ascii_only else 0)
    text = "".join(map(chr, range(128))) if ascii_only else every_character()
    return tuple((m.start(), m.end() - 1) for m in pattern.finditer(text))


@functools.cache
def _cased() -> tuple[str, tuple[int, ...], Ranges]:
    """Every character that IGNORECASE could match to another one: cased ones, the lowercase of any
    character, and the extra pairs Python's `re` adds (`re._casefix`)."""
    points = set(filter(_sre.unicode_iscased, range(TOP + 1)))
    points |= {_sre.unicode_tolower(p) for p in points}
    for key, extra in _casefix._EXTRA_CASES.items():
        points.add(key)
        points.update(extra)
    ordered = tuple(sorted(points))
    return "".join(map(chr, ordered)), ordered, _runs(ordered)


def _escape(point: int) -> str:
    return f"\\U{point:08x}"


def python_source(op: object, av: object) -> str:
    """The node in Python's own syntax (for asking Python's engine what it matches)."""
    if op is C.LITERAL:
        return _escape(av)  # type: ignore[arg-type]
    if op is C.NOT_LITERAL:
        return f"[^{_escape(av)}]"  # type: ignore[arg-type]
    if op is C.ANY:
        return "."
    parts: list[str] = []
    for item_op, item in av:  # type: ignore[attr-defined]
        if item_op is C.NEGATE:
            parts.insert(0, "^")
        elif item_op is C.LITERAL:
            parts.append(_escape(item))
        elif item_op is C.RANGE:
            parts.append(f"{_escape(item[0])}-{_escape(item[1])}")
        elif item_op is C.CATEGORY:
            parts.append(_CATEGORY_SYNTAX[item])
        else:
            raise ValueError(f"unexpected class item {item_op}")
    return f"[{''.join(parts)}]"


def _case_sensitive(op: object, av: object, flags: int) -> Ranges:
    if op is C.LITERAL:
        return ((av, av),)  # type: ignore[return-value]
    if op is C.NOT_LITERAL:
        return complement(((av, av),))  # type: ignore[arg-type]
    if op is C.ANY:
        return EVERYTHING if flags & re.DOTALL else complement(((10, 10),))
    sets: list[tuple[int, int]] = []
    negate = False
    for item_op, item in av:  # type: ignore[attr-defined]
        if item_op is C.NEGATE:
            negate = True
        elif item_op is C.LITERAL:
            sets.append((item, item))
        elif item_op is C.RANGE:
            sets.append(item)
        elif item_op is C.CATEGORY:
            sets.extend(category(item, bool(flags & re.ASCII)))
        else:
            raise ValueError(f"unexpected class item {item_op}")
    found = normalize(sets)
    return complement(found) if negate else found


@functools.lru_cache(maxsize=1024)
def _node_set(op: object, av: object, flags: int) -> Ranges:
    found = _case_sensitive(op, av, flags)
    if not flags & re.IGNORECASE:
        return found
    text, points, cased = _cased()
    matcher = re.compile(python_source(op, av), flags)
    hits = _runs(points[m.start()] for m in matcher.finditer(text))
    return normalize((*intersect(found, complement(cased)), *hits))


def node_set(op: object, av: object, flags: int) -> Ranges:
    """The code points Python matches with one LITERAL / NOT_LITERAL / ANY / IN node under `flags`."""
    key = av if op is not C.IN else tuple(av)  # type: ignore[arg-type]
    return _node_set(op, key, flags & CHAR_FLAGS)


def word(ascii_only: bool) -> Ranges:
    return category(C.CATEGORY_WORD, ascii_only)
