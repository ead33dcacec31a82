"""Checking a tool call's `arguments` against the tool's `inputSchema`, for the part of JSON Schema that
MCP tool definitions use: type, properties, required, additionalProperties, enum, const, items,
minimum/maximum (and the exclusive forms, draft 4's boolean ones too), minLength/maxLength,
minItems/maxItems, pattern.

The libraries judge (`dialects/schema_check.py`: fastjsonschema says whether the arguments fit,
jsonschema, only when they don't, says where and why); this module gives them the schema as replays
judge it (`_judged`: the keywords above, a malformed one left out — the meta-schema decides — an
unknown type name fitting nothing) and says each failure in our words. A failure names where in the
arguments it is and which rule (the keyword's place in the schema), so a replay that fails says
`arguments.amount is 900, more than 500 (inputSchema.properties.amount.maximum)`.
A `pattern` means what it means to Python's `re` and runs through `workbench.patterns`, so it can't
hang a replay: one that has to be stopped raises PatternError naming its place in the schema (the row
is an ERROR). Annotations (`title`, `description`, `default`, `format`, ...) are not checks. Keywords that are checks
but not in the subset (`anyOf`, `$ref`, ...) are reported once, when the tools are loaded, by
`unchecked_keywords`; the rest of the schema is still checked.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from ... import jsonio
from ...compare import format_path, type_name
from ...patterns import PatternError, compile_pattern
from ..schema_check import NOTHING, Finding, SchemaCheck, check_for, findings, keyword_fits

TYPES = ("string", "number", "integer", "boolean", "object", "array", "null")
UNCHECKED = ("anyOf", "oneOf", "allOf", "not", "$ref", "if", "then", "else", "patternProperties",
             "propertyNames", "dependentRequired", "dependentSchemas", "dependencies", "prefixItems",
             "contains", "uniqueItems", "multipleOf", "minProperties", "maxProperties")


@dataclass(frozen=True, slots=True)
class SchemaFailure:
    """Where the arguments break a rule (`arguments.amount`), what is wrong, and the rule's place in the
    schema (`inputSchema.properties.amount.maximum`)."""

    where: str
    message: str
    rule: str

    def __str__(self) -> str:
        return f"{self.where} {self.message} ({self.rule})"


def _show(value: Any) -> str:
    return jsonio.preview(value, 60)


# The keywords judged, in the order their failures are said at one value (its items and keys come after).
_CHECKED = ("type", "enum", "const", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength",
            "maxLength", "pattern", "minItems", "maxItems", "items", "required", "properties", "additionalProperties")
_WORDS = "x-workbench"  # what the words need of the schema as written: a type's spelling, the pattern
_MAX_DEPTH = 64  # schema levels judged; deeper ones are trusted


def _judged(schema: Any, at: str, patterns: dict[str, Callable[[str], bool]], depth: int = 0) -> Any:
    """`schema` as the libraries are to judge it (a part of it that is no schema: nothing to judge)."""
    if schema is False:
        return dict(NOTHING)
    if not isinstance(schema, dict) or depth > _MAX_DEPTH:
        return True
    judged: dict[str, Any] = {}
    words: dict[str, str] = {}
    for key in _CHECKED:
        if key not in schema:
            continue
        value = schema[key]
        if key == "type":
            names = [value] if isinstance(value, str) else value if isinstance(value, list) else None
            if names:  # a name JSON Schema doesn't have fits nothing, but is said as written
                judged[key] = [name for name in names if name in TYPES]
                words[key] = " or ".join(str(name) for name in names)
        elif key in ("minimum", "maximum") and keyword_fits(key, value):
            exclusive = "exclusiveMinimum" if key == "minimum" else "exclusiveMaximum"
            judged[exclusive if schema.get(exclusive) is True else key] = value  # draft 4: `true` beside it
        elif key == "pattern" and isinstance(value, str) and _compiles(value):
            # a name fastjsonschema can write into its code as it is; the content it stands for, in it
            name = "pattern-" + hashlib.blake2b(jsonio.dumps([at, value]).encode(), digest_size=12).hexdigest()
            patterns[name] = _matcher(value, f"{at}.pattern")
            judged["format"], words[key] = name, value
        elif key == "additionalProperties" and isinstance(value, bool):
            judged[key] = value  # `false`: the keys `properties` doesn't name are refused, each by name
        elif key in ("items", "additionalProperties"):
            if isinstance(value, (dict, bool)):
                judged[key] = _judged(value, f"{at}.{key}", patterns, depth + 1)
        elif key in ("exclusiveMinimum", "exclusiveMaximum") and isinstance(value, bool):
            continue  # draft 4's spelling, read with minimum/maximum above
        elif key == "properties":
            if isinstance(value, dict):
                judged[key] = {name: _judged(sub, f"{at}.properties.{name}", patterns, depth + 1)
                               for name, sub in value.items()}
        elif key not in ("minimum", "maximum", "pattern") and keyword_fits(key, value):
            judged[key] = value
    if words:
        judged[_WORDS] = words
    return judged


def _compiles(pattern: str) -> bool:
    try:
        compile_pattern(pattern)
    except PatternError:
        return False  # reported when the tools were loaded
    return True


def _matcher(pattern: str, place: str) -> Callable[[str], bool]:
    def matches(text: str) -> bool:
        try:
            return bool(compile_pattern(pattern).search(text))
        except PatternError as exc:
            raise PatternError(f"{place} {exc}") from None
    return matches


_by_object: dict[int, tuple[Any, SchemaCheck]] = {}  # a tool's schema object -> its check (kept alive with it)


def _check(schema: Any) -> SchemaCheck:
    known = _by_object.get(id(schema))
    if known is not None and known[0] is schema:
        return known[1]
    patterns: dict[str, Callable[[str], bool]] = {}
    check = check_for(_judged(schema, "inputSchema", patterns), patterns)
    if len(_by_object) >= 256:
        _by_object.pop(next(iter(_by_object)))
    _by_object[id(schema)] = (schema, check)
    return check


def _failure(finding: Finding) -> SchemaFailure:
    error, path = finding.error, finding.path
    where = format_path(path, "arguments") if path else "arguments"
    keyword, value, limit = finding.keyword, finding.value, finding.limit
    words = finding.node.get(_WORDS, {})
    rule = ".".join(["inputSchema", *(str(part) for part in finding.rule)])
    if keyword == "not":
        return SchemaFailure(where, "is not allowed", rule)
    if keyword == "format":
        return SchemaFailure(where, f"is {_show(value)}, which does not match {_show(words['pattern'])}",
                             rule.removesuffix(".format") + ".pattern")
    if keyword == "type":
        spelled = words["type"]
        return SchemaFailure(where, f"must be {'an' if spelled[0] in 'aeiou' else 'a'} {spelled}, not "
                                    f"{type_name(value)} {_show(value)}", rule)
    if keyword == "required":
        return SchemaFailure(where, "is required but missing", rule)
    if keyword == "additionalProperties":
        known = ", ".join(finding.node.get("properties") or {}) or "none"
        return SchemaFailure(where, f"is not a property of this tool (properties: {known})", rule)
    said = {"enum": lambda: f"is {_show(value)}, not one of {_show(limit)}",
            "const": lambda: f"is {_show(value)}, not {_show(limit)}",
            "minimum": lambda: f"is {_show(value)}, less than {limit}",
            "maximum": lambda: f"is {_show(value)}, more than {limit}",
            "exclusiveMinimum": lambda: f"is {_show(value)}, not more than {limit}",
            "exclusiveMaximum": lambda: f"is {_show(value)}, not less than {limit}",
            "minLength": lambda: f"is {len(value)} characters long, shorter than {limit}",
            "maxLength": lambda: f"is {len(value)} characters long, longer than {limit}",
            "minItems": lambda: f"has {len(value)} items, fewer than {limit}",
            "maxItems": lambda: f"has {len(value)} items, more than {limit}"}
    return SchemaFailure(where, said[keyword]() if keyword in said else error.message, rule)


def validate(schema: Any, arguments: Any) -> list[SchemaFailure]:
    """Every way (the first five) `arguments` breaks `schema`; empty when they fit."""
    found = findings(_check(schema), arguments, hiding=("type",), missing_last=False)
    return [_failure(finding) for finding in found[:5]]


def _parts(schema: Any, at: str) -> Iterator[tuple[str, Any]]:
    """(place, subschema) for the schema and every subschema the checker descends into."""
    stack = [(at, schema)]
    while stack:
        where, node = stack.pop()
        if not isinstance(node, dict):
            continue
        yield where, node
        properties = node.get("properties")
        if isinstance(properties, dict):
            stack.extend((f"{where}.properties.{key}", sub) for key, sub in properties.items())
        for key in ("additionalProperties", "items"):
            if isinstance(node.get(key), dict):
                stack.append((f"{where}.{key}", node[key]))


def schema_mistakes(schema: Any) -> list[str]:
    """What in `schema` can't be used as written (a bad type name, a pattern that isn't a regex), for
    a file problem when the tools are loaded."""
    if not isinstance(schema, (dict, bool)):
        return [f"inputSchema must be an object (a JSON Schema), not {type_name(schema)}"]
    mistakes: list[str] = []
    for where, node in _parts(schema, "inputSchema"):
        wanted = node.get("type")
        names = [wanted] if isinstance(wanted, str) else wanted if isinstance(wanted, list) else []
        bad = [name for name in names if name not in TYPES]
        if bad or (wanted is not None and not names):
            mistakes.append(f"{where}.type must be one of {', '.join(TYPES)} (or a list of them), not {_show(wanted)}")
        if isinstance(node.get("pattern"), str):
            try:
                compile_pattern(node["pattern"])
            except PatternError as exc:
                mistakes.append(f"{where}.pattern is not a regular expression: {exc.reason}")
        for key in ("properties", "required", "enum"):
            expected = dict if key == "properties" else list
            if key in node and not isinstance(node[key], expected):
                mistakes.append(f"{where}.{key} must be {'an object' if expected is dict else 'an array'}, "
                                f"not {type_name(node[key])}")
    return mistakes


def unchecked_keywords(schema: Any) -> list[str]:
    """The places of keywords the checker does not understand (`inputSchema.properties.x.anyOf`)."""
    return [f"{where}.{key}" for where, node in _parts(schema, "inputSchema") for key in UNCHECKED if key in node]


__all__ = ["PatternError", "SchemaFailure", "schema_mistakes", "unchecked_keywords", "validate"]
