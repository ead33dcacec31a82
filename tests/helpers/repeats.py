"""Targets for the repeat and flaky tests, written into a fixture project as files.

`SEEDED`: passes with probability `p` (the row's input), seeded by the row and the sample workbench names in
WORKBENCH_SAMPLE — the same row and sample always answer the same, so k/N is known in advance
(`seeded_passes`). `ALTERNATING`: answers by how many times it ran before (a counter file outside the
project that it only appends to and `os.stat`s, neither of which is a read the audit sees), so its verdict
flips between iterations while nothing it depends on changes.
"""

from __future__ import annotations

import hashlib

SEEDED = '''\
import hashlib, json, os, sys
inputs = json.load(sys.stdin)
seed = f"{os.environ['WORKBENCH_ROW_ID']}:{os.environ.get('WORKBENCH_SAMPLE', 'none')}"
draw = int(hashlib.sha256(seed.encode()).hexdigest()[:8], 16) / 0x100000000
print(f"drawing sample {os.environ.get('WORKBENCH_SAMPLE')}", file=sys.stderr)
print(json.dumps({"ok": draw < inputs["p"]}))
'''

ALTERNATING = '''\
import json, os, sys
json.load(sys.stdin)
counter = os.environ["COUNTER_FILE"]
runs = os.stat(counter).st_size if os.path.exists(counter) else 0
with open(counter, "a") as handle:
    handle.write("x")
print(json.dumps({"ok": runs % 2 == 1}))
'''


def seeded_passes(row_id: str, p: float, samples: int) -> list[bool]:
    """Which samples of `row_id` the seeded target passes (the target's own draw, here)."""
    draws = [int(hashlib.sha256(f"{row_id}:{index}".encode()).hexdigest()[:8], 16) / 0x100000000
             for index in range(samples)]
    return [draw < p for draw in draws]


def seeded_row_with(passing: int, samples: int = 5, p: float = 0.6) -> str:
    """A row id whose samples pass exactly `passing` of `samples` times under the seeded target."""
    for number in range(10_000):
        row_id = f"row-{number}"
        if sum(seeded_passes(row_id, p, samples)) == passing:
            return row_id
    raise AssertionError(f"no row id passes {passing}/{samples}")
