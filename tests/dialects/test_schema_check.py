"""The JSON Schema checks both formats share (`dialects/schema_check.py`): the fast yes/no and the errors
never disagree (a value said to fit has no finding, a value said not to fit has one, so a verdict is never
green by the fast path's mistake), a schema is compiled once per content, a user's pattern can't hang a
check, and jsonschema is imported only for a value that doesn't fit."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from typing import Any

import pytest
from helpers.cli import cli_env
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.dialects.replays.schema import validate
from workbench.dialects.schema_check import check_for, findings
from workbench.dialects.uipath.contract import judged

SCHEMAS: list[Any] = [
    {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": ["string", "null"]},
                                      "c": {"type": "array", "items": {"enum": [1, "x", True, None]}}},
     "required": ["a"], "additionalProperties": False},
    {"type": "array", "items": {"type": "object", "additionalProperties": {"type": "number"}}},
    {"enum": [[1], {"k": 0}, 1.5, False]},
    {"type": ["integer", "boolean"]},
]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from([1.5, 2.0, -0.0, "x", "a", ""]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(["a", "b", "c", "k", "A"]), inner,
                                                                 max_size=4),
    max_leaves=12)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(range(len(SCHEMAS))), json_values)
def test_the_fast_yes_no_and_the_errors_agree(index: int, value: Any) -> None:
    check = check_for(SCHEMAS[index])
    errors = list(check.errors(value))
    assert check.fits(value) == (not errors), (SCHEMAS[index], value, [e.message for e in errors])
    assert bool(findings(check, value, hiding=("type",), missing_last=False)) == bool(errors)


def test_a_schema_is_compiled_once_per_content() -> None:
    first = check_for({"type": "object", "properties": {"a": {"type": "string"}}})
    again = check_for(json.loads('{"properties": {"a": {"type": "string"}}, "type": "object"}'))
    assert first is again
    assert check_for({"type": "object", "properties": {"a": {"type": "number"}}}) is not first


def test_the_contract_trusts_what_it_does_not_judge() -> None:
    assert judged({"anyOf": [{"type": "string"}]}) is True
    assert judged({"type": "decimal", "enum": [1]}) == {"enum": [1]}
    assert judged({"type": "object", "properties": {"a": {}}}) == {
        "type": ["object"], "properties": {"a": {}}, "additionalProperties": False}  # the casing trap
    assert judged({"type": "object", "additionalProperties": False}) == {"type": ["object"]}


def test_a_pattern_that_backtracks_for_hours_in_re_does_not_hang_a_replay() -> None:
    started = time.monotonic()
    failures = validate({"type": "object", "properties": {"s": {"pattern": "^(a+)+$"}}}, {"s": "a" * 40 + "!"})
    assert [str(f) for f in failures] == [
        'arguments.s is "' + "a" * 40 + '!", which does not match "^(a+)+$" (inputSchema.properties.s.pattern)']
    assert time.monotonic() - started < 30  # Python's re takes hours; RE2 answers at once


_SNIPPET = """
import sys
from workbench.dialects.replays.schema import validate
schema = {"type": "object", "properties": {"n": {"type": "integer", "maximum": 5}}}
assert validate(schema, {"n": 1}) == []
fast_only = "jsonschema" not in sys.modules
said = [str(f) for f in validate(schema, {"n": 9})]
assert said == ["arguments.n is 9, more than 5 (inputSchema.properties.n.maximum)"], said
print(fast_only, "jsonschema" in sys.modules)
"""


@pytest.mark.process("what a fresh interpreter imports: jsonschema only once a value doesn't fit")
def test_jsonschema_is_imported_only_to_explain_a_value_that_does_not_fit() -> None:
    proc = subprocess.run([sys.executable, "-c", _SNIPPET], env=cli_env(), capture_output=True, text=True,
                          timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["True", "True"]
