"""Benchmark 2: runner overhead — rows of a target that sleeps a fixed time, at several concurrencies.

Reports wall time / ideal wall time, where ideal = ceil(rows / concurrency) × sleep: everything
above 1.0 is workbench (load, spawn, IPC, scoring, events). Target: within 15% at concurrency 8.
The command runner pays a process per row; the python runner a process per worker.
"""

from __future__ import annotations

import math
import tempfile
import time
from pathlib import Path

from common import Measure, config_for, iterate, write_project

from workbench.engine import Engine
from workbench.model import Verdict

SLEEP_S = 0.2
SLEEPER = f'''\
import json
import sys
import time


def sleep(inputs):
    time.sleep({SLEEP_S})
    return {{"ok": True}}


if __name__ == "__main__":
    json.load(sys.stdin)
    print(json.dumps(sleep({{}})))
'''


def _wall(root: Path, concurrency: int, mode: str) -> float:
    if mode == "command (sh)":
        # A shell sleeper: no interpreter start-up, so the ratio is workbench's per-process cost.
        config = config_for(root, kind="command", concurrency=concurrency, timeout=30,
                            command=["sh", "-c", f"cat >/dev/null; sleep {SLEEP_S}; echo '{{\"ok\": true}}'"])
    elif mode == "command (python)":
        config = config_for(root, kind="command", concurrency=concurrency, timeout=30,
                            command=["{python}", "sleeper.py"])
    else:
        config = config_for(root, kind="python", callable="sleeper:sleep", concurrency=concurrency, timeout=30)
    started = time.perf_counter()
    report = iterate(Engine(config))
    wall = time.perf_counter() - started
    assert all(r.verdict is Verdict.PASS for r in report.results), report.results[0].detail
    return wall


TARGETED = (8, 64, "python (worker)")  # concurrency 8, eight waves


def run(quick: bool = False) -> list[Measure]:
    """Each mode at each (concurrency, rows). Two row counts at concurrency 8 separate the fixed cost
    of an iteration (starting 8 interpreters on 2 cores) from the cost per row (the slope)."""
    measures: list[Measure] = []
    plans = [(8, 16), (8, 64)] if quick else [(1, 8), (4, 32), (8, 16), (8, 64), (16, 64)]
    modes = ["python (worker)", "command (sh)", "command (python)"]
    walls: dict[tuple[int, int, str], float] = {}
    with tempfile.TemporaryDirectory(prefix="wb-bench-runner-") as tmp:
        for concurrency, rows in plans:
            root = Path(tmp) / f"c{concurrency}-{rows}"
            write_project(root, [({"i": i}, {"ok": True}) for i in range(rows)], sources={"sleeper.py": SLEEPER})
            ideal = math.ceil(rows / concurrency) * SLEEP_S
            for mode in modes:
                wall = walls[concurrency, rows, mode] = _wall(root, concurrency, mode)
                ratio = wall / ideal
                targeted = (concurrency, rows, mode) == TARGETED
                measures.append(Measure(
                    "2 runner overhead", f"{mode}, {rows} rows × {SLEEP_S}s, concurrency {concurrency}",
                    f"wall {wall:.2f}s / ideal {ideal:.2f}s = {ratio:.2f}", "≤ 1.15" if targeted else "",
                    (ratio <= 1.15) if targeted else None))
    for mode in modes:
        few, many = walls[8, 16, mode], walls[8, 64, mode]
        per_wave = (many - few) / 6  # 8 waves minus 2 waves
        fixed = few - 2 * per_wave
        measures.append(Measure("2 runner overhead", f"{mode}, concurrency 8: fixed vs per-row cost",
                                f"fixed {fixed * 1000:.0f} ms per iteration; per wave of 8 rows "
                                f"{(per_wave - SLEEP_S) * 1000:+.0f} ms beyond the {SLEEP_S}s sleep"))
    return measures
