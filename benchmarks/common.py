"""What every benchmark shares: a result row, timing, and throwaway projects to run against."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from workbench.config import Config, RunnerConfig  # noqa: E402 - after the sys.path line above
from workbench.engine import Engine  # noqa: E402
from workbench.events import IterationReport, Trigger  # noqa: E402


@dataclass(slots=True)
class Measure:
    """One line of the results table."""

    bench: str
    case: str
    value: str
    target: str = ""
    ok: bool | None = None  # None: informative, no target

    @property
    def status(self) -> str:
        return {True: "ok", False: "MISSED", None: ""}[self.ok]


def per_call(func: Callable[[], Any], *, min_time: float = 0.2, repeats: int = 3) -> float:
    """Seconds per call: the best of `repeats` batches, each long enough to time reliably."""
    count = 1
    while True:
        started = time.perf_counter()
        for _ in range(count):
            func()
        spent = time.perf_counter() - started
        if spent >= min_time / 4 or count >= 1 << 20:
            break
        count *= 4
    best = spent / count
    for _ in range(repeats - 1):
        started = time.perf_counter()
        for _ in range(count):
            func()
        best = min(best, (time.perf_counter() - started) / count)
    return best


def fmt_time(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds:.2f} s"


EXACT = {"id": "exact", "name": "Exact", "evaluatorTypeId": "uipath-exact-match",
         "evaluatorConfig": {"targetOutputKey": "*"}}


def write_project(root: Path, rows: Iterable[tuple[dict[str, Any], Any]], *, files: int = 1,
                  runner: dict[str, Any] | None = None, sources: dict[str, str] | None = None) -> Path:
    """A project with `rows` of (inputs, expectedOutput) split over `files` eval sets, one exact-match
    evaluator, and `sources` (relative path -> text) for the target."""
    sets = root / "evals" / "default" / "eval-sets"
    evaluators = root / "evals" / "default" / "evaluators"
    sets.mkdir(parents=True, exist_ok=True)
    evaluators.mkdir(parents=True, exist_ok=True)
    (evaluators / "exact.json").write_text(json.dumps(EXACT), encoding="utf-8")
    chunks: list[list[dict[str, Any]]] = [[] for _ in range(files)]
    for index, (inputs, expected) in enumerate(rows):
        chunks[index % files].append({"id": f"row-{index}", "name": f"row {index}", "inputs": inputs,
                                      "evaluationCriterias": {"exact": {"expectedOutput": expected}}})
    for number, chunk in enumerate(chunks):
        document = {"version": "1.0", "id": f"set-{number}", "name": f"set {number}",
                    "evaluatorRefs": ["exact"], "evaluations": chunk}
        (sets / f"set{number:03d}.json").write_text(json.dumps(document), encoding="utf-8")
    for relative, text in (sources or {}).items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    if runner:
        lines = ["[runner]"] + [f"{key} = {json.dumps(value)}" for key, value in runner.items()]
        (root / "workbench.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def iterate(engine: Engine, **kwargs: Any) -> IterationReport:
    """One iteration in a fresh event loop. The report comes back through a list, not as the
    main task's result: on Python 3.11 `asyncio.run` reprs its main task (and so its result) when it
    restores the SIGINT handler, which costs seconds and hundreds of MiB at 100,000 rows."""
    box: list[IterationReport] = []

    async def main() -> None:
        box.append(await engine.run_iteration(Trigger("run"), **kwargs))

    asyncio.run(main())
    return box[0]


def config_for(root: Path, **runner: Any) -> Config:
    return Config(root=root, runner=RunnerConfig(**runner))


# A trivial Python target, usable as a callable (kind = "python") and as a per-row script (command).
TRIVIAL_TARGET = '''\
import asyncio
import json
import sys


def add_one(inputs):
    return {"y": inputs["x"] + 1}


if __name__ == "__main__":
    print(json.dumps(add_one(json.load(sys.stdin))))
'''


def trivial_rows(count: int) -> list[tuple[dict[str, Any], Any]]:
    return [({"x": i}, {"y": i + 1}) for i in range(count)]
