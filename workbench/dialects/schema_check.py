"""JSON Schema checks by libraries, for the formats that check values against a schema (a UiPath
Workflow.json's contract, a replay tool's `inputSchema`).

Most values fit, so the yes/no is `fastjsonschema`'s: the schema compiled once to Python, a few
`isinstance` calls per value. Only a value it refuses goes through `jsonschema`'s `iter_errors`, whose
structured errors (the value's path, the keyword, its place in the schema) each format turns into its own
words. Both read draft 7. A schema is compiled once per content (`check_for`, keyed by its digest);
jsonschema (a tenth of a second to import) is imported only when a value doesn't fit. `keyword_fits` asks
fastjsonschema whether a keyword's value is well formed, so a format can leave a malformed keyword out
instead of guessing at it.

A pattern never reaches either library's `re`: a format passes its patterns as named checks (`patterns`,
used through the `format` keyword), run through `workbench.patterns`, which can't hang.

This module is imported only by the checks that use it (a project without a Workflow.json or replays
never loads either library; tests/cli/test_import_sets.py).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import cache, lru_cache
from itertools import islice
from typing import TYPE_CHECKING, Any

import fastjsonschema

from .. import jsonio
from ..compare import fits_schema_type

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError

__all__ = ["NOTHING", "Finding", "SchemaCheck", "check_for", "findings", "keyword_fits"]

_TYPES = ("string", "number", "integer", "boolean", "object", "array", "null")
_CACHED = 256  # compiled schemas kept (a project has a few: one per tool, two per Workflow.json)


def _types() -> Any:
    import jsonschema

    # JSON values as workbench reads them: orjson's Decimal for a long number is a number (an integer
    # when whole), a bool is never one; the same rule as everywhere else (compare.fits_schema_type).
    checks = {name: _type_check(name) for name in _TYPES}
    return jsonschema.Draft7Validator.TYPE_CHECKER.redefine_many(checks)


def _type_check(name: str) -> Callable[[Any, Any], bool]:
    return lambda _checker, value: fits_schema_type(value, name) is True


def _strings_only(check: Callable[[str], bool]) -> Callable[[Any], bool]:
    """A pattern's check as a `format`: a value that is no string is not its to judge."""
    return lambda value: not isinstance(value, str) or check(value)


@cache
def _validator_class() -> Any:
    import jsonschema

    return jsonschema.validators.extend(jsonschema.Draft7Validator, type_checker=_types())


class SchemaCheck:
    """One schema, compiled once. `fits(value)` is the fast yes/no; `errors(value)` what is wrong, in
    jsonschema's structured errors (empty when the value fits)."""

    def __init__(self, schema: Any, patterns: Mapping[str, Callable[[str], bool]]) -> None:
        self.schema = schema
        self._patterns = dict(patterns)
        self._full: Any = None
        checks = {name: _strings_only(check) for name, check in self._patterns.items()}
        try:
            self._fast: Callable[[Any], Any] | None = fastjsonschema.compile(
                schema, formats=checks, use_default=False, detailed_exceptions=False)
        except Exception:  # a schema its code generator can't take (too deep to compile): the slow path answers
            self._fast = None

    def fits(self, value: Any) -> bool:
        if self._fast is None:
            return not any(True for _ in self._validator().iter_errors(value))
        try:
            self._fast(value)
        except fastjsonschema.JsonSchemaValueException:
            return False
        except RecursionError:
            return not any(True for _ in self._validator().iter_errors(value))
        return True

    def errors(self, value: Any) -> Iterator[ValidationError]:
        """jsonschema's errors for `value`, in the order it finds them (the schema's keyword order)."""
        return self._validator().iter_errors(value)

    def _validator(self) -> Any:
        if self._full is None:
            import jsonschema

            checker = jsonschema.FormatChecker(formats=())
            for name, check in self._patterns.items():
                checker.checks(name)(_strings_only(check))
            self._full = _validator_class()(self.schema, format_checker=checker)
        return self._full


_checks: dict[str, SchemaCheck] = {}


def check_for(schema: Any, patterns: Mapping[str, Callable[[str], bool]] | None = None) -> SchemaCheck:
    """The compiled check of `schema` (a schema already in the form the format wants judged); the same
    object for the same content, so a schema read again (the next iteration's load) isn't compiled again.
    `patterns` are the named string checks its `format` keywords refer to; they belong to the content."""
    digest = hashlib.blake2b(jsonio.dumps([schema, sorted(patterns or ())], sort_keys=True).encode(),
                             digest_size=16).hexdigest()
    found = _checks.get(digest)
    if found is None:
        if len(_checks) >= _CACHED:
            _checks.pop(next(iter(_checks)))
        found = _checks[digest] = SchemaCheck(schema, patterns or {})
    return found


@lru_cache(maxsize=4096)
def _well_formed(keyword: str, value_json: str) -> bool:
    try:
        fastjsonschema.compile({keyword: jsonio.loads(value_json)}, use_default=False)
    except Exception:  # JsonSchemaDefinitionException, or a value its code generator can't write
        return False
    return True


def keyword_fits(keyword: str, value: Any) -> bool:
    """Whether `value` is well formed for `keyword` (`"maxLength": "2"` is not), as fastjsonschema's
    compiler judges a schema's own keywords."""
    return _well_formed(keyword, jsonio.dumps(value, sort_keys=True))


# -- jsonschema's errors, one per place, in the value's own order ------------------------------------------

_ERRORS_READ = 1000  # jsonschema errors read for one value; a value breaking more is said by its first ones


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing wrong, at one place of the value: `path` is where (a missing or extra key's own place),
    `error` jsonschema's error, `key` the missing (`required`) or undeclared (`additionalProperties`) key."""

    path: tuple[Any, ...]
    error: ValidationError
    key: str | None = None

    @property
    def keyword(self) -> str:
        """The keyword broken (`not` for a schema that allows nothing: `false` is given as `{"not": {}}`, as
        jsonschema's errors for `false` lose the value's place)."""
        keyword = self.error.validator
        return keyword if isinstance(keyword, str) else ""

    @property
    def value(self) -> Any:
        """The value that breaks the keyword (for a missing or extra key: the object)."""
        return self.error.instance

    @property
    def limit(self) -> Any:
        """The broken keyword's value (`maximum`'s 500, `type`'s names)."""
        return self.error.validator_value

    @property
    def node(self) -> dict[str, Any]:
        """The schema the broken keyword is in."""
        schema = self.error.schema
        return dict(schema) if isinstance(schema, Mapping) else {}

    @property
    def rule(self) -> tuple[Any, ...]:
        """The broken keyword's place in the schema (for `not`, the place of the schema that allows nothing)."""
        place = tuple(self.error.absolute_schema_path)
        return place[:-1] if self.keyword == "not" else place


NOTHING: dict[str, Any] = {"not": {}}  # the schema `false`, as the checks take it


def findings(check: SchemaCheck, value: Any, *, hiding: tuple[str, ...], missing_last: bool) -> list[Finding]:
    """What is wrong with `value` (nothing when it fits), in the order a person reads it: a value's own
    rules, then its items and keys in the value's order, a `required` or `additionalProperties` error
    split into one finding per key; missing keys before the keys (or after, `missing_last`). A broken
    keyword in `hiding` (`type`, ...) hides the rest of its schema for that value, the keywords after it
    in `hiding` included: they would only repeat it."""
    if check.fits(value):
        return []
    found: list[tuple[tuple[int, ...], int, Finding]] = []
    order = _Order(value)
    said: set[tuple[tuple[Any, ...], tuple[Any, ...]]] = set()
    for error in islice(check.errors(value), _ERRORS_READ):
        for finding, anchor in _split(error, order, missing_last, said):
            found.append((anchor, len(found), finding))
    for keyword in hiding:
        hiders = [(finding.path, finding.rule[:-1]) for _, _, finding in found if finding.keyword == keyword]
        found = [item for item in found if item[2].keyword == keyword or not any(
            item[2].path[:len(at)] == at and item[2].rule[:len(node)] == node for at, node in hiders)]
    return [finding for _, _, finding in sorted(found, key=lambda item: (item[0], item[1]))]


def _split(error: ValidationError, order: _Order, missing_last: bool,
           said: set[tuple[tuple[Any, ...], tuple[Any, ...]]]) -> Iterator[tuple[Finding, tuple[int, ...]]]:
    path = tuple(error.absolute_path)
    if error.validator == "required":
        # jsonschema says each missing name in an error of its own: all of them are said with the first
        place = (path, tuple(error.absolute_schema_path))
        if place in said:
            return
        said.add(place)
        instance: Any = error.instance
        names: Any = error.validator_value
        for name in names:
            if name not in instance:
                yield Finding((*path, name), error, name), (*order.of(path), 1 << 62 if missing_last else -1)
    elif error.validator == "additionalProperties" and error.validator_value is False:
        schema: Any = error.schema
        instance = error.instance
        declared = schema.get("properties") or {}
        for key in instance:
            if key not in declared:
                yield Finding((*path, key), error, key), order.of((*path, key))
    else:
        yield Finding(path, error), order.of(path)


class _Order:
    """Where a place is in the value: each key's position among its object's keys, each item's index."""

    def __init__(self, value: Any) -> None:
        self.value = value
        self.positions: dict[int, dict[Any, int]] = {}

    def of(self, path: tuple[Any, ...]) -> tuple[int, ...]:
        node, anchor = self.value, []
        for part in path:
            if isinstance(node, dict):
                known = self.positions.get(id(node))
                if known is None:
                    known = self.positions[id(node)] = {key: index for index, key in enumerate(node)}
                anchor.append(known.get(part, len(known)))
                node = node.get(part)
            else:
                anchor.append(part if isinstance(part, int) else 0)
                node = node[part] if isinstance(node, list) and isinstance(part, int) and part < len(node) else None
        return tuple(anchor)
