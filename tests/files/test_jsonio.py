"""jsonio: where orjson and Python's json disagree, workbench must give the exact, strict answer."""

from __future__ import annotations

import json
from decimal import Decimal

import orjson
import pytest

from workbench import jsonio
from workbench.compare import strict_equal
from workbench.jsonio import JsonError

# -- big integers: orjson turns integers beyond 64 bits into floats; workbench keeps them exact ----------


@pytest.mark.parametrize("number", [2**64 + 1, 2**64, -(2**63) - 1, 10**30 + 7, -(10**40) - 3, 2**63 - 1])
def test_big_integers_keep_their_exact_value(number):
    text = json.dumps({"n": number, "nested": [{"m": number}]})
    value = jsonio.loads(text)
    assert value == {"n": number, "nested": [{"m": number}]}
    assert type(value["n"]) is int and type(value["nested"][0]["m"]) is int


def test_the_orjson_big_int_edge_is_really_covered():
    # The reason jsonio exists: orjson alone would make these two different integers the same float.
    fast = orjson.loads(b"[18446744073709551617, 18446744073709551616]")
    assert fast[0] == fast[1], "orjson changed behaviour; revisit jsonio's big-int handling"
    exact = jsonio.loads(b"[18446744073709551617, 18446744073709551616]")
    assert exact == [2**64 + 1, 2**64]
    assert not strict_equal(exact[0], exact[1])


def test_a_long_digit_run_inside_a_string_changes_nothing():
    value = jsonio.loads('{"id": "123456789012345678901234", "n": 1, "f": 0.5}')
    assert value == {"id": "123456789012345678901234", "n": 1, "f": 0.5}


def test_floats_keep_their_exact_double():
    assert jsonio.loads("0.30000000000000004") == 0.30000000000000004
    assert jsonio.loads("[0.1000000000000000055511151231257827]") == [0.1]


# -- numbers too large for a double ---------------------------------------------------------------------


def test_1e400_keeps_its_value_instead_of_becoming_infinity():
    value = jsonio.loads('{"big": 1e400, "neg": -1e400}')
    assert value == {"big": Decimal("1e400"), "neg": Decimal("-1e400")}
    assert not strict_equal(jsonio.loads("1e400"), jsonio.loads("2e400")), "two different huge numbers"
    assert strict_equal(jsonio.loads("1e400"), jsonio.loads("1E+400"))


def test_huge_numbers_serialize_back_exactly():
    value = {"big": jsonio.loads("1e400"), "int": 2**70 + 1}
    text = jsonio.dumps(value)
    assert "1E+400" in text and str(2**70 + 1) in text
    assert jsonio.loads(text) == value


# -- NaN / Infinity are not JSON --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "token", "line", "column"),
    [
        ("NaN", "NaN", 1, 1),
        ("[1, NaN]", "NaN", 1, 5),
        ('{"a":\n  Infinity}', "Infinity", 2, 3),
        ('{"x": -Infinity}', "-Infinity", 1, 7),
        # The word inside a string is data, not the culprit: the position is the bare token's.
        ('{"note": "NaN here", "x": NaN}', "NaN", 1, 27),
        ('{"a": "Infinity \\" and more",\n "b": Infinity}', "Infinity", 2, 7),
    ],
)
def test_nan_and_infinity_are_refused_with_line_and_column(text, token, line, column):
    with pytest.raises(JsonError) as info:
        jsonio.loads(text)
    assert token in info.value.message and "not valid JSON" in info.value.message
    assert (info.value.line, info.value.column) == (line, column)
    assert f"line {line}, column {column}" in str(info.value)


def test_the_strings_nan_and_infinity_are_fine():
    assert jsonio.loads('["NaN", "Infinity", "-Infinity"]') == ["NaN", "Infinity", "-Infinity"]


# -- encodings --------------------------------------------------------------------------------------------


def test_a_utf8_bom_is_accepted_and_reported():
    parsed = jsonio.parse(b'\xef\xbb\xbf{"a": 1}')
    assert parsed.value == {"a": 1} and parsed.had_bom
    parsed = jsonio.parse('\ufeff{"a": 1}')
    assert parsed.value == {"a": 1} and parsed.had_bom
    assert not jsonio.parse(b'{"a": 1}').had_bom


def test_lone_surrogates_are_valid_json_and_survive_a_round_trip():
    value = jsonio.loads('{"s": "\\ud800x", "pair": "\\ud83d\\ude00"}')
    assert value == {"s": "\ud800x", "pair": "\U0001f600"}
    assert jsonio.loads(jsonio.dumps(value)) == value
    assert json.loads(jsonio.dumps_bytes(value).decode("utf-8", errors="surrogatepass")) == value


def test_bytes_for_a_target_are_strict_utf8_even_with_a_lone_surrogate():
    value = {"s": "\ud800x", "big": 2**70, "é": "✓"}
    data = jsonio.dumps_bytes(value)
    assert json.loads(data.decode("utf-8")) == value  # strict decode: no invalid bytes on a target's stdin
    assert jsonio.loads(data) == value


def test_invalid_utf8_names_the_byte():
    with pytest.raises(JsonError) as info:
        jsonio.loads(b'{"a": "\xff"}')
    assert "UTF-8" in info.value.message and "0xff" in info.value.message
    assert info.value.line == 1


# -- structure --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("depth", [100_000, 5_000])
def test_deep_nesting_is_a_json_error_not_a_recursion_error(depth):
    text = "[" * depth + "]" * depth
    with pytest.raises(JsonError) as info:
        jsonio.loads(text)
    assert "nested" in str(info.value)


def test_unbalanced_deep_nesting_is_a_json_error():
    with pytest.raises(JsonError):
        jsonio.loads("{\"a\":" * 50_000)


def test_moderate_nesting_parses():
    text = "[" * 500 + "1" + "]" * 500
    value = jsonio.loads(text)
    for _ in range(500):
        value = value[0]
    assert value == 1


@pytest.mark.parametrize(
    "text",
    ['{"a": 1, "b": 2, "a": 3}',
     # with a big integer present the slow (exact) parser runs; it must agree
     '{"a": 1, "big": 18446744073709551617, "a": 3}'],
)
def test_duplicate_keys_keep_the_last_value_like_javascript(text):
    value = jsonio.loads(text)
    assert value["a"] == 3
    assert list(value).count("a") == 1


@pytest.mark.parametrize("text", ["", b"", "   \n\t", b"\xef\xbb\xbf"])
def test_empty_input_is_a_clear_error(text):
    with pytest.raises(JsonError) as info:
        jsonio.loads(text)
    assert "empty" in info.value.message
    assert (info.value.line, info.value.column) == (1, 1)


@pytest.mark.parametrize(
    ("text", "line", "column"),
    # a trailing comma is placed at the comma, the character to remove (issue 38), not at the `]` after it
    [("[1,]", 1, 3), ("{'a': 1}", 1, 2), ('{"a": 1}\n garbage', 2, 2), ('{\n  "a": 1,\n  "b": }', 3, 8)],
)
def test_syntax_errors_carry_line_and_column(text, line, column):
    with pytest.raises(JsonError) as info:
        jsonio.loads(text)
    assert (info.value.line, info.value.column) == (line, column)


def test_json_error_is_a_value_error_and_never_anything_else():
    for bad in ["nan", "{", "[1 2]", b"\x00", "01", "1.", "-", '"\\x"', '"unterminated']:
        with pytest.raises(JsonError):
            jsonio.loads(bad)
    assert issubclass(JsonError, ValueError)


def test_dumps_is_valid_json_for_everything_the_parser_returns():
    value = {"big": 2**100, "neg": -(2**64), "f": 85.0, "t": True, "n": None, "u": "é\u2028", "l": [1, [2]]}
    assert json.loads(jsonio.dumps(value)) == value
    assert json.loads(jsonio.dumps(value, indent=True, sort_keys=True)) == value
    assert jsonio.loads(jsonio.dumps_bytes(value)) == value


def test_loads_object_tells_not_json_from_json_of_another_type():
    assert jsonio.loads_object(b'\xef\xbb\xbf{"a": 1}') == {"a": 1}
    for other in ["[1]", '"text"', "1", "null"]:
        with pytest.raises(jsonio.NotAnObject):
            jsonio.loads_object(other)
    with pytest.raises(JsonError) as info:
        jsonio.loads_object("{")
    assert not isinstance(info.value, jsonio.NotAnObject)
    assert issubclass(jsonio.NotAnObject, JsonError)


def test_a_syntax_errors_excerpt_is_its_line_with_a_caret_under_the_column() -> None:
    with pytest.raises(jsonio.JsonError) as caught:
        jsonio.loads('{"a": [1,\n\t2,,3]}')
    assert (caught.value.line, caught.value.column) == (2, 4)
    assert caught.value.excerpt == ("    2 |  2,,3]}", "      |    ^")  # the tab shown as one space


def test_a_long_lines_excerpt_is_cut_around_the_column() -> None:
    text = "[" + "1," * 300 + "x]"
    with pytest.raises(jsonio.JsonError) as caught:
        jsonio.loads(text)
    shown, caret = caught.value.excerpt
    assert shown.startswith("    1 | …") and len(shown) < 120
    assert shown[caret.index("^")] == "x"
    assert jsonio.excerpt_at("one line", 2, 1) == ()
