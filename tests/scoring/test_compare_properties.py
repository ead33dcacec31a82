"""Property-based tests: on random JSON values the comparator is reflexive and symmetric, agrees with a
plain recursive reference written from the rules, and explains a difference exactly when there is one."""

from __future__ import annotations

import copy
import json
import math

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workbench import jsonio
from workbench.compare import differences, strict_equal

# -- the reference: seed 003 rule 4, written as plainly as possible ------------------------------------------


def reference_equal(a, b) -> bool:
    """Key order ignored; names, casing, types and shape must match; bools are not numbers;
    numbers compare by exact mathematical value (85 == 85.0, 2**64+1 != 2**64); arrays in order."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is bool and type(b) is bool and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b  # Python compares int and float exactly
    if isinstance(a, dict) and isinstance(b, dict):
        return set(a) == set(b) and all(reference_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(reference_equal(x, y) for x, y in zip(a, b, strict=True))
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, str) and isinstance(b, str):
        return a == b
    return False


# -- random JSON values, with the confusable ones over-represented -------------------------------------------

EDGE_INTS = [0, 1, -1, 85, 2**31, 2**53, 2**53 + 1, 2**63 - 1, 2**63, 2**64, 2**64 + 1, -(2**63) - 1, 10**30]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.sampled_from([0, 1, 0.0, 1.0, -0.0, 85, 85.0, True, False, "1", "true", "", None]),
    st.integers(min_value=-(2**80), max_value=2**80),
    st.sampled_from(EDGE_INTS),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(alphabet=st.sampled_from("aAbB1 é\u2028\ud800"), max_size=4),
)
keys = st.text(alphabet=st.sampled_from("aAbBsSuUm_"), min_size=0, max_size=3)
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(keys, inner, max_size=4)),
    max_leaves=16,
)


def _numeric_twin(value, draw):
    """An equal number spelled differently (85 <-> 85.0), or a near miss (n <-> n+1, n <-> bool)."""
    choice = draw(st.integers(0, 3))
    if choice == 0 and isinstance(value, int) and float(value) == value:
        return float(value)
    if choice == 1 and isinstance(value, float) and value.is_integer():
        return int(value)
    if choice == 2 and isinstance(value, int) and not isinstance(value, bool):
        return value + draw(st.sampled_from([1, -1]))
    if choice == 3 and value in (0, 1):
        return not value if isinstance(value, bool) else bool(value)
    return value


@st.composite
def twins(draw):
    """A value and a copy of it with a few spelling changes and, sometimes, a real difference: the pairs
    whose verdict is hard (random pairs are almost always different)."""
    value = draw(json_values)

    def mutate(node):
        if isinstance(node, dict):
            items = list(node.items())
            if draw(st.booleans()):
                items.reverse()  # key order must not matter
            out = {k: mutate(v) for k, v in items}
            if out and draw(st.integers(0, 9)) == 0:
                key = next(iter(out))
                renamed = key.swapcase()
                if renamed not in out:
                    out[renamed] = out.pop(key)  # a casing difference
            return out
        if isinstance(node, list):
            return [mutate(v) for v in node]
        if isinstance(node, (int, float)):
            return _numeric_twin(node, draw) if draw(st.booleans()) else node
        return node

    return value, mutate(copy.deepcopy(value))


pairs = st.one_of(twins(), st.tuples(json_values, json_values))
PROPERTY_SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY_SETTINGS
@given(json_values)
def test_reflexive(value):
    assert strict_equal(value, value)
    assert strict_equal(value, copy.deepcopy(value))
    assert differences(value, copy.deepcopy(value)) == []


@PROPERTY_SETTINGS
@given(pairs)
def test_symmetric(pair):
    a, b = pair
    assert strict_equal(a, b) == strict_equal(b, a)


@PROPERTY_SETTINGS
@given(pairs)
def test_agrees_with_the_plain_recursive_reference(pair):
    a, b = pair
    assert strict_equal(a, b) == reference_equal(a, b)


@PROPERTY_SETTINGS
@given(pairs)
def test_a_difference_is_explained_exactly_when_there_is_one(pair):
    a, b = pair
    found = differences(a, b)
    assert (found == []) == strict_equal(a, b)
    for difference in found:
        assert difference.describe()  # every difference can be put into words


@PROPERTY_SETTINGS
@given(json_values)
def test_round_trip_through_json_text_keeps_the_exact_value(value):
    texts = [json.dumps(value), json.dumps(value, ensure_ascii=False), jsonio.dumps(value)]
    if "\ud800" not in texts[1]:  # a lone surrogate has no UTF-8 bytes; escaped it is fine (texts[0])
        texts.append(texts[1].encode("utf-8"))
    for text in texts:
        parsed = jsonio.loads(text)
        assert strict_equal(parsed, value)
        assert reference_equal(parsed, value)


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=2**53, max_value=2**80), st.integers(min_value=1, max_value=2**20))
def test_big_integers_differing_by_any_amount_are_different_even_after_parsing(n, delta):
    parsed = jsonio.loads(f"[{n}, {n + delta}]")
    assert not strict_equal(parsed[0], parsed[1])
    assert not strict_equal({"n": parsed[0]}, {"n": parsed[1]})
    assert strict_equal(parsed[0], n)


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=-(2**53), max_value=2**53))
def test_an_integer_equals_its_float_spelling(n):
    assert strict_equal({"n": n}, {"n": float(n)})
    assert strict_equal(jsonio.loads(f'{{"n": {n}}}'), jsonio.loads(f'{{"n": {n}.0}}'))
    assert not strict_equal({"n": n}, {"n": str(n)})
    assert math.isfinite(float(n))
