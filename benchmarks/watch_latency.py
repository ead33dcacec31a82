"""Save-to-last-verdict latency of the watch loop: `python benchmarks/watch_latency.py [--saves N]`.

A throwaway project of 100 rows with a fast target; the real watch loop (`Session.watch`, watchfiles,
the default debounce) runs in-process. Each measurement rewrites the target file and times from the
write to the last verdict (the last ResultReady) of the iteration that save triggered. It prints
the median and p90 over the saves, for each runner kind that can run here:

  command  one process per row (`{python} target.py`)
  python   `kind = "python"`: the callable in worker processes (started fresh each iteration)
  worker   `kind = "worker"`: a JSON-lines worker script

Use the project's interpreter (`.venv/bin/python`): targets run on `sys.executable`. `measure()`
returns the numbers for a suite runner (benchmarks/run.py).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from workbench.config import ConfigError, load_config  # noqa: E402 - after the sys.path line
from workbench.events import Event, IterationFinished, IterationStarted, ResultReady  # noqa: E402
from workbench.model import Verdict  # noqa: E402
from workbench.runners import make_runner  # noqa: E402
from workbench.session import Session  # noqa: E402

ROWS = 100
SAVES = 20
SETTLE_S = 0.3  # pause between saves, so every save starts from an idle loop
WAIT_S = 120.0

TARGET = """\
# save {save}
import json
import sys


def add_one(inputs):
    return {{"y": inputs["x"] + 1}}


if __name__ == "__main__":
    print(json.dumps(add_one(json.load(sys.stdin))))
"""

WORKER = """\
# save {save}
import json
import sys

for line in sys.stdin:
    request = json.loads(line)
    print(json.dumps({{"id": request["id"], "output": {{"y": request["inputs"]["x"] + 1}}}}), flush=True)
"""

RUNNERS = {
    "command": ('kind = "command"\ncommand = ["{python}", "target.py"]', TARGET),
    "python": ('kind = "python"\ncallable = "target:add_one"', TARGET),
    "worker": ('kind = "worker"\ncommand = ["{python}", "target.py"]', WORKER),
}


@dataclass(slots=True)
class Latency:
    kind: str
    rows: int
    concurrency: int
    samples: list[float]  # seconds, one per save

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    @property
    def p90(self) -> float:
        ordered = sorted(self.samples)
        return ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]

    def describe(self) -> str:
        return (f"{self.kind:8} {self.rows} rows, concurrency {self.concurrency}: median "
                f"{self.median * 1000:.0f} ms, p90 {self.p90 * 1000:.0f} ms over {len(self.samples)} saves "
                f"(min {min(self.samples) * 1000:.0f}, max {max(self.samples) * 1000:.0f})")


def write_project(root: Path, kind: str, rows: int, concurrency: int | None) -> None:
    runner, target = RUNNERS[kind]
    sets = root / "evals" / "default" / "eval-sets"
    evaluators = root / "evals" / "default" / "evaluators"
    sets.mkdir(parents=True)
    evaluators.mkdir(parents=True)
    (evaluators / "exact.json").write_text(json.dumps({
        "id": "exact", "name": "Exact", "evaluatorTypeId": "uipath-exact-match",
        "evaluatorConfig": {"targetOutputKey": "*"}}), encoding="utf-8")
    evaluations = [{"id": f"row-{i}", "name": f"row {i}", "inputs": {"x": i},
                    "evaluationCriterias": {"exact": {"expectedOutput": {"y": i + 1}}}} for i in range(rows)]
    (sets / "bench.json").write_text(json.dumps({"version": "1.0", "id": "bench", "name": "bench",
                                                 "evaluatorRefs": ["exact"], "evaluations": evaluations}),
                                     encoding="utf-8")
    extra = f"\nconcurrency = {concurrency}" if concurrency else ""
    (root / "workbench.toml").write_text(f"[runner]\n{runner}\ntimeout = 30{extra}\n", encoding="utf-8")
    (root / "target.py").write_text(target.format(save=0), encoding="utf-8")


class Probe:
    """Timestamps the last verdict of each iteration, from the engine's events."""

    def __init__(self) -> None:
        self.last_verdict = 0.0
        self.finished: asyncio.Queue[tuple[IterationFinished, float]] = asyncio.Queue()

    def __call__(self, event: Event) -> None:
        if isinstance(event, IterationStarted):
            self.last_verdict = 0.0
        elif isinstance(event, ResultReady):
            self.last_verdict = time.perf_counter()
        elif isinstance(event, IterationFinished):
            self.finished.put_nowait((event, self.last_verdict))

    async def next_finished(self) -> tuple[IterationFinished, float]:
        return await asyncio.wait_for(self.finished.get(), WAIT_S)


async def _measure(root: Path, kind: str, rows: int, saves: int) -> Latency:
    config = load_config(root)
    probe = Probe()
    session = Session(config, on_event=probe, record=True)
    ready = asyncio.Event()
    watcher = asyncio.create_task(session.watch(ready=ready))
    samples: list[float] = []
    try:
        await asyncio.wait_for(ready.wait(), WAIT_S)
        event, _ = await probe.next_finished()  # the start iteration
        _check(event, rows)
        _, target = RUNNERS[kind]
        for save in range(1, saves + 1):
            await asyncio.sleep(SETTLE_S)
            saved = time.perf_counter()
            (root / "target.py").write_text(target.format(save=save), encoding="utf-8")
            while True:
                event, last_verdict = await probe.next_finished()
                if event.report.trigger.kind == "change":
                    break
            _check(event, rows)
            samples.append(last_verdict - saved)
    finally:
        watcher.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watcher
        await session.aclose()
    return Latency(kind, rows, config.runner.concurrency, samples)


def _check(event: IterationFinished, rows: int) -> None:
    results = event.report.results
    bad = [r for r in results if r.verdict is not Verdict.PASS]
    if len(results) != rows or bad:
        detail = bad[0].detail if bad else f"{len(results)} results"
        raise RuntimeError(f"the benchmark project did not pass cleanly: {detail}")


def available(kind: str) -> str | None:
    """None when this workbench can run `kind`, else why not."""
    with tempfile.TemporaryDirectory(prefix="wb-latency-probe-") as tmp:
        root = Path(tmp)
        write_project(root, kind, 1, None)
        try:
            runner = make_runner(load_config(root))
        except ConfigError as exc:
            return str(exc)
        asyncio.run(runner.aclose())
    return None


def measure(kind: str = "command", rows: int = ROWS, saves: int = SAVES, concurrency: int | None = None) -> Latency:
    """Latency samples for one runner kind on a fresh temporary project."""
    with tempfile.TemporaryDirectory(prefix=f"wb-latency-{kind}-") as tmp:
        root = Path(tmp) / "project"
        write_project(root, kind, rows, concurrency)
        return asyncio.run(_measure(root, kind, rows, saves))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=ROWS)
    parser.add_argument("--saves", type=int, default=SAVES)
    parser.add_argument("--concurrency", type=int, default=None, help="default: the [runner] default")
    parser.add_argument("--kinds", default=",".join(RUNNERS), help="comma-separated: " + ", ".join(RUNNERS))
    args = parser.parse_args(argv)
    print("save-to-last-verdict latency in watch mode (median and p90 over repeated saves)", flush=True)
    for kind in args.kinds.split(","):
        why_not = available(kind)
        if why_not:
            print(f"{kind:8} skipped: {why_not}", flush=True)
            continue
        print(measure(kind, args.rows, args.saves, args.concurrency).describe(), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
