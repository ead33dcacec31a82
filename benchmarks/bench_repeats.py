"""Benchmark 11: repeats — `[runner] repeat = 5` on the 200-row preloaded project (a plain Python script,
`{"x": N} → {"y": 2N}`, forked from the warm parent) costs at most 5.5× one run of it: samples share the
iteration's warm parent and runner, and nothing per sample is paid beyond the run itself and its scoring.

Each wall time is the best of three iterations (the 2-core machine is shared), at the default concurrency.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from common import Measure, config_for, iterate, write_project

from workbench.engine import Engine

DOUBLER = '''\
import json
import sys

data = json.load(sys.stdin)
print(json.dumps({"y": data["x"] * 2}))
'''


def _wall(root: Path, repeat: int, rows: int, tries: int) -> float:
    config = config_for(root, kind="command", command=[sys.executable, "doubler.py"], timeout=60, preload=True,
                        repeat=repeat)
    best = float("inf")
    for _ in range(tries):
        started = time.perf_counter()
        report = iterate(Engine(config))
        best = min(best, time.perf_counter() - started)
        assert len(report.results) == rows and all(r.passed for r in report.results), report.results[0].detail
        assert all(len(r.samples) == (repeat if repeat > 1 else 0) for r in report.results)
    return best


def run(quick: bool = False) -> list[Measure]:
    rows, tries = (40, 1) if quick else (200, 3)
    with tempfile.TemporaryDirectory(prefix="wb-bench-repeat-") as tmp:
        root = write_project(Path(tmp) / "p", [({"x": i}, {"y": i * 2}) for i in range(rows)],
                             sources={"doubler.py": DOUBLER})
        _wall(root, 1, rows, 1)  # warm the file caches and the interpreter's imports
        once = _wall(root, 1, rows, tries)
        five = _wall(root, 5, rows, tries)
    ratio = five / once
    return [Measure("11 repeats", f"{rows} rows preloaded, repeat = 5 vs one run",
                    f"repeat 5 {five:.2f}s, one run {once:.2f}s ({ratio:.2f}×)", "≤ 5.5×", ratio <= 5.5)]


if __name__ == "__main__":
    for measure in run("--quick" in sys.argv):
        print(f"{measure.case}: {measure.value} (target {measure.target}: {measure.status})")
