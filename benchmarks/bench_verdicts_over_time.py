"""Benchmark 12: verdicts over time (issue 24) — failing rows first, and the snapshot store's size.

(a) Failing rows first: 1,000 rows of a `kind = "python"` target that sleeps 1 s, concurrency 4, in 10 set
    files of 100 rows; the only failing row is the last one of the last file. The watch loop runs (a real
    `Session.watch`); after its first iteration, a code edit (a comment in the target's module, so every
    row runs again) is saved, and the time from the save to that row's verdict is measured. Target: under
    1.5 s. Before issue 24 the row came back last: about rows × 1 s ÷ 4 = 250 s (`--old-order` measures it:
    the session's remembered verdicts are forgotten before the save, which is the old file order).
    The first iteration runs every row at once (the target sleeps only while a flag file outside the project
    is absent), so the setup doesn't take 250 s; `--slow-first` makes it the literal 1 s per row too.
    `--quick`: 100 rows (a reduced form).
(b) The snapshot store: 100 iterations of a project whose one 10 KB source file gets one line edited before
    each; the bytes of `.workbench/files/` plus the change rows. Target: under 2 MB.

Run alone: `python benchmarks/bench_verdicts_over_time.py [--quick] [--old-order] [--slow-first]`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sqlite3
import tempfile
import time
from pathlib import Path

from common import Measure, write_project

from workbench.config import load_config
from workbench.engine import Engine
from workbench.events import Event, ResultReady, Trigger, TriggerKind
from workbench.history import DB_NAME, HistoryStore
from workbench.session import Session
from workbench.snapshots import BLOB_FOLDER

SLEEPY = '''\
import asyncio
import os

# Outside the project (not fingerprinted): while it exists the rows answer at once.
FAST = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fast.flag")


async def answer(inputs):
    if not os.path.exists(FAST):
        await asyncio.sleep(1.0)
    return {"y": inputs["x"] * 2}
# edit 0
'''

# The same target as a process per row without an interpreter's start-up: workbench's own latency.
SLEEPY_SH = '''\
[ -e ../fast.flag ] || sleep 1
cat
# edit 0
'''
TARGETS = {
    "command": ({"kind": "command", "command": ["sh", "sleepy.sh"]}, "sleepy.sh", SLEEPY_SH),
    "python": ({"kind": "python", "callable": "sleepy:answer"}, "sleepy.py", SLEEPY),
}


def _failing_first(rows: int, kind: str, *, old_order: bool, slow_first: bool) -> Measure:
    files = 10
    runner, name, source_text = TARGETS[kind]
    with tempfile.TemporaryDirectory(prefix="wb-bench-first-") as tmp:
        # write_project deals rows round-robin over the files: the last row goes to the last file, at its end.
        answer = (lambda i: {"x": i}) if kind == "command" else (lambda i: {"y": i * 2})  # sh echoes the inputs
        spec = [({"x": i}, {"y": -1} if i == rows - 1 else answer(i)) for i in range(rows)]
        root = write_project(Path(tmp) / "project", spec, files=files,
                             runner={**runner, "concurrency": 4, "timeout": 30}, sources={name: source_text})
        flag = Path(tmp) / "fast.flag"
        if not slow_first:
            flag.write_text("")
        failing_id = f"row-{rows - 1}"
        seen = asyncio.Event()
        arrived: list[float] = []

        def on_event(event: Event) -> None:
            if os.environ.get("WB_BENCH_TRACE") and type(event).__name__ in ("IterationStarted", "RowStarted") and (
                    type(event).__name__ == "IterationStarted" or event.key.row_id == failing_id):
                print(f"  {type(event).__name__} at {time.perf_counter():.3f}", flush=True)
            if isinstance(event, ResultReady) and event.result.row_id == failing_id and not seen.is_set():
                arrived.append(time.perf_counter())
                seen.set()

        async def main() -> tuple[float, str]:
            session = Session(load_config(root), on_event=on_event)
            ready = asyncio.Event()
            watcher = asyncio.ensure_future(session.watch(ready=ready))
            try:
                await ready.wait()
                first = await session.wait_idle()
                while first is None:  # the watcher's start raced the first iteration: wait for the one that ends
                    first = await session.wait_idle()
                assert [r.row_id for r in first.results if not r.passed] == [failing_id]
                assert first.results[-1].row_id == failing_id  # last in file order
                seen.clear()
                arrived.clear()
                flag.unlink(missing_ok=True)
                if old_order:
                    session.verdicts.clear()
                source = root / name
                saved = time.perf_counter()
                if os.environ.get("WB_BENCH_TRACE"):
                    print(f"  saved at {saved:.3f}", flush=True)
                source.write_text(source_text.replace("# edit 0", "# edit 1"))
                await asyncio.wait_for(seen.wait(), timeout=rows + 60)
                return arrived[0] - saved, "old order (file order)" if old_order else "failing first"
            finally:
                watcher.cancel()
                await session.aclose()

        latency, how = asyncio.run(main())
    case = (f"{rows} rows × 1 s ({kind}: {runner.get('command') or runner.get('callable')}), concurrency 4, the "
            f"failing row last of {files} files: code edit saved → its verdict ({how})")
    return Measure("12 verdicts over time", case, f"{latency:.2f} s",
                   "" if old_order else "< 1.5 s", None if old_order else latency < 1.5)


def _source(rng: random.Random, size: int = 10 * 1024 + 512) -> list[str]:
    """A 10 KB module: lines of code-like text with random identifiers and numbers."""
    words = ["value", "score", "grade", "total", "items", "result", "row", "limit", "name", "index"]
    lines: list[str] = []
    while sum(len(line) for line in lines) < size:
        name = f"{rng.choice(words)}_{rng.randrange(10**6)}"
        call = f"{rng.choice(words)}({rng.randrange(10**9)}, {rng.random():.6f})"
        lines.append(f"{name} = {call}  # {rng.getrandbits(48):x}\n")
    return lines


def _store_size(iterations: int) -> Measure:
    rng = random.Random(24)
    with tempfile.TemporaryDirectory(prefix="wb-bench-snapshots-") as tmp:
        root = write_project(Path(tmp) / "project", [({"x": 1}, {"y": 2})],
                             runner={"kind": "python", "callable": "target:answer", "timeout": 30},
                             sources={"target.py": "def answer(inputs):\n    return {'y': inputs['x'] * 2}\n"})
        lines = _source(rng)
        module = root / "module.py"
        size = 0
        started = time.perf_counter()
        for number in range(iterations):
            index = rng.randrange(len(lines))
            lines[index] = f"edited_{number} = {rng.randrange(10**9)}  # iteration {number}\n"
            text = "".join(lines)
            module.write_text(text)
            size = len(text.encode())
            config = load_config(root)
            report = asyncio.run(Engine(config).run_iteration(Trigger(TriggerKind.RUN)))
            with HistoryStore.open(config) as store:
                store.record(report)
        spent = time.perf_counter() - started
        blobs = sum(p.stat().st_size for p in (root / ".workbench" / BLOB_FOLDER).glob("*.z"))
        db = sqlite3.connect(root / ".workbench" / DB_NAME)
        rows, row_bytes = db.execute("SELECT COUNT(*), COALESCE(SUM(LENGTH(path) + 64 + 16), 0) FROM file_changes "
                                     "").fetchone()
        db.close()
    total = blobs + row_bytes
    return Measure("12 verdicts over time",
                   f"snapshot store after {iterations} iterations editing one {size / 1024:.0f} KB file "
                   f"(+ the project's other files once), {spent:.0f} s",
                   f"{total / 2**20:.2f} MB ({blobs / 1024:.0f} KB of blobs, {rows} change rows ≈ "
                   f"{row_bytes / 1024:.0f} KB)", "< 2 MB", total < 2 * 2**20)


def run(quick: bool, *, old_order: bool = False, slow_first: bool = False) -> list[Measure]:
    rows = 100 if quick else 1000
    measures = [_failing_first(rows, kind, old_order=False, slow_first=slow_first) for kind in TARGETS]
    if old_order:
        measures.append(_failing_first(rows, "command", old_order=True, slow_first=slow_first))
    measures.append(_store_size(100))
    return measures


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="100 rows instead of 1,000 (a reduced form)")
    parser.add_argument("--old-order", action="store_true", help="also measure the file order (before issue 24)")
    parser.add_argument("--slow-first", action="store_true", help="the first iteration's rows take 1 s too")
    args = parser.parse_args()
    for measure in run(args.quick, old_order=args.old_order, slow_first=args.slow_first):
        print(f"{measure.case}: {measure.value}  {measure.target} {measure.status}", flush=True)
    print(json.dumps({"quick": args.quick}))
