"""Benchmark 3: worker vs per-row process — rows/second for a trivial Python target in each mode.

Targets: worker mode ≥ 20× the rows/s of a process per row, and ≥ 2,000 rows/s end to end (load,
run, score and record the iteration in the history store). A runner that does no work at all
shows what the engine itself costs per row.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from pathlib import Path

from common import TRIVIAL_TARGET, Measure, config_for, iterate, trivial_rows, write_project

from workbench.config import Config
from workbench.engine import Engine
from workbench.history import HistoryStore
from workbench.model import Verdict
from workbench.runners import Runner, RunOutcome, RunRequest, make_runner

CONCURRENCY = 4


class NullRunner(Runner):
    """Answers instantly in-process: what is left is the engine's own cost per row."""

    async def run(self, request: RunRequest, on_log: object = None) -> RunOutcome:
        return RunOutcome(output={"y": request.inputs["x"] + 1})


def _iterate(config: Config, *, record: bool = False, null: bool = False) -> tuple[float, int]:
    engine = Engine(config, NullRunner) if null else Engine(config)
    started = time.perf_counter()
    report = iterate(engine)
    if record:
        with HistoryStore.open(config) as store:
            store.record(report)
    wall = time.perf_counter() - started
    bad = [r for r in report.results if r.verdict is not Verdict.PASS]
    assert not bad, bad[0].detail
    return wall, len(report.results)


def round_trip(config: Config, rows: int) -> float:
    """Seconds per row for one worker answering rows one after another, the runner alone (no engine):
    workbench's request + reply handling plus two pipe hops and the target's trivial work."""

    async def main() -> float:
        runner = make_runner(config)
        try:
            request = RunRequest(inputs={"x": 1}, row_id="r", row_name="r", set_file="s.json", scope="default")
            await runner.run(request)  # start the worker first
            started = time.perf_counter()
            for _ in range(rows):
                outcome = await runner.run(request)
                assert outcome.ok, outcome.error
            return (time.perf_counter() - started) / rows
        finally:
            await runner.aclose()

    return asyncio.run(main())


def run(quick: bool = False) -> list[Measure]:
    per_row_rows, worker_rows = (60, 2000) if quick else (300, 10000)
    measures: list[Measure] = []
    with tempfile.TemporaryDirectory(prefix="wb-bench-worker-") as tmp:
        small = write_project(Path(tmp) / "small", trivial_rows(per_row_rows), sources={"target.py": TRIVIAL_TARGET})
        big = write_project(Path(tmp) / "big", trivial_rows(worker_rows), sources={"target.py": TRIVIAL_TARGET})
        command = config_for(small, kind="command", command=["{python}", "target.py"], concurrency=CONCURRENCY)
        wall, rows = _iterate(command)
        per_row = rows / wall
        measures.append(Measure("3 worker vs process", f"process per row, {rows} rows, concurrency {CONCURRENCY}",
                                f"{per_row:,.0f} rows/s"))
        python = config_for(big, kind="python", callable="target:add_one", concurrency=CONCURRENCY)
        wall, rows = _iterate(python)
        worker = rows / wall
        measures.append(Measure("3 worker vs process", f"python worker, {rows} rows, concurrency {CONCURRENCY}",
                                f"{worker:,.0f} rows/s = {worker / per_row:.0f}× per-row processes",
                                "≥ 20×", worker / per_row >= 20))
        wall, rows = _iterate(python, record=True)
        measures.append(Measure("3 worker vs process", f"python worker end to end (load+run+score+record), {rows} rows",
                                f"{rows / wall:,.0f} rows/s", "≥ 2,000 rows/s", rows / wall >= 2000))
        serial = config_for(big, kind="python", callable="target:add_one", concurrency=1)
        measures.append(Measure("3 worker vs process", "python worker round trip, one row at a time, runner alone",
                                f"{round_trip(serial, worker_rows // 5) * 1e6:.0f} µs per row"))
        wall, rows = _iterate(python, null=True)
        measures.append(Measure("3 worker vs process", f"engine alone (instant in-process runner), {rows} rows",
                                f"{rows / wall:,.0f} rows/s = {wall / rows * 1e6:.0f} µs per row"))
    return measures
