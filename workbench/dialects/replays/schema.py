"""Checking a tool call's `arguments` against the tool's `inputSchema`, for the part of JSON Schema that
MCP tool definitions use: type, properties, required, additionalProperties, enum, const, items,
minimum/maximum (and the exclusive forms), minLength/maxLength, minItems/maxItems, pattern.

A failure names where in the arguments it is and which rule (the keyword's place in the schema), so a
replay that fails says `arguments.amount is 900, more than 500 (inputSchema.properties.amount.maximum)`.
A `pattern` means what it means to Python's `re` and runs through `workbench.patterns`, so it can't
hang a replay: one that has to be stopped raises PatternError naming its place in the schema (the row
is an ERROR). Annotations (`title`, `description`, `default`, `format`, ...) are not checks. Keywords that are checks
but not in the subset (`anyOf`, `$ref`, ...) are reported once, when the tools are loaded, by
`unchecked_keywords`; the rest of the schema is still checked.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ... import jsonio
from ...compare import fits_schema_type, format_path, is_number, strict_equal, type_name
from ...output_paths import MISSING
from ...patterns import PatternError, compile_pattern

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


def _is_type(value: Any, name: str) -> bool:
    return fits_schema_type(value, name) is True


def _show(value: Any) -> str:
    return jsonio.preview(value, 60)


class _Walker:
    """One check of one value; collects failures (the first few are enough to fix a call)."""

    def __init__(self, limit: int = 5) -> None:
        self.failures: list[SchemaFailure] = []
        self.limit = limit

    def fail(self, path: tuple[str | int, ...], message: str, rule: str) -> None:
        if len(self.failures) < self.limit:
            self.failures.append(SchemaFailure(format_path(path, "arguments") if path else "arguments", message, rule))

    def check(self, schema: Any, value: Any, path: tuple[str | int, ...], at: str) -> None:
        if schema is False:
            self.fail(path, "is not allowed", at)
            return
        if not isinstance(schema, dict):
            return  # `true`, or a malformed part reported when the tools were loaded
        if not self._type(schema, value, path, at):
            return  # the other rules would only repeat the type mismatch
        if "enum" in schema and isinstance(schema["enum"], list) and not any(
                strict_equal(value, option) for option in schema["enum"]):
            self.fail(path, f"is {_show(value)}, not one of {_show(schema['enum'])}", f"{at}.enum")
        if "const" in schema and not strict_equal(value, schema["const"]):
            self.fail(path, f"is {_show(value)}, not {_show(schema['const'])}", f"{at}.const")
        if is_number(value):
            self._bounds(schema, value, path, at)
        elif isinstance(value, str):
            self._text(schema, value, path, at)
        elif isinstance(value, list):
            self._array(schema, value, path, at)
        elif isinstance(value, dict):
            self._object(schema, value, path, at)

    def _type(self, schema: dict[str, Any], value: Any, path: tuple[str | int, ...], at: str) -> bool:
        wanted = schema.get("type")
        names = [wanted] if isinstance(wanted, str) else wanted if isinstance(wanted, list) else None
        if not names or any(_is_type(value, name) for name in names if isinstance(name, str)):
            return True
        spelled = " or ".join(str(name) for name in names)
        self.fail(path, f"must be {'an' if spelled[0] in 'aeiou' else 'a'} {spelled}, not {type_name(value)} "
                        f"{_show(value)}", f"{at}.type")
        return False

    def _bounds(self, schema: dict[str, Any], value: Any, path: tuple[str | int, ...], at: str) -> None:
        minimum, maximum = schema.get("minimum"), schema.get("maximum")
        low, high = schema.get("exclusiveMinimum"), schema.get("exclusiveMaximum")
        shown = _show(value)
        if is_number(minimum):
            if low is True and value <= minimum:  # draft 4 spelling: a boolean beside minimum
                self.fail(path, f"is {shown}, not more than {minimum}", f"{at}.exclusiveMinimum")
            elif value < minimum:
                self.fail(path, f"is {shown}, less than {minimum}", f"{at}.minimum")
        if is_number(maximum):
            if high is True and value >= maximum:
                self.fail(path, f"is {shown}, not less than {maximum}", f"{at}.exclusiveMaximum")
            elif value > maximum:
                self.fail(path, f"is {shown}, more than {maximum}", f"{at}.maximum")
        if is_number(low) and value <= low:
            self.fail(path, f"is {shown}, not more than {low}", f"{at}.exclusiveMinimum")
        if is_number(high) and value >= high:
            self.fail(path, f"is {shown}, not less than {high}", f"{at}.exclusiveMaximum")

    def _text(self, schema: dict[str, Any], value: str, path: tuple[str | int, ...], at: str) -> None:
        length = len(value)
        if isinstance(schema.get("minLength"), int) and length < schema["minLength"]:
            self.fail(path, f"is {length} characters long, shorter than {schema['minLength']}", f"{at}.minLength")
        if isinstance(schema.get("maxLength"), int) and length > schema["maxLength"]:
            self.fail(path, f"is {length} characters long, longer than {schema['maxLength']}", f"{at}.maxLength")
        pattern = schema.get("pattern")
        if isinstance(pattern, str):
            try:
                compiled = compile_pattern(pattern)
            except PatternError:
                return  # reported when the tools were loaded
            try:
                matched = compiled.search(value)
            except PatternError as exc:
                raise PatternError(f"{at}.pattern {exc}") from None
            if not matched:
                self.fail(path, f"is {_show(value)}, which does not match {_show(pattern)}", f"{at}.pattern")

    def _array(self, schema: dict[str, Any], value: list[Any], path: tuple[str | int, ...], at: str) -> None:
        if isinstance(schema.get("minItems"), int) and len(value) < schema["minItems"]:
            self.fail(path, f"has {len(value)} items, fewer than {schema['minItems']}", f"{at}.minItems")
        if isinstance(schema.get("maxItems"), int) and len(value) > schema["maxItems"]:
            self.fail(path, f"has {len(value)} items, more than {schema['maxItems']}", f"{at}.maxItems")
        items = schema.get("items")
        if isinstance(items, (dict, bool)):
            for index, item in enumerate(value):
                self.check(items, item, (*path, index), f"{at}.items")

    def _object(self, schema: dict[str, Any], value: dict[str, Any], path: tuple[str | int, ...], at: str) -> None:
        required = schema.get("required")
        if isinstance(required, list):
            for name in required:
                if isinstance(name, str) and name not in value:
                    self.fail((*path, name), "is required but missing", f"{at}.required")
        properties = schema.get("properties")
        properties = properties if isinstance(properties, dict) else {}
        extra = schema.get("additionalProperties", MISSING)
        for key, item in value.items():
            if key in properties:
                self.check(properties[key], item, (*path, key), f"{at}.properties.{key}")
            elif extra is False:
                known = ", ".join(properties) or "none"
                self.fail((*path, key), f"is not a property of this tool (properties: {known})",
                          f"{at}.additionalProperties")
            elif isinstance(extra, dict):
                self.check(extra, item, (*path, key), f"{at}.additionalProperties")


def validate(schema: Any, arguments: Any) -> list[SchemaFailure]:
    """Every way (the first five) `arguments` breaks `schema`; empty when they fit."""
    walker = _Walker()
    walker.check(schema, arguments, (), "inputSchema")
    return walker.failures


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
