"""What a declared field says about itself, in words: its kind ("a number"), its bounds ("between 0 and
1"), its default; and a value checked against it, with the refusal said the same way whichever file or
flag the value came from. The messages, the docs/settings.md table and the flags' help are all made here."""

from __future__ import annotations

import difflib
import math
import types
from dataclasses import dataclass
from functools import cache
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import annotated_types
from pydantic import ConfigDict, TypeAdapter, ValidationError
from pydantic.fields import FieldInfo
from pydantic_core import ErrorDetails

from .base import SETTING_ERROR, Kind, Note, Section

_BOUND_ERRORS = {"greater_than", "greater_than_equal", "less_than", "less_than_equal"}
_NOUNS: dict[Any, tuple[str, str]] = {
    bool: ("true/false", "true or false"), int: ("integer", "an integer"), float: ("number", "a number"),
    str: ("string", "a string"), list: ("list of strings", "a list of strings"),
    dict: ("table of strings", "a table of strings"),
}


def number_text(value: float) -> str:
    """86400, 0.25, 1,000,000: the way a bound is written in a message."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return f"{value:,}" if isinstance(value, int) and abs(value) >= 100_000 else f"{value:g}"


def _float(bound: Any) -> float:
    return float(bound)


def shown(value: Any) -> str:
    """A refused value as a message quotes it."""
    if isinstance(value, float):
        return f"{value:g}"
    return repr(value)


def _unwrap(annotation: Any, metadata: list[Any]) -> tuple[Any, bool, list[Any]]:
    """The type under `X | None` and `Annotated[X, ...]`, whether None is allowed, and every piece of
    metadata found on the way (constraints, notes, kinds)."""
    optional = False
    while True:
        args = get_args(annotation)
        if get_origin(annotation) in (Union, types.UnionType) and type(None) in args:
            optional = True
            annotation = next(arg for arg in args if arg is not type(None))
        elif get_origin(annotation) is Annotated:
            for extra in annotation.__metadata__:
                metadata.extend(extra.metadata if isinstance(extra, FieldInfo) else [extra])
            annotation = args[0]
        else:
            return annotation, optional, metadata


@dataclass(frozen=True)
class FieldFacts:
    """One declared setting: `[section] key`, what it holds and what it allows."""

    section: str
    key: str
    cls: type[Section]
    base: Any  # the Python type under Optional/Annotated: bool, int, float, str, list, dict or a Literal
    optional: bool
    metadata: tuple[Any, ...]
    description: str

    @property
    def where(self) -> str:
        return f"[{self.section}] {self.key}"

    @property
    def default(self) -> Any:
        return self.cls.model_fields[self.key].get_default(call_default_factory=True)

    @property
    def choices(self) -> tuple[Any, ...]:
        return get_args(self.base) if get_origin(self.base) is Literal else ()

    def _kind(self) -> tuple[str, str]:
        marked = next((m for m in self.metadata if isinstance(m, Kind)), None)
        if marked is not None:
            return marked.noun, marked.phrase
        if self.choices:
            if len(self.choices) == 1:
                return "string", f"\"{self.choices[0]}\""
            return "string", "one of " + ", ".join(map(str, self.choices))
        return _NOUNS.get(get_origin(self.base) or self.base, ("value", "a value"))

    @property
    def noun(self) -> str:
        return self._kind()[0]

    @property
    def phrase(self) -> str:
        return self._kind()[1]

    @property
    def scalar(self) -> bool:
        """A value small enough to quote back in a message (not a list or a table)."""
        return get_origin(self.base) not in (list, dict) and self.base not in (list, dict)

    def limits(self) -> tuple[tuple[str, float] | None, tuple[str, float] | None]:
        """The lower and upper bound, each as (">=" / ">" / "<=" / "<", value), or None."""
        low: tuple[str, float] | None = None
        high: tuple[str, float] | None = None
        for item in self.metadata:
            if isinstance(item, annotated_types.Ge):
                low = (">=", _float(item.ge))
            elif isinstance(item, annotated_types.Gt):
                low = (">", _float(item.gt))
            elif isinstance(item, annotated_types.Le):
                high = ("<=", _float(item.le))
            elif isinstance(item, annotated_types.Lt):
                high = ("<", _float(item.lt))
        return low, high

    def bounds(self) -> str | None:
        """The allowed range in words ("more than 0 and at most 86400 seconds (a day)"), or None."""
        low, high = self.limits()
        if low is None and high is None:
            return None
        note = next((f" {m.text}" for m in self.metadata if isinstance(m, Note)), "")
        if low is not None and high is not None and low[0] == ">=" and high[0] == "<=":
            return f"between {number_text(low[1])} and {number_text(high[1])}{note}"
        words = {">=": "at least", ">": "more than", "<=": "at most", "<": "less than"}
        given = [limit for limit in (low, high) if limit is not None]
        return " and ".join(f"{words[op]} {number_text(value)}" for op, value in given) + note

    def problem(self, error: ErrorDetails, *, quote: bool = True) -> str:
        """A pydantic error about this field said as what follows its name: "must be between 0 and 1, not 5"
        (the value left out when `quote` is False: a file that holds secrets is never quoted)."""
        kind, value = error["type"], error.get("input")
        inner = self.inner()
        if len(error["loc"]) > 1 and inner is not None:  # a value in a table or list: said by the value's own type
            return inner.problem({**error, "loc": error["loc"][:1]}, quote=quote)
        tail = f", not {shown(value)}" if quote and self.scalar and len(error["loc"]) <= 1 else ""
        if kind == SETTING_ERROR:
            return _phrase(error)
        if kind in _BOUND_ERRORS:
            return f"must be {self.bounds()}{tail}"
        if kind == "finite_number":
            return f"must be a finite number{tail}"
        return f"must be {self.phrase}{tail}"

    def inner(self) -> FieldFacts | None:
        """The facts of one value of a table (its values) or a list (its items), or None for a scalar."""
        args = get_args(self.base)
        if get_origin(self.base) is dict and len(args) == 2:
            of = args[1]
        elif get_origin(self.base) is list and len(args) == 1:
            of = args[0]
        else:
            return None
        base, optional, metadata = _unwrap(of, [])
        return FieldFacts(self.section, self.key, self.cls, base, optional, tuple(metadata), self.description)

    def check(self, value: Any, *, quote: bool = True) -> tuple[Any, str | None]:
        """The value as the field holds it and None, or None and the phrase refusing it."""
        try:
            return _adapter(self.cls, self.key).validate_python(value), None
        except ValidationError as exc:
            return None, self.problem(exc.errors()[0], quote=quote)

    def given_problem(self, value: Any) -> str | None:
        """As `check`, for a value a program gave (a command-line override): a number that isn't finite
        is said to be out of bounds, which is what it is to a caller that never typed it."""
        problem = self.check(value)[1]
        if problem is not None and isinstance(value, float) and not math.isfinite(value) and self.bounds():
            return f"must be {self.bounds()}, not {shown(value)}"
        return problem


def _phrase(error: ErrorDetails) -> str:
    return str((error.get("ctx") or {}).get("phrase", error["msg"]))


@cache
def _adapter(cls: type[Section], key: str) -> TypeAdapter[Any]:
    info = cls.model_fields[key]
    annotation = Annotated[info.annotation, *info.metadata] if info.metadata else info.annotation
    return TypeAdapter(annotation, config=ConfigDict(strict=True))


@cache
def fields_of(section: str, cls: type[Section]) -> tuple[FieldFacts, ...]:
    """Every field of the section, in declaration order."""
    out = []
    for key, info in cls.model_fields.items():
        base, optional, metadata = _unwrap(info.annotation, list(info.metadata))
        out.append(FieldFacts(section, key, cls, base, optional, tuple(metadata), info.description or ""))
    return tuple(out)


def field_of(section: str, cls: type[Section], key: str) -> FieldFacts:
    return next(facts for facts in fields_of(section, cls) if facts.key == key)


def did_you_mean(name: str, known: list[str], quote: str = "'{}'") -> str:
    """ "did you mean 'concurrency'? " when a known name is close to `name`, else "". """
    close = difflib.get_close_matches(name, known, n=1)
    return f"did you mean {quote.format(close[0])}? " if close else ""


def section_problem(section: str, cls: type[Section], exc: ValidationError) -> str:
    """The first thing wrong in a section's table, said after `[section]`: "timeout must be ..." or
    "unknown key 'concurency'; did you mean 'concurrency'? ..." """
    error = exc.errors()[0]
    loc = error["loc"]
    if error["type"] == "extra_forbidden":
        known = list(cls.model_fields)
        return f"unknown key {str(loc[0])!r}; {did_you_mean(str(loc[0]), known)}known keys: {', '.join(known)}"
    if not loc:  # a check across the section's fields names the keys itself
        return _phrase(error)
    where = str(loc[0]) + "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in loc[1:2])
    # `thresholds.JsonSim`, `command[1]`: the entry of a table or the item of a list that is wrong
    return f"{where} {field_of(section, cls, str(loc[0])).problem(error)}"


__all__ = ["FieldFacts", "did_you_mean", "field_of", "fields_of", "number_text", "section_problem", "shown"]
