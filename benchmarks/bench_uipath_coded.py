"""Issue 26: 100 rows × 7 evaluators of a UiPath coded agent, `uipath eval` (UiPath's SDK) against `workbench run`
on the same project, in one run.

The project is the conformance project's agent and seven evaluators (tests/dialects/uipath_coded/
coded_sdk_project.py: `build_generated_project`) with 100 generated rows, every criterion `null`. Measured, each
the median of `--repeats` runs on a fresh copy, wall time and CPU time (the process and all it waited for: less
sensitive than wall time to a loaded machine); one repeat runs every case in turn, so load changes fall on all:

* `uipath eval main <set> --workers 1` and `--workers 4` (`--no-report`, `UIPATH_TELEMETRY_ENABLED=false`), the
  venv's own `uipath` program (its shebang: the venv's python);
* `workbench run --json --reuse` started as `sys.executable -m workbench` (no shim in front), its rows run in the
  SDK venv's python (`[runner] command`), at the default concurrency: cold (the first run of the copy), again
  after an edit of the eval set only (re-scored from the recorded run: the benchmark checks that no row ran),
  and after an edit of main.py (every row runs again: checked too).

And the same project with an agent that waits `--wait` s (default 0.1) before answering, as one calling a model
does: `uipath eval --workers 4` against workbench cold. Also checked: workbench's 700 scores of the cold run
equal the SDK's to 1e-9. The SDK venv is found as the tests find it (`WORKBENCH_UIPATH_SDK`, else the default
location of `scripts/uipath_sdk_venv.py`), or `--sdk PYTHON`; skipped without one. The issue measured the SDK at
1.5 s, flat in `--workers` (its workers are asyncio tasks, and a coded agent's main is synchronous).

    python benchmarks/bench_uipath_coded.py [--rows 100] [--repeats 3] [--wait 0.1] [--sdk /path/to/venv/bin/python]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from common import ROOT, Measure

sys.path.insert(0, str(ROOT / "tests" / "dialects" / "uipath_coded"))

from coded_sdk import UiPathSdk, find_sdk, run_in_group, run_sdk_eval, sdk_scores
from coded_sdk_project import (
    EVALUATOR_IDS,
    EVALUATORS,
    MAIN_PY,
    build_generated_project,
    eval_set,
    generated_rows,
    write_coded_project,
)

BENCH = "14 uipath-coded"
SET_FILE = "evaluations/eval-sets/generated.json"
TIMEOUT = 600.0
TOLERANCE = 1e-9


@dataclass
class Timed:
    """Wall and CPU seconds (user + system of the process and everything it waited for) of each repeat."""

    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)

    def text(self, base: Timed | None = None) -> str:
        wall, cpu = statistics.median(self.wall), statistics.median(self.cpu)
        ratio = f" = {wall / statistics.median(base.wall):.2f} × SDK --workers 4" if base else ""
        return f"{wall:.2f} s{ratio} (CPU {cpu:.2f} s)"


def timed(into: Timed, call: Callable[[], Any]) -> Any:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    value = call()
    into.wall.append(time.perf_counter() - started)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    into.cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return value


def workbench(root: Path) -> dict[str, Any]:
    """`workbench run --json --reuse` on `root`: its document (exit 0 or 1: some rows fail)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("WORKBENCH_")}
    env.update({"NO_COLOR": "1", "WORKBENCH_NO_PROGRESS": "1", "UIPATH_TELEMETRY_ENABLED": "false"})
    proc = run_in_group([sys.executable, "-m", "workbench", "run", "--json", "--reuse", str(root)], cwd=root,
                        env=env, timeout=TIMEOUT)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"workbench run exited {proc.returncode}:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    doc: dict[str, Any] = json.loads(proc.stdout)
    return doc


def ran(doc: dict[str, Any]) -> int:
    """How many rows ran (their results were not re-scored from a recorded run)."""
    return len({(r["set"], r["row_id"]) for r in doc["results"] if not r.get("reused")})


def touch_eval_set(root: Path) -> None:
    """An eval-file-only edit: the first row's expected answer changes."""
    path = root / SET_FILE
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["evaluations"][0]["expectedOutput"]["answer"] += " (edited)"
    path.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")


def touch_main(root: Path, count: int) -> None:
    """A code edit: main.py gains a line (every row's output may change, so every row must run)."""
    with (root / "main.py").open("a", encoding="utf-8") as handle:
        handle.write(f"\nEDITED = {count}\n")


CASES = ("sdk1", "sdk4", "cold", "eval", "code", "wait-sdk4", "wait-cold")


def waiting_project(root: Path, rows: int, wait: float, interpreter: str | None = None) -> Path:
    """The same project whose agent first waits `wait` s, as one waiting on a model's API does (time.sleep:
    a synchronous agent, which is what a coded agent's main is)."""
    main = MAIN_PY.replace("def main(input: dict) -> dict:\n",
                           f"def main(input: dict) -> dict:\n    import time\n    time.sleep({wait!r})\n")
    return write_coded_project(root, main_py=main, evaluators=EVALUATORS,
                               sets={"generated": eval_set("generated", generated_rows(rows), EVALUATOR_IDS)},
                               interpreter=interpreter)


@dataclass
class Run:
    """Everything one benchmark run measured and saw."""

    times: dict[str, Timed] = field(default_factory=lambda: {k: Timed() for k in CASES})
    problems: list[str] = field(default_factory=list)
    docs: dict[str, dict[str, Any]] = field(default_factory=dict)


def one_repeat(sdk: UiPathSdk, folder: Path, rows: int, index: int, run: Run, wait: float) -> None:
    """Every case once, one after the other, so a change of the machine's load falls on all of them alike."""
    for workers in (1, 4):
        sdk_root = build_generated_project(folder / f"sdk-{workers}-{index}", rows)

        def sdk_eval(where: Path = sdk_root, count: int = workers) -> dict[str, Any]:
            return run_sdk_eval(sdk, where, SET_FILE, workers=count, timeout=TIMEOUT)

        run.docs[f"sdk{workers}"] = timed(run.times[f"sdk{workers}"], sdk_eval)
    root = build_generated_project(folder / f"wb-{index}", rows, interpreter=str(sdk.python))
    expected_runs = {"cold": rows, "eval": 0, "code": rows}
    for case in ("cold", "eval", "code"):
        if case == "eval":
            touch_eval_set(root)
        if case == "code":
            touch_main(root, index)
        doc = timed(run.times[case], lambda: workbench(root))
        run.docs.setdefault(case, doc)
        if ran(doc) != expected_runs[case]:
            run.problems.append(f"{case}: {ran(doc)} rows ran, not {expected_runs[case]}")
    if wait:
        waiting = waiting_project(folder / f"sdk-wait-{index}", rows, wait)
        timed(run.times["wait-sdk4"], lambda: run_sdk_eval(sdk, waiting, SET_FILE, workers=4, timeout=TIMEOUT))
        waiting = waiting_project(folder / f"wb-wait-{index}", rows, wait, interpreter=str(sdk.python))
        timed(run.times["wait-cold"], lambda: workbench(waiting))


def disagreements(doc: dict[str, Any], sdk_doc: dict[str, Any]) -> int:
    ours = {(r["row_name"], r["evaluator"]): float(r["score"]) for r in doc["results"]}
    theirs = sdk_scores(sdk_doc)
    differ = sum(abs(ours[key] - theirs[key]) > TOLERANCE for key in ours.keys() & theirs.keys())
    return len(ours.keys() ^ theirs.keys()) + differ


def measure(sdk: UiPathSdk, rows: int = 100, repeats: int = 3, wait: float = 0.1) -> list[Measure]:
    run = Run()
    with tempfile.TemporaryDirectory(prefix="wb-bench-coded-") as tmp:
        for index in range(repeats):
            one_repeat(sdk, Path(tmp), rows, index, run, wait)
    size = f"{rows} rows × 7 evaluators"
    t = run.times
    wrong = disagreements(run.docs["cold"], run.docs["sdk4"])
    rescore_ok = statistics.median(t["eval"].wall) < statistics.median(t["sdk4"].wall)
    return [
        Measure(BENCH, f"uipath eval --workers 1, {size}", t["sdk1"].text()),
        Measure(BENCH, f"uipath eval --workers 4, {size}", t["sdk4"].text()),
        Measure(BENCH, "workbench run, cold (first run)", t["cold"].text(t["sdk4"])),
        Measure(BENCH, "workbench run after an eval-file edit (0 rows run)", t["eval"].text(t["sdk4"]), "< SDK",
                rescore_ok),
        Measure(BENCH, "workbench run after a main.py edit (all rows run)", t["code"].text(t["sdk4"])),
        Measure(BENCH, "scores differing from the SDK's (of the cold run)", f"{wrong} of {rows * 7}", "0", wrong == 0),
        Measure(BENCH, "rows run as expected (cold: all, eval edit: none, code edit: all)",
                "yes" if not run.problems else "; ".join(sorted(set(run.problems))), "yes", not run.problems),
    ] + ([
        Measure(BENCH, f"agent waiting {wait:g} s a row: uipath eval --workers 4", t["wait-sdk4"].text()),
        Measure(BENCH, f"agent waiting {wait:g} s a row: workbench run, cold", t["wait-cold"].text(t["wait-sdk4"])),
    ] if wait else [])


def sdk_or_reason(given: str | None) -> UiPathSdk | str:
    return UiPathSdk(Path(given)) if given else find_sdk()


def run(quick: bool = False) -> list[Measure]:
    """For benchmarks/run.py."""
    sdk = sdk_or_reason(None)
    if isinstance(sdk, str):
        return [Measure(BENCH, "skipped", sdk)]
    return measure(sdk, rows=20 if quick else 100, repeats=1 if quick else 3, wait=0.0 if quick else 0.1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--wait", type=float, default=0.1,
                        help="also measure an agent that waits this long a row (0: don't); default %(default)s")
    parser.add_argument("--sdk", help="the python of a venv with uipath (default: as the tests find it)")
    args = parser.parse_args()
    sdk = sdk_or_reason(args.sdk)
    if isinstance(sdk, str):
        raise SystemExit(f"bench_uipath_coded: {sdk}")
    print(f"cpus: {os.cpu_count()}; load: {os.getloadavg()[0]:.1f}; sdk: {sdk.python}")
    for row in measure(sdk, args.rows, args.repeats, args.wait):
        print(f"{row.case:<66} {row.value:<50} {row.target:<6} {row.status}")


if __name__ == "__main__":
    main()
