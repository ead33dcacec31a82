"""Benchmark 1: exact-match throughput — `strict_equal` vs a plain recursive reference vs deepdiff.

Targets: on ≈1 MB outputs at least 3× faster than the reference; never slower on small outputs.
"""

from __future__ import annotations

import random
from decimal import Decimal
from typing import Any

import orjson
from common import Measure, fmt_time, per_call
from deepdiff import DeepDiff

from workbench.compare import strict_equal

CASES_SMALL = ("small equal", "small nearly-equal", "small equal 85 vs 85.0")
CASES_LARGE = ("1 MB equal", "1 MB nearly-equal (last leaf)", "1 MB equal, ints vs floats")


def reference_equal(a: Any, b: Any) -> bool:
    """The same rules written the obvious way: recursive, one node at a time."""
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(reference_equal(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return (isinstance(b, list) and len(a) == len(b)
                and all(reference_equal(x, y) for x, y in zip(a, b, strict=True)))
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    numbers = (int, float, Decimal)
    if isinstance(a, numbers) and isinstance(b, numbers):
        return a == b
    return type(a) is type(b) and a == b


def deepdiff_equal(a: Any, b: Any) -> bool:
    return not DeepDiff(b, a, ignore_order=False, ignore_numeric_type_changes=True)


def small_output() -> dict[str, Any]:
    return {"grade": "PASS", "details": {"rawScore": 85, "band": "distinction", "outOf": 100},
            "tags": ["math", "final"], "passed": True, "note": None}


def large_output(seed: int = 7, target_bytes: int = 1_000_000) -> list[dict[str, Any]]:
    """≈1 MB of realistic JSON: records with strings, numbers, booleans, nested objects and arrays."""
    rng = random.Random(seed)
    records: list[dict[str, Any]] = []
    size = 0
    while size < target_bytes:
        index = len(records)
        record = {
            "id": f"rec-{index:06d}",
            "name": "".join(rng.choice("abcdefghij") for _ in range(12)),
            "score": rng.randint(0, 100),
            "ratio": round(rng.random(), 6),
            "active": rng.random() < 0.5,
            "tags": [rng.choice(["a", "b", "c", "d"]) for _ in range(3)],
            "address": {"city": "Springfield", "zip": f"{rng.randint(10000, 99999)}", "geo": [1.5, -2.25]},
            "parent": None,
        }
        records.append(record)
        size += len(orjson.dumps(record))
    return records


def _copy(value: Any) -> Any:
    return orjson.loads(orjson.dumps(value))  # equal but not identical objects, as in a real run


def _floats(value: Any) -> Any:
    """The same value with every integer written as a float (equal under the rules, different bytes)."""
    if isinstance(value, dict):
        return {k: _floats(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_floats(v) for v in value]
    if isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    return value


def pairs() -> dict[str, tuple[Any, Any]]:
    small = small_output()
    small_changed = _copy(small)
    small_changed["details"]["band"] = "merit"
    large = large_output()
    large_changed = _copy(large)
    large_changed[-1]["address"]["geo"][1] = -2.5
    return {
        "small equal": (small, _copy(small)),
        "small nearly-equal": (small, small_changed),
        "small equal 85 vs 85.0": (small, _floats(small)),
        "1 MB equal": (large, _copy(large)),
        "1 MB nearly-equal (last leaf)": (large, large_changed),
        "1 MB equal, ints vs floats": (large, _floats(large)),
    }


def run(quick: bool = False) -> list[Measure]:
    measures: list[Measure] = []
    min_time = 0.05 if quick else 0.3
    for case, (actual, expected) in pairs().items():
        verdict = strict_equal(actual, expected)
        assert verdict == reference_equal(actual, expected), case
        ours = per_call(lambda a=actual, e=expected: strict_equal(a, e), min_time=min_time)
        ref = per_call(lambda a=actual, e=expected: reference_equal(a, e), min_time=min_time)
        large = case.startswith("1 MB")
        if quick and large:
            dd = None
        else:
            dd = per_call(lambda a=actual, e=expected: deepdiff_equal(a, e), min_time=min_time, repeats=1)
        speedup = ref / ours
        target = "≥ 3× reference" if large else "≥ 1× reference"
        ok = speedup >= (3.0 if large else 1.0)
        vs_dd = f", deepdiff {fmt_time(dd)} ({dd / ours:.0f}× ours)" if dd else ""
        measures.append(Measure("1 comparator", case,
                                f"{fmt_time(ours)}/call, reference {fmt_time(ref)} → {speedup:.1f}×{vs_dd}",
                                target, ok))
    return measures
