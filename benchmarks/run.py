"""Run the benchmark suite and print one table: `python benchmarks/run.py [--quick] [--only 1,3]`.

Use the project's interpreter (`.venv/bin/python`), not a slow shim: benchmarks start child
interpreters with `sys.executable`. `--quick` shrinks every benchmark for a smoke run; its numbers
are not the ones to record in benchmarks/README.md.

`--against REV` measures benchmark 15 (bench_against.py: 200 command rows, 5,000 python rows,
`--help`, `run -q` on an `init` project) on REV and on this tree in the same run, interleaved, and
prints both side by side with the ratio. REV is checked out in a temporary `git worktree` (removed
afterwards) and run by this interpreter with PYTHONPATH pointing at it, so its code, not this tree's
or an installed copy's, runs in every child; the dependencies are this interpreter's.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import bench_against
import bench_agent
import bench_cluster
import bench_compare
import bench_conversations
import bench_html_report
import bench_pay_once
import bench_repeats
import bench_runner
import bench_scale
import bench_uip_concurrency
import bench_uipath_coded
import bench_verdicts_over_time
import bench_watch
import bench_worker
from common import Measure

SUITE: dict[str, Callable[[bool], list[Measure]]] = {
    "1": bench_compare.run,
    "2": bench_runner.run,
    "3": bench_worker.run,
    "4": bench_watch.run,
    "5": bench_scale.run,  # includes the TUI on 10,000 rows (bench_tui.py)
    "6": bench_pay_once.run,
    "7": bench_conversations.run,
    "8": bench_cluster.run,  # rows on a local Ray (skipped without Ray)
    "9": bench_agent.run,  # `workbench mcp` through the SDK's client (skipped without the mcp extra)
    "10": bench_uip_concurrency.run,  # the default [runner] concurrency on 27 uip rows vs seed 003's scorer
    "12": bench_verdicts_over_time.run,  # failing rows first after a code edit; the snapshot store's size
    "11": bench_repeats.run,  # [runner] repeat = 5 on 200 preloaded rows vs one run
    "13": bench_html_report.run,  # the HTML report of 10,000 rows: size, first paint and filters in headless Chromium
    "14": bench_uipath_coded.run,  # a coded agent: 100 rows x 7 evaluators vs the real `uipath eval` (needs its venv)
    "15": bench_against.run,  # issue 33's four measures on this tree (--against REV: beside another commit)
}


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            names = [line.split(":", 1)[1].strip() for line in handle if line.startswith("model name")]
        cpu = names[0] if names else cpu
    except OSError:
        pass
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    return (f"{platform.system()} {platform.release()}, {cpu}, {os.cpu_count()} cores, "
            f"Python {platform.python_version()}, load average {load}")


def table(measures: list[Measure]) -> str:
    headers = ("benchmark", "case", "measured", "target", "")
    rows = [headers] + [(m.bench, m.case, m.value, m.target, m.status) for m in measures]
    widths = [max(len(row[i]) for row in rows) for i in range(len(headers))]
    lines = [" | ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
             for row in rows]
    lines.insert(1, "-+-".join("-" * width for width in widths))
    return "\n".join(lines)


def against(rev: str, measures: str, repeats: int) -> int:
    """Benchmark 15 on `rev` and on this tree, side by side."""
    specs = bench_against.select(measures)
    root = Path(__file__).resolve().parent.parent
    named = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "--verify", f"{rev}^{{commit}}"],
                           capture_output=True, text=True, timeout=60, check=False)
    if named.returncode != 0:
        print(f"run.py: {rev!r} is not a commit of {root}: {named.stderr.strip()}", file=sys.stderr)
        return 2
    head = subprocess.run(["git", "-C", str(root), "describe", "--always", "--dirty"], capture_output=True,
                          text=True, timeout=60, check=False).stdout.strip()
    with tempfile.TemporaryDirectory(prefix="wb-bench-rev-") as tmp:
        tree = Path(tmp) / "tree"
        subprocess.run(["git", "-C", str(root), "worktree", "add", "--detach", str(tree), named.stdout.strip()],
                       check=True, capture_output=True, timeout=300)
        try:
            print(f"machine: {machine()}", flush=True)
            trees = {named.stdout.strip(): tree, f"this tree ({head})": root}
            started = time.perf_counter()
            cases = bench_against.measure(trees, specs, repeats, Path(tmp) / "work")
            promptfoo = None
            try:
                if any(spec.name == "command" for spec in specs):
                    promptfoo = bench_against.promptfoo_seconds(Path(tmp) / "promptfoo")
            except (RuntimeError, OSError, subprocess.TimeoutExpired) as exc:
                print(f"promptfoo not measured: {exc}")
            print(f"{repeats} samples per measure and tree, interleaved; load average after: "
                  + ", ".join(f"{value:.1f}" for value in os.getloadavg()))
            print(bench_against.side_by_side(trees, specs, cases, promptfoo))
            print(f"({time.perf_counter() - started:.0f}s)")
        finally:
            subprocess.run(["git", "-C", str(root), "worktree", "remove", "--force", str(tree)],
                           capture_output=True, timeout=300, check=False)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes, for a smoke run")
    parser.add_argument("--only", default="", help="comma-separated benchmark numbers, e.g. 1,3")
    parser.add_argument("--against", metavar="REV", default="",
                        help="measure benchmark 15 on commit REV and on this tree, side by side with the ratio")
    parser.add_argument("--measures", default="",
                        help="with --against: comma-separated measures of command, python, help, init (default all)")
    parser.add_argument("--repeats", type=int, default=5, help="with --against: samples per measure and tree")
    args = parser.parse_args()
    if args.against:
        return against(args.against, args.measures, max(1, args.repeats))
    chosen = [key for key in SUITE if not args.only or key in args.only.split(",")]
    print(f"machine: {machine()}", flush=True)
    measures: list[Measure] = []
    started = time.perf_counter()
    for key in chosen:
        print(f"running benchmark {key}…", file=sys.stderr, flush=True)
        measures.extend(SUITE[key](args.quick))
    print(table(measures))
    print(f"({time.perf_counter() - started:.0f}s)")
    return 1 if any(m.ok is False for m in measures) else 0


if __name__ == "__main__":
    sys.exit(main())
