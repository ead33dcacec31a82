"""Benchmark 8: rows on a Ray cluster — what running a row through Ray costs workbench.

The same 200 rows of a target that sleeps 0.5 s, run locally at concurrency 4 and on a local Ray
with 4 CPUs (`[cluster] engine = "ray"`, `address = "local"`, `max_in_flight = 4`). Both ideals are
ceil(200 / 4) × 0.5 s = 25 s; what is above it, spread over the rows a slot runs, is the per-row
overhead: locally a process per row; on Ray also a task (scheduling, arguments and the outcome
through the object store, a fresh event loop and runner on the worker). Measured twice on the
cluster: the first iteration (the project shipped, Ray's workers started) and a second one (both
already done), after connecting (starting the local Ray, timed on its own).

The target is a `sh` sleeper, so no interpreter start-up is measured; the python-callable variant
(`kind = "python"`, actors that keep the target process) is measured too, 200 rows at 4 in flight.
`python benchmarks/bench_cluster.py [--quick]`; skipped when Ray is not installed.
"""

from __future__ import annotations

import asyncio
import math
import sys
import tempfile
import time
from pathlib import Path

from common import Measure, config_for, iterate, write_project

from workbench.cluster.connection import connect, disconnect
from workbench.config import Config
from workbench.engine import Engine
from workbench.events import Trigger
from workbench.model import Verdict

SLEEP_S = 0.5
SLOTS = 4
SH_SLEEPER = ["sh", "-c", f"cat >/dev/null; sleep {SLEEP_S}; echo '{{\"ok\": true}}'"]
PY_SLEEPER = f'''\
import time


def sleep(inputs):
    time.sleep({SLEEP_S})
    return {{"ok": True}}
'''


def _config(root: Path, kind: str, cluster: bool) -> Config:
    runner = {"kind": "command", "command": SH_SLEEPER} if kind == "command" else \
        {"kind": "python", "callable": "sleeper:sleep"}
    config = config_for(root, concurrency=SLOTS, timeout=60, preload=False, **runner)
    if cluster:
        config.cluster.engine, config.cluster.address, config.cluster.max_in_flight = "ray", "local", SLOTS
    return config


def _wall(config: Config) -> float:
    started = time.perf_counter()
    report = iterate(Engine(config))
    wall = time.perf_counter() - started
    bad = [r for r in report.results if r.verdict is not Verdict.PASS]
    assert not bad, bad[0].detail
    return wall


def _two_walls(config: Config) -> tuple[float, float]:
    """Two iterations in one loop, the second on the first one's runner (as the watch loop keeps it when
    only evals/ changed): for the python kind, its actors and target processes are already up."""
    engine = Engine(config)
    engine.keep_runners = True

    async def both() -> tuple[float, float]:
        walls = []
        try:
            for _ in range(2):
                started = time.perf_counter()
                report = await engine.run_iteration(Trigger("run"), reuse={})
                walls.append(time.perf_counter() - started)
                assert all(r.verdict is Verdict.PASS for r in report.results), report.results[0].detail
        finally:
            await engine.aclose()
        return walls[0], walls[1]

    return asyncio.run(both())


def _line(case: str, rows: int, wall: float) -> Measure:
    ideal = math.ceil(rows / SLOTS) * SLEEP_S
    per_row = (wall - ideal) * SLOTS / rows
    return Measure("8 cluster", f"{case}, {rows} rows × {SLEEP_S}s, {SLOTS} at once",
                   f"wall {wall:.2f}s / ideal {ideal:.2f}s = {wall / ideal:.2f}; {per_row * 1000:.0f} ms per row")


def _fixed(case: str, seconds: float) -> Measure:
    return Measure("8 cluster", case, f"+{seconds:.2f}s once")


def run(quick: bool = False) -> list[Measure]:
    try:
        import ray  # noqa: F401 - only to know whether it is installed
    except ImportError:
        return [Measure("8 cluster", "skipped", "Ray is not installed (pip install -e '.[ray]')")]
    rows = 40 if quick else 200
    measures: list[Measure] = []
    with tempfile.TemporaryDirectory(prefix="wb-bench-cluster-") as tmp:
        root = write_project(Path(tmp), [({"i": i}, {"ok": True}) for i in range(rows)],
                             sources={"sleeper.py": PY_SLEEPER})
        measures.append(_line("local, sh process per row", rows, _wall(_config(root, "command", False))))
        started = time.perf_counter()
        connect(_config(root, "command", True))
        measures.append(Measure("8 cluster", f"start a local Ray ({SLOTS} CPUs)",
                                f"{time.perf_counter() - started:.2f}s"))
        try:
            first = _wall(_config(root, "command", True))
            measures.append(_line("Ray tasks, first iteration", rows, first))
            wall = _wall(_config(root, "command", True))
            measures.append(_line("Ray tasks, project already shipped", rows, wall))
            measures.append(_fixed("Ray tasks, first iteration: ship the project, start workers", first - wall))
            measures.append(_line("local, python worker", rows, _wall(_config(root, "python", False))))
            first, kept = _two_walls(_config(root, "python", True))
            measures.append(_line("Ray actors, python worker, actors kept", rows, kept))
            measures.append(_fixed("Ray actors, first iteration: start the actors and targets", first - kept))
        finally:
            disconnect()
    return measures


if __name__ == "__main__":
    for measure in run("--quick" in sys.argv):
        print(f"{measure.case:60} {measure.value}")
