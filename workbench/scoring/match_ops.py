"""Match operators for `workbench-assertions`: one value tested against `{equals | contains | ...}`.

Each operator answers None when it holds, or a short reason when it doesn't. Text comparisons can
ignore case and/or accents. `matches` patterns mean what they mean to Python's `re` and run through
`workbench.patterns` (RE2, or a backtracking engine with a timeout), so a pattern from a user's file
can't hang workbench: one that has to be stopped is a CriterionError (an ERROR) naming it. Paths address
the output (or a tool call's args): `reply`, `ticket.priority`, `items[0].name`; `*` or an empty path
is the whole value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..compare import is_number, strict_equal, type_name
from ..output_paths import MISSING
from ..output_paths import resolve as resolve  # parse_path's tokens are walked there, with select's
from ..patterns import PatternError, SafePattern, compile_pattern
from .base import CriterionError
from .common import fold, show

OPERATORS = ("equals", "contains", "not_contains", "matches", "in", "exists", "gte", "lte")
TEXT_FLAGS = ("ignore_case", "ignore_accents")
_TOKEN = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def parse_path(path: Any, where: str) -> list[str | int]:
    if not isinstance(path, str):
        raise CriterionError(f"{where}: path must be a string such as \"ticket.priority\", not {show(path)}")
    if path.strip() in ("", "*"):
        return []
    tokens: list[str | int] = []
    position = 0
    for match in _TOKEN.finditer(path):
        between = path[position:match.start()]
        if between not in ("", "."):
            raise CriterionError(f"{where}: cannot read path {path!r}")
        key, index = match.groups()
        tokens.append(int(index) if index is not None else key)
        position = match.end()
    if path[position:] not in ("",):
        raise CriterionError(f"{where}: cannot read path {path!r}")
    return tokens


@dataclass(frozen=True, slots=True)
class TextMode:
    ignore_case: bool = False
    ignore_accents: bool = False

    def fold(self, text: str) -> str:
        return fold(text, ignore_case=self.ignore_case, ignore_accents=self.ignore_accents)

    def same(self, a: Any, b: Any) -> bool:
        if isinstance(a, str) and isinstance(b, str):
            return self.fold(a) == self.fold(b)
        return strict_equal(a, b)


@dataclass(frozen=True, slots=True)
class Matcher:
    """A parsed operator set, e.g. {"contains": "HR", "not_contains": "test"}; all must hold. `where`
    names it in the file (`checks[2]`) for a pattern that has to be stopped."""

    operators: tuple[tuple[str, Any], ...]
    mode: TextMode
    where: str = ""

    def failure(self, value: Any) -> str | None:
        for op, operand in self.operators:
            try:
                reason = _apply(op, operand, value, self.mode)
            except PatternError as exc:
                raise CriterionError(f"{self.where}: matches {exc}" if self.where else f"matches {exc}") from None
            if reason:
                return reason
        return None


def is_operator_set(spec: Any) -> bool:
    return isinstance(spec, dict) and bool(spec) and any(k in OPERATORS for k in spec) and all(
        k in OPERATORS or k in TEXT_FLAGS for k in spec)


def parse_matcher(spec: dict[str, Any], where: str, mode: TextMode) -> Matcher:
    """Operators from `spec` (other keys are the caller's to check); validates every operand."""
    mode = TextMode(_flag(spec, "ignore_case", mode.ignore_case, where),
                    _flag(spec, "ignore_accents", mode.ignore_accents, where))
    operators = tuple((op, spec[op]) for op in OPERATORS if op in spec)
    for op, operand in operators:
        if op == "exists" and not isinstance(operand, bool):
            raise CriterionError(f"{where}: exists must be true or false, not {show(operand)}")
        if op in ("gte", "lte") and not is_number(operand):
            raise CriterionError(f"{where}: {op} needs a number, not {show(operand)}")
        if op == "in" and not isinstance(operand, list):
            raise CriterionError(f"{where}: in needs an array of allowed values, not {show(operand)}")
        if op == "matches":
            _compile(operand, mode, where)
    return Matcher(operators, mode, where)


def _flag(spec: dict[str, Any], key: str, default: bool, where: str) -> bool:
    value = spec.get(key, default)
    if not isinstance(value, bool):
        raise CriterionError(f"{where}: {key} must be true or false, not {show(value)}")
    return value


def _pattern(pattern: str, mode: TextMode) -> SafePattern:
    """The compiled pattern (once per pattern: `compile_pattern` keeps a bounded cache)."""
    return compile_pattern(mode.fold(pattern) if mode.ignore_accents else pattern,
                           re.IGNORECASE if mode.ignore_case else 0)


def _compile(pattern: Any, mode: TextMode, where: str) -> SafePattern:
    if not isinstance(pattern, str):
        raise CriterionError(f"{where}: matches needs a regular expression string, not {show(pattern)}")
    try:
        return _pattern(pattern, mode)
    except PatternError as exc:
        raise CriterionError(f"{where}: matches {exc}") from None


def _apply(op: str, operand: Any, value: Any, mode: TextMode) -> str | None:
    if op == "exists":
        present = value is not MISSING
        if present == operand:
            return None
        return f"is {show(value)}, expected it to be absent" if present else "is missing, expected it to exist"
    if value is MISSING:
        return "is missing"
    if op == "equals":
        return None if mode.same(value, operand) else f"is {show(value)}, expected {show(operand)}"
    if op in ("contains", "not_contains"):
        if isinstance(value, str):
            found = isinstance(operand, str) and mode.fold(operand) in mode.fold(value)
        elif isinstance(value, list):
            found = any(mode.same(item, operand) for item in value)
        else:
            return f"is {type_name(value)} {show(value)}; {op} works on text or arrays"
        if found == (op == "contains"):
            return None
        verb = "does not contain" if op == "contains" else "contains"
        return f"{show(value, 120)} {verb} {show(operand)}"
    if op == "matches":
        if not isinstance(value, str):
            return f"is {type_name(value)} {show(value)}; matches works on text"
        text = mode.fold(value) if mode.ignore_accents else value
        return None if _pattern(operand, mode).search(text) else f"{show(value, 120)} does not match /{operand}/"
    if op == "in":
        return None if any(mode.same(value, item) for item in operand) else (
            f"is {show(value)}, not one of {show(operand)}")
    if op in ("gte", "lte"):
        if not is_number(value):
            return f"is {type_name(value)} {show(value)}; {op} works on numbers"
        holds = value >= operand if op == "gte" else value <= operand
        return None if holds else f"is {show(value)}, expected {'>=' if op == 'gte' else '<='} {show(operand)}"
    raise AssertionError(op)
