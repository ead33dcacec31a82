"""A row's ground (`IterationReuse.ran_in`, what history's flaky-over-time rule compares) is written with the
reads map its worker's rows share written once (`world.digest_with_shared`): the digest must be the very one
`world.digest` gives for the whole list, so grounds recorded before stay comparable."""

from __future__ import annotations

import gc

import pytest

from workbench.rescoring.world import JsonTexts, digest, digest_with_shared

READS = {"/lib/b.py": "d" * 64, "/lib/a.py": "c" * 64, "/lib/é.py": "e" * 64}
CASES = [
    ["w" * 64, "r" * 64, READS, [["exact", {"type": "x", "b": 1, "a": [1.5, None]}, {"expected": "ü"}, None]], 1.0],
    ["w", "r", {}, [], 0.5],
    ["w", "r", READS, [["ref", None, {"n": 2**70}, "preset"]], 1],  # beyond 64 bits: digest's own fallback
    ["w", "r", READS, [["ref", None, {"s": "\ud800"}, None]], 1.0],  # a lone surrogate: the fallback too
    ["w", "r", {"big": 2**80}, [], 1.0],  # in the shared part
]


@pytest.mark.parametrize("items", CASES)
def test_the_same_digest_as_the_whole_list(items: list[object]):
    texts = JsonTexts()
    assert digest_with_shared(items, 2, texts) == digest(items)
    assert digest_with_shared(items, 2, texts) == digest(items)  # the text remembered gives it again


def test_a_value_freed_is_not_taken_for_the_next_with_its_id():
    texts = JsonTexts()
    seen = []
    for number in range(50):
        reads = {f"/lib/{number}.py": str(number)}  # each freed after its turn: ids get reused
        seen.append(digest_with_shared(["w", "r", reads, [], 1.0], 2, texts) == digest(["w", "r", reads, [], 1.0]))
        del reads
        gc.collect()
    assert all(seen)
