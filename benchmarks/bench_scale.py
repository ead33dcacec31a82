"""Benchmark 5: scale — load, run and score 10,000 and 100,000 rows with a fast target (python worker).

Each size runs in a fresh interpreter so its peak memory (ru_maxrss of workbench's process; the
workers are separate processes of a few MiB each) is its own. Target: 100,000 rows under 1 GiB
peak. One size alone: `python benchmarks/bench_scale.py --child PROJECT` prints JSON.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import ROOT, TRIVIAL_TARGET, Measure, config_for, iterate, trivial_rows, write_project

from workbench.engine import Engine
from workbench.events import ResultReady
from workbench.model import Verdict

CONCURRENCY = 4


def child(root: Path) -> dict[str, float]:
    """Measure one project in this process: load, then run + score, streaming results as they come."""
    config = config_for(root, kind="python", callable="target:add_one", concurrency=CONCURRENCY, timeout=60)
    engine = Engine(config)
    started = time.perf_counter()
    project = engine.load()
    loaded = time.perf_counter()
    streamed = 0

    def on_event(event: object) -> None:
        nonlocal streamed
        if isinstance(event, ResultReady):
            streamed += 1

    report = iterate(engine, project=project, on_event=on_event)
    finished = time.perf_counter()
    assert streamed == len(report.results)
    assert all(r.verdict is Verdict.PASS for r in report.results)
    return {
        "rows": len(report.results),
        "load_s": loaded - started,
        "run_score_s": finished - loaded,
        "total_s": finished - started,
        "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def measure(rows: int, tmp: Path) -> dict[str, float]:
    root = write_project(tmp / f"rows{rows}", trivial_rows(rows), sources={"target.py": TRIVIAL_TARGET})
    out = subprocess.run([sys.executable, __file__, "--child", str(root)], capture_output=True, text=True,
                         check=True, cwd=ROOT, timeout=1800)
    return json.loads(out.stdout)


def run(quick: bool = False) -> list[Measure]:
    measures: list[Measure] = []
    sizes = (10_000,) if quick else (10_000, 100_000)
    with tempfile.TemporaryDirectory(prefix="wb-bench-scale-") as tmp:
        for rows in sizes:
            got = measure(rows, Path(tmp))
            big = rows >= 100_000
            measures.append(Measure(
                "5 scale", f"{rows:,} rows, python worker, concurrency {CONCURRENCY}",
                f"load {got['load_s']:.2f}s + run/score {got['run_score_s']:.2f}s = {got['total_s']:.2f}s "
                f"({got['rows'] / got['total_s']:,.0f} rows/s); peak {got['peak_mib']:.0f} MiB",
                "< 1 GiB peak" if big else "", (got["peak_mib"] < 1024) if big else None))
    measures.extend(tui_first_paint(quick))
    return measures


def tui_first_paint(quick: bool = False) -> list[Measure]:
    """The TUI on 10,000 rows: first paint and responsiveness while rows run (bench_tui.py)."""
    import bench_tui

    return bench_tui.run(quick)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        print(json.dumps(child(Path(sys.argv[2]))))
    else:
        sys.exit("usage: bench_scale.py --child PROJECT  (the suite: python benchmarks/run.py)")
