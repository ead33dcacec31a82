"""The position-tracking scanner and the surgical edits built on it, including on random documents."""

from __future__ import annotations

import json
from typing import Any

import pytest
from helpers.writeback import changed_region
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workbench.writeback import jsonspan
from workbench.writeback.edit import AppendItem, SetValue, apply_ops
from workbench.writeback.errors import WritebackError
from workbench.writeback.style import detect

TRICKY = (b'{"a": "x}]\\"{[", "b\\u00e9": [1, {"c": "\\\\"}, []], "a": {"d": null},\n'
          b' "e": -1.5e+3, "f": true, "g": "caf\xc3\xa9 \xf0\x9f\x99\x82"}')


def text_at(data: bytes, path: list[str | int]) -> Any:
    span = jsonspan.find(data, path)
    assert span is not None
    return json.loads(span.text(data))


def test_spans_ignore_brackets_and_quotes_inside_strings():
    assert text_at(TRICKY, ["b\u00e9", 1, "c"]) == "\\"
    assert text_at(TRICKY, ["b\u00e9", 2]) == []
    assert text_at(TRICKY, ["e"]) == -1500.0
    assert text_at(TRICKY, ["g"]) == "café 🙂"


def test_a_repeated_key_means_its_last_occurrence_as_parsers_do():
    assert text_at(TRICKY, ["a"]) == {"d": None} == json.loads(TRICKY)["a"]


def test_missing_steps_report_how_far_the_path_reaches():
    walked = jsonspan.walk(TRICKY, ["a", "d", "deeper"])
    assert walked.reached == 2
    assert jsonspan.find(TRICKY, ["b\u00e9", 7]) is None
    assert jsonspan.find(TRICKY, ["nope"]) is None


def test_nesting_far_deeper_than_the_recursion_limit():
    depth = 5000
    data = b'{"k": ' + b"[" * depth + b'"deep"' + b"]" * depth + b', "after": 1}'
    assert text_at(data, ["after"]) == 1
    edited = jsonspan.find(data, ["k"])
    assert edited is not None and edited.end == len(data) - len(b', "after": 1}')


def test_a_byte_order_mark_is_kept_and_skipped():
    data = b'\xef\xbb\xbf{"a": 1}\n'
    doc = {"a": 1}
    after = apply_ops(data, doc, [SetValue(("a",), 2)], detect(data))
    assert after == b'\xef\xbb\xbf{"a": 2}\n'


def test_an_index_that_does_not_exist_is_refused():
    data = b'{"rows": [1]}'
    with pytest.raises(WritebackError, match="array index 3"):
        apply_ops(data, {"rows": [1]}, [SetValue(("rows", 3), 2)], detect(data))


def test_a_non_object_in_the_way_is_replaced_like_set_path_does():
    data = b'{\n  "e": {\n    "x": "plain string"\n  }\n}\n'
    after = apply_ops(data, json.loads(data), [SetValue(("e", "x", "a", "b"), 1)], detect(data))
    assert json.loads(after) == {"e": {"x": {"a": {"b": 1}}}}
    assert after.startswith(b'{\n  "e": {\n    "x": ')


def test_lone_surrogates_are_written_as_escapes_never_as_invalid_utf8():
    data = b'{"a": 1}'
    after = apply_ops(data, {"a": 1}, [SetValue(("a",), "\ud800x")], detect(data))
    assert after == b'{"a": "\\ud800x"}'
    after.decode("utf-8")


def test_huge_integers_keep_every_digit():
    data = b'{"a": 1}'
    big = 10**30 + 7
    after = apply_ops(data, {"a": 1}, [SetValue(("a",), {"n": big})], detect(data))
    assert str(big).encode() in after


# -- random documents -------------------------------------------------------------------------------

scalars = st.one_of(st.none(), st.booleans(), st.integers(-(10**20), 10**20),
                    st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=8))
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=4)), max_leaves=25)
documents = st.dictionaries(st.text(max_size=6), values, min_size=1, max_size=5)
layouts = st.sampled_from([None, 2, 4, "\t"])


def paths_of(value: Any, prefix: tuple[str | int, ...] = ()) -> list[tuple[str | int, ...]]:
    found = [prefix]
    if isinstance(value, dict):
        for key, child in value.items():
            found += paths_of(child, (*prefix, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            found += paths_of(child, (*prefix, index))
    return found


def get(value: Any, path: tuple[str | int, ...]) -> Any:
    for step in path:
        value = value[step]
    return value


def dump(doc: Any, indent: Any, crlf: bool) -> bytes:
    text = json.dumps(doc, indent=indent, ensure_ascii=False)
    return (text.replace("\n", "\r\n") if crlf else text).encode("utf-8", errors="surrogatepass")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=documents, indent=layouts, crlf=st.booleans())
def test_every_span_holds_exactly_its_value(doc, indent, crlf):
    data = dump(doc, indent, crlf)
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return  # lone surrogates dumped raw: not a file a user could have
    for path in paths_of(doc):
        span = jsonspan.find(data, list(path))
        assert span is not None
        assert json.loads(span.text(data)) == get(doc, path)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=documents, indent=layouts, crlf=st.booleans(), new=values, data_choice=st.data())
def test_setting_any_value_changes_only_its_span(doc, indent, crlf, new, data_choice):
    data = dump(doc, indent, crlf)
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return
    path = data_choice.draw(st.sampled_from(paths_of(doc)[1:]))
    span = jsonspan.find(data, list(path))
    after = apply_ops(data, doc, [SetValue(path, new)], detect(data))
    tail = len(data) - span.end
    assert after[:span.start] == data[:span.start]
    assert after[len(after) - tail:] == data[span.end:]
    written = after[span.start:len(after) - tail]
    assert json.loads(written) == json.loads(json.dumps(new))
    if crlf:
        assert written.count(b"\n") == written.count(b"\r\n")
    else:
        assert b"\r" not in written


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=documents, indent=layouts, crlf=st.booleans(), item=values)
def test_appending_only_adds_bytes(doc, indent, crlf, item):
    doc = {**doc, "rows": list(doc.values())[:3]}
    data = dump(doc, indent, crlf)
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return
    after = apply_ops(data, doc, [AppendItem(("rows",), item)], detect(data))
    assert json.loads(after)["rows"][-1] == json.loads(json.dumps(item))
    first, last_before, _ = changed_region(data, after)
    assert first == last_before, "existing bytes changed"
