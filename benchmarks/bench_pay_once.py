"""Benchmark 6: pay once — re-scoring instead of re-running, and the warm interpreter for Python scripts.

(a) Save an expectation on 1,000 rows whose target sleeps 1 s: the time from the change to every
    verdict, and how many rows ran (target: under 300 ms, zero runs).
(b) 200 rows of a plain Python script (`{"x": N} → {"y": 2N}`, started with sys.executable): forked
    from the warm parent vs one fresh process per row, and both vs the 2-core ideal of fresh processes
    (200 × one fresh start ÷ 2 cores). Target: preloaded at least 3× faster than fresh.
(c) A script that imports a heavy library (rich): the cost per row, preloaded vs fresh.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import Measure, config_for, iterate, write_project

from workbench.config import load_config
from workbench.engine import Engine
from workbench.events import Trigger
from workbench.file_digests import FileDigests
from workbench.model import Verdict
from workbench.project import load_project
from workbench.rescoring.world import compute_world
from workbench.session import Session

SLEEPY = '''\
import asyncio
import os

# Outside the project: a target writing into the project changes it while it runs, and such runs are
# (rightly) never re-scored.
COUNTER = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "runs.log")


async def answer(inputs):
    await asyncio.sleep(1.0)
    with open(COUNTER, "a") as log:
        log.write("x\\n")
    return {"y": inputs["x"] * 2}
'''

DOUBLER = '''\
import json
import sys

data = json.load(sys.stdin)
print(json.dumps({"y": data["x"] * 2}))
'''

HEAVY = '''\
import json
import sys

import rich.console
import rich.table

data = json.load(sys.stdin)
print(json.dumps({"y": data["x"] * 2}))
'''


def _rescore(quick: bool) -> list[Measure]:
    rows = 100 if quick else 1000
    with tempfile.TemporaryDirectory(prefix="wb-bench-reuse-") as tmp:
        root = write_project(Path(tmp) / "project", [({"x": i}, {"y": i * 2}) for i in range(rows)],
                             runner={"kind": "python", "callable": "sleepy:answer", "concurrency": 250,
                                     "timeout": 30},
                             sources={"sleepy.py": SLEEPY})
        counter = Path(tmp) / "runs.log"
        set_file = root / "evals" / "default" / "eval-sets" / "set000.json"

        async def main() -> tuple[float, int, int]:
            session = Session(load_config(root), record=False)
            try:
                first = await session.request(Trigger("start"))
                assert first is not None and all(r.passed for r in first.results), first.results[0].detail
                counter.unlink()
                doc = json.loads(set_file.read_text())
                doc["evaluations"][0]["evaluationCriterias"]["exact"]["expectedOutput"] = {"y": -1}
                set_file.write_text(json.dumps(doc))
                started = time.perf_counter()
                report = await session.request(Trigger("change", ("evals/default/eval-sets/set000.json",)))
                spent = time.perf_counter() - started
                assert report is not None
                failing = sum(r.verdict is not Verdict.PASS for r in report.results)
                ran = len(counter.read_text().split()) if counter.exists() else 0
                return spent, ran, failing
            finally:
                await session.aclose()

        spent, ran, failing = asyncio.run(main())
    return [Measure("6 pay once", f"save an expectation, {rows} rows × 1 s target: change → every verdict",
                    f"{spent * 1000:.0f} ms, {ran} rows ran, {failing} failing (the edited row)",
                    "< 300 ms, 0 runs", spent < 0.3 and ran == 0 and failing == 1)]


def _wall(root: Path, preload: bool, rows: int, script: str) -> float:
    config = config_for(root, kind="command", command=[sys.executable, script], concurrency=2, timeout=60,
                        preload=preload)
    started = time.perf_counter()
    report = iterate(Engine(config))
    wall = time.perf_counter() - started
    assert len(report.results) == rows and all(r.passed for r in report.results), report.results[0].detail
    return wall


def _fresh_start(root: Path, script: str, count: int = 10) -> float:
    """Seconds for one fresh `python script` run, measured alone (the best of `count`)."""
    best = float("inf")
    for index in range(count):
        started = time.perf_counter()
        subprocess.run([sys.executable, script], input=json.dumps({"x": index}).encode(), cwd=root,
                       capture_output=True, check=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
        best = min(best, time.perf_counter() - started)
    return best


def _warm_vs_fresh(quick: bool) -> list[Measure]:
    rows = 40 if quick else 200
    measures = []
    with tempfile.TemporaryDirectory(prefix="wb-bench-preload-") as tmp:
        for name, source, label in (("doubler.py", DOUBLER, "plain script"), ("heavy.py", HEAVY, "imports rich")):
            root = write_project(Path(tmp) / name, [({"x": i}, {"y": i * 2}) for i in range(rows)],
                                 sources={name: source})
            fresh = _wall(root, False, rows, name)
            warm = _wall(root, True, rows, name)
            ideal = _fresh_start(root, name) * rows / 2
            speedup = fresh / warm
            if name == "doubler.py":
                measures.append(Measure(
                    "6 pay once", f"{rows} rows, {label}: preloaded vs fresh processes (concurrency 2)",
                    f"preloaded {warm:.2f}s, fresh {fresh:.2f}s ({speedup:.1f}×); 2-core ideal of fresh "
                    f"{ideal:.2f}s", "≥ 3× faster", speedup >= 3))
            else:
                measures.append(Measure(
                    "6 pay once", f"{rows} rows, {label}: cost per row",
                    f"preloaded {warm / rows * 1000:.1f} ms, fresh {fresh / rows * 1000:.1f} ms "
                    f"({speedup:.1f}×)"))
    return measures


def _fingerprint_cost(quick: bool) -> list[Measure]:
    """What proving "nothing changed" costs per iteration: the world fingerprinted before and after, on a
    project of 10,000 files (100 folders × 100 files of 200 bytes), with the digests remembered."""
    count = 1000 if quick else 10_000
    with tempfile.TemporaryDirectory(prefix="wb-bench-fingerprint-") as tmp:
        root = write_project(Path(tmp) / "project", [({"x": 1}, {"y": 2})],
                             runner={"command": [sys.executable, "x.py"]})
        for index in range(count):
            path = root / "src" / f"pkg{index // 100}" / f"m{index % 100}.py"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(f"x = {index}\n" * 20)
        old = time.time_ns() - 3600 * 10**9  # not just written: digests can be trusted by stat
        for path in (root / "src").rglob("*.py"):
            os.utime(path, ns=(old, old))
        config = load_config(root)
        project = load_project(root, config)
        digests = FileDigests(config.state_dir)
        compute_world(config, project.eval_files, digests, b"k" * 32)  # the first time hashes every file
        digests.save()
        timings = []
        for _ in range(5):
            digests = FileDigests(config.state_dir)  # as a new `run --reuse` process would
            started = time.perf_counter()
            before = compute_world(config, project.eval_files, digests, b"k" * 32)
            compute_world(config, project.eval_files, digests, b"k" * 32, same_programs_as=before)
            timings.append(time.perf_counter() - started)
        best = min(timings)
    return [Measure("6 pay once", f"fingerprint a {count:,}-file project before and after an iteration",
                    f"{best * 1000:.0f} ms per iteration (best of 5; {best / 2 / count * 1e6:.1f} µs per file)")]


def run(quick: bool = False) -> list[Measure]:
    return [*_rescore(quick), *_warm_vs_fresh(quick), *_fingerprint_cost(quick)]


if __name__ == "__main__":
    for measure in run("--quick" in sys.argv):
        print(f"{measure.case}: {measure.value} [{measure.target}] {measure.status}")
