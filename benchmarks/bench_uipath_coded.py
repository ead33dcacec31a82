"""Issue 26: 100 rows × 7 evaluators of a UiPath coded agent, `uipath eval` (UiPath's SDK) against `workbench run`
on the same project, in one run.

The project is the conformance project's agent and seven evaluators (tests/dialects/uipath_coded/
coded_sdk_project.py: `build_generated_project`) with 100 generated rows, every criterion `null`. Measured, each
the median of `--repeats` runs on a fresh copy:

* `uipath eval main <set> --workers 1` and `--workers 4` (`--no-report`, `UIPATH_TELEMETRY_ENABLED=false`), the
  venv's own `uipath` program (its shebang: the venv's python);
* `workbench run --json --reuse` started as `sys.executable -m workbench` (no shim in front), its rows run in the
  SDK venv's python (`[runner] command`), at the default concurrency: cold (the first run of the copy), again
  after an edit of the eval set only (re-scored from the recorded run: the benchmark checks that no row ran),
  and after an edit of main.py (every row runs again: checked too).

Also checked: workbench's 700 scores of the cold run equal the SDK's to 1e-9. The SDK venv is found as the tests
find it (`WORKBENCH_UIPATH_SDK`, else the default location of `scripts/uipath_sdk_venv.py`), or `--sdk PYTHON`;
skipped without one. The issue measured the SDK at 1.5 s, flat in `--workers` (its workers are asyncio tasks).

    python benchmarks/bench_uipath_coded.py [--rows 100] [--repeats 3] [--sdk /path/to/venv/bin/python]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from common import ROOT, Measure

sys.path.insert(0, str(ROOT / "tests" / "dialects" / "uipath_coded"))

from coded_sdk import UiPathSdk, find_sdk, run_in_group, run_sdk_eval, sdk_scores
from coded_sdk_project import build_generated_project

BENCH = "14 uipath-coded"
SET_FILE = "evaluations/eval-sets/generated.json"
TIMEOUT = 600.0
TOLERANCE = 1e-9


def workbench(root: Path) -> tuple[float, dict[str, Any]]:
    """Wall seconds of `workbench run --json --reuse` on `root` and its document (exit 0 or 1: some rows fail)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("WORKBENCH_")}
    env.update({"NO_COLOR": "1", "WORKBENCH_NO_PROGRESS": "1", "UIPATH_TELEMETRY_ENABLED": "false"})
    started = time.perf_counter()
    proc = run_in_group([sys.executable, "-m", "workbench", "run", "--json", "--reuse", str(root)], cwd=root,
                        env=env, timeout=TIMEOUT)
    spent = time.perf_counter() - started
    if proc.returncode not in (0, 1):
        raise SystemExit(f"workbench run exited {proc.returncode}:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    return spent, json.loads(proc.stdout)


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


def median_of(repeats: int, measure: Callable[[int], float]) -> float:
    return statistics.median(measure(index) for index in range(repeats))


def sdk_case(sdk: UiPathSdk, folder: Path, rows: int, workers: int, repeats: int) -> tuple[float, dict[str, Any]]:
    docs: list[dict[str, Any]] = []

    def once(index: int) -> float:
        root = build_generated_project(folder / f"sdk-{workers}-{index}", rows)
        started = time.perf_counter()
        docs.append(run_sdk_eval(sdk, root, SET_FILE, workers=workers, timeout=TIMEOUT))
        return time.perf_counter() - started

    return median_of(repeats, once), docs[0]


def workbench_cases(sdk: UiPathSdk, folder: Path, rows: int, repeats: int) -> tuple[dict[str, list[float]],
                                                                                   dict[str, Any], list[str]]:
    """Cold, eval-edit and code-edit wall times per repeat, the first cold document, and what went wrong."""
    times: dict[str, list[float]] = {"cold": [], "eval": [], "code": []}
    problems: list[str] = []
    first: dict[str, Any] = {}
    for index in range(repeats):
        root = build_generated_project(folder / f"wb-{index}", rows, interpreter=str(sdk.python))
        spent, doc = workbench(root)
        times["cold"].append(spent)
        first = first or doc
        if ran(doc) != rows:
            problems.append(f"cold run ran {ran(doc)} rows, not {rows}")
        touch_eval_set(root)
        spent, doc = workbench(root)
        times["eval"].append(spent)
        if ran(doc) != 0:
            problems.append(f"after an eval-file edit {ran(doc)} rows ran, not 0")
        touch_main(root, index)
        spent, doc = workbench(root)
        times["code"].append(spent)
        if ran(doc) != rows:
            problems.append(f"after a main.py edit {ran(doc)} rows ran, not {rows}")
    return times, first, problems


def disagreements(doc: dict[str, Any], sdk_doc: dict[str, Any]) -> int:
    ours = {(r["row_name"], r["evaluator"]): float(r["score"]) for r in doc["results"]}
    theirs = sdk_scores(sdk_doc)
    differ = sum(abs(ours[key] - theirs[key]) > TOLERANCE for key in ours.keys() & theirs.keys())
    return len(ours.keys() ^ theirs.keys()) + differ


def measure(sdk: UiPathSdk, rows: int = 100, repeats: int = 3) -> list[Measure]:
    with tempfile.TemporaryDirectory(prefix="wb-bench-coded-") as tmp:
        folder = Path(tmp)
        sdk_one, _ = sdk_case(sdk, folder, rows, 1, repeats)
        sdk_four, sdk_doc = sdk_case(sdk, folder, rows, 4, repeats)
        times, cold_doc, problems = workbench_cases(sdk, folder, rows, repeats)
    size = f"{rows} rows × 7 evaluators"
    cold, rescore, code = (statistics.median(times[k]) for k in ("cold", "eval", "code"))
    wrong = disagreements(cold_doc, sdk_doc)
    return [
        Measure(BENCH, f"uipath eval --workers 1, {size}", f"{sdk_one:.2f} s"),
        Measure(BENCH, f"uipath eval --workers 4, {size}", f"{sdk_four:.2f} s"),
        Measure(BENCH, "workbench run, cold (first run)", f"{cold:.2f} s = {cold / sdk_four:.2f} × SDK --workers 4"),
        Measure(BENCH, "workbench run after an eval-file edit (0 rows run)",
                f"{rescore:.2f} s = {rescore / sdk_four:.2f} × SDK", "< SDK", rescore < sdk_four),
        Measure(BENCH, "workbench run after a main.py edit (all rows run)",
                f"{code:.2f} s = {code / sdk_four:.2f} × SDK"),
        Measure(BENCH, "scores differing from the SDK's (of the cold run)", f"{wrong} of {rows * 7}", "0", wrong == 0),
        Measure(BENCH, "rows run as expected (cold: all, eval edit: none, code edit: all)",
                "yes" if not problems else "; ".join(sorted(set(problems))), "yes", not problems),
    ]


def sdk_or_reason(given: str | None) -> UiPathSdk | str:
    return UiPathSdk(Path(given)) if given else find_sdk()


def run(quick: bool = False) -> list[Measure]:
    """For benchmarks/run.py."""
    sdk = sdk_or_reason(None)
    if isinstance(sdk, str):
        return [Measure(BENCH, "skipped", sdk)]
    return measure(sdk, rows=20 if quick else 100, repeats=1 if quick else 3)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--sdk", help="the python of a venv with uipath (default: as the tests find it)")
    args = parser.parse_args()
    sdk = sdk_or_reason(args.sdk)
    if isinstance(sdk, str):
        raise SystemExit(f"bench_uipath_coded: {sdk}")
    print(f"cpus: {os.cpu_count()}; load: {os.getloadavg()[0]:.1f}; sdk: {sdk.python}")
    for row in measure(sdk, args.rows, args.repeats):
        print(f"{row.case:<66} {row.value:<34} {row.target:<6} {row.status}")


if __name__ == "__main__":
    main()
