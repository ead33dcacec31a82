"""The inputSchema checker: every keyword of the subset MCP tool definitions use, and what a failure says."""

from __future__ import annotations

from typing import Any

import pytest

from workbench.dialects.replays.schema import schema_mistakes, unchecked_keywords, validate


def messages(schema: Any, arguments: Any) -> list[str]:
    return [str(failure) for failure in validate(schema, arguments)]


@pytest.mark.parametrize(("schema", "value", "expected"), [
    ({"type": "string"}, 5, "arguments must be a string, not number 5 (inputSchema.type)"),
    ({"type": "integer"}, 2.5, "arguments must be an integer, not number 2.5 (inputSchema.type)"),
    ({"type": "number"}, True, "arguments must be a number, not boolean true (inputSchema.type)"),
    ({"type": ["string", "null"]}, 1, "arguments must be a string or null, not number 1 (inputSchema.type)"),
    ({"enum": ["low", "high"]}, "mid", 'arguments is "mid", not one of ["low","high"] (inputSchema.enum)'),
    ({"const": 1}, 2, "arguments is 2, not 1 (inputSchema.const)"),
    ({"minimum": 1}, 0, "arguments is 0, less than 1 (inputSchema.minimum)"),
    ({"maximum": 5}, 6, "arguments is 6, more than 5 (inputSchema.maximum)"),
    ({"exclusiveMinimum": 1}, 1, "arguments is 1, not more than 1 (inputSchema.exclusiveMinimum)"),
    ({"exclusiveMaximum": 5}, 5, "arguments is 5, not less than 5 (inputSchema.exclusiveMaximum)"),
    ({"minLength": 3}, "ab", "arguments is 2 characters long, shorter than 3 (inputSchema.minLength)"),
    ({"maxLength": 1}, "ab", "arguments is 2 characters long, longer than 1 (inputSchema.maxLength)"),
    ({"pattern": "^A-"}, "B-1", 'arguments is "B-1", which does not match "^A-" (inputSchema.pattern)'),
    ({"minItems": 1}, [], "arguments has 0 items, fewer than 1 (inputSchema.minItems)"),
    ({"maxItems": 1}, [1, 2], "arguments has 2 items, more than 1 (inputSchema.maxItems)"),
])
def test_each_rule_names_itself(schema: dict[str, Any], value: Any, expected: str) -> None:
    assert messages(schema, value) == [expected]


def test_objects_required_properties_and_additional_properties() -> None:
    schema = {"type": "object", "properties": {"orderId": {"type": "string"}, "lines": {
        "type": "array", "items": {"type": "object", "properties": {"qty": {"type": "integer", "minimum": 1}}}}},
        "required": ["orderId"], "additionalProperties": False}
    assert messages(schema, {"orderId": "A", "lines": [{"qty": 1}]}) == []
    assert messages(schema, {"lines": [{"qty": 0}], "note": "x"}) == [
        "arguments.orderId is required but missing (inputSchema.required)",
        "arguments.lines[0].qty is 0, less than 1 (inputSchema.properties.lines.items.properties.qty.minimum)",
        "arguments.note is not a property of this tool (properties: orderId, lines) "
        "(inputSchema.additionalProperties)",
    ]
    typed_extra = {"type": "object", "additionalProperties": {"type": "number"}}
    assert messages(typed_extra, {"a": 1, "b": "x"}) == [
        'arguments.b must be a number, not string "x" (inputSchema.additionalProperties.type)']


def test_values_that_fit() -> None:
    assert messages({"type": "integer"}, 3.0) == []  # 3.0 is an integer in JSON Schema
    assert messages({"type": "number", "minimum": 0, "maximum": 1}, 1) == []
    assert messages({}, {"anything": [1, "x"]}) == []
    assert messages(True, 1) == []
    assert messages({"enum": [1]}, 1.0) == []
    assert messages({"enum": [1]}, True) == ["arguments is true, not one of [1] (inputSchema.enum)"]


def test_a_wrong_type_is_not_followed_by_the_rules_it_makes_meaningless() -> None:
    assert messages({"type": "string", "minLength": 3, "pattern": "x"}, 7) == [
        "arguments must be a string, not number 7 (inputSchema.type)"]


def test_schema_mistakes_and_unchecked_keywords_are_found_before_any_replay() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "text"}, "b": {"pattern": "("},
                                               "c": {"anyOf": [{"type": "string"}]}}, "required": "a"}
    mistakes = schema_mistakes(schema)
    assert any("inputSchema.properties.a.type must be one of" in m for m in mistakes)
    assert any("inputSchema.properties.b.pattern is not a regular expression" in m for m in mistakes)
    assert "inputSchema.required must be an array, not string" in mistakes
    assert unchecked_keywords(schema) == ["inputSchema.properties.c.anyOf"]
    assert schema_mistakes([1]) == ["inputSchema must be an object (a JSON Schema), not array"]


@pytest.mark.parametrize(("schema", "value", "expected"), [
    (False, 1, ["arguments is not allowed (inputSchema)"]),
    ({"properties": {"a": False}}, {"a": 1}, ["arguments.a is not allowed (inputSchema.properties.a)"]),
    ({"items": False}, [1, 2], ["arguments[0] is not allowed (inputSchema.items)",
                                "arguments[1] is not allowed (inputSchema.items)"]),
    ({"minimum": 1, "exclusiveMinimum": True}, 1, ["arguments is 1, not more than 1 (inputSchema.exclusiveMinimum)"]),
    ({"maximum": 5, "exclusiveMaximum": True}, 5, ["arguments is 5, not less than 5 (inputSchema.exclusiveMaximum)"]),
    ({"minimum": 1, "exclusiveMinimum": False}, 1, []),
    ({"minimum": "1", "maxLength": "2", "required": "a", "enum": "x"}, {"x": 1}, []),
    ({"type": "text"}, "a", ['arguments must be a text, not string "a" (inputSchema.type)']),
    ({"type": ["integer", 7]}, "a", ['arguments must be an integer or 7, not string "a" (inputSchema.type)']),
    ({"properties": {"a": 5, "b": {"type": "string"}}}, {"a": 1, "b": 2},
     ["arguments.b must be a string, not number 2 (inputSchema.properties.b.type)"]),
    ({"enum": [1, 2], "const": 3, "minimum": 5}, 4,
     ["arguments is 4, not one of [1,2] (inputSchema.enum)", "arguments is 4, not 3 (inputSchema.const)",
      "arguments is 4, less than 5 (inputSchema.minimum)"]),
    ({"anyOf": [{"type": "string"}], "$ref": "#/nowhere", "type": "integer"}, 3, []),
])
def test_edges_of_the_subset(schema: Any, value: Any, expected: list[str]) -> None:
    assert messages(schema, value) == expected


def test_failures_read_in_the_arguments_order_and_stop_at_five() -> None:
    schema = {"type": "object", "required": ["z", "y"], "additionalProperties": False,
              "properties": {"b": {"type": "string"}, "a": {"type": "array", "items": {"maximum": 1}}}}
    assert messages(schema, {"a": [5, 0, 7], "q": 1, "b": 3}) == [
        "arguments.z is required but missing (inputSchema.required)",
        "arguments.y is required but missing (inputSchema.required)",
        "arguments.a[0] is 5, more than 1 (inputSchema.properties.a.items.maximum)",
        "arguments.a[2] is 7, more than 1 (inputSchema.properties.a.items.maximum)",
        "arguments.q is not a property of this tool (properties: b, a) (inputSchema.additionalProperties)",
    ]
    assert messages({"items": {"type": "string"}}, list(range(9))) == [
        f"arguments[{index}] must be a string, not number {index} (inputSchema.items.type)" for index in range(5)]


def test_a_pattern_that_must_be_stopped_names_its_place(monkeypatch: pytest.MonkeyPatch) -> None:
    from workbench.dialects.replays import schema as module

    class Stuck:
        def search(self, value: str) -> None:
            raise module.PatternError("took too long")

    monkeypatch.setattr(module, "compile_pattern", lambda source: Stuck())
    with pytest.raises(module.PatternError, match=r"^inputSchema\.properties\.a\.pattern took too long"):
        validate({"properties": {"a": {"pattern": "x"}}}, {"a": "y"})
