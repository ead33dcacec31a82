"""Issue 22 point 12: the default `[runner] concurrency` on a 27-row `uip` project, against seed 003's own
scorer (`score-evals.py`, the seed's code block run as written: one `uip api-workflow run` after another).

The seed's scorer is read at run time from the seed document (`../shared/seeds/003_*.txt` beside the checkout, or
`--seed FILE`): its first code block after "Batch comparator", run as written — workbench keeps no copy of seed
code. The `uip` on PATH is a
stand-in: `tests/fixtures/fake_uip.py` (the seed's argv, envelope and debug log) behind
a wait of `--wait` seconds (default 0.25 s) — a real `uip` run spends most of its time waiting on Node's
start-up I/O and the workflow's HTTP activities, not on this machine's CPU. `--wait 0` measures the same with
nothing but interpreter start-up (CPU-bound), to show the default does not hurt a target that is.

    python benchmarks/bench_uip_concurrency.py             # seed scorer vs workbench (default, 4, 8, 16, 27)
    python benchmarks/bench_uip_concurrency.py --wait 0    # CPU-bound stand-in

Each case is the median of `--repeats` runs (default 3) of `workbench run --no-history` in a fresh interpreter.
Target: workbench with the default concurrency ≤ 0.30 × the seed scorer's wall time.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import ROOT, Measure

# where seed 003's document is found beside a checkout (the scorer is its code block; no copy is kept here)
SEED_GLOB = "003_*.txt"
SEED_DIRS = (ROOT.parent / "shared" / "seeds", ROOT.parent.parent / "shared" / "seeds")
FAKE_UIP = ROOT / "tests" / "fixtures" / "fake_uip.py"
ROWS = 27
TARGET = 0.30


def seed_document(given: Path | None) -> Path:
    """Seed 003's document: `--seed FILE`, else the first `003_*.txt` in a `shared/seeds` beside the checkout."""
    if given is not None:
        return given
    for folder in SEED_DIRS:
        found = sorted(folder.glob(SEED_GLOB)) if folder.is_dir() else []
        if found:
            return found[0]
    raise SystemExit("bench_uip_concurrency: seed 003's document was not found beside the checkout "
                     f"({', '.join(str(d) for d in SEED_DIRS)}); give it with --seed FILE")


def seed_scorer(folder: Path, document: Path) -> Path:
    """The seed's `score-evals.py`: the python code block after "Batch comparator", as the seed writes it."""
    text = document.read_text(encoding="utf-8")
    start = text.find("```python\n", text.find("Batch comparator"))
    end = text.find("\n```", start + 1)
    if text.find("Batch comparator") < 0 or start < 0 or end < 0:
        raise SystemExit(f"bench_uip_concurrency: no 'Batch comparator' python block in {document}")
    path = folder / "score-evals.py"
    path.write_text(text[start + len("```python\n"):end] + "\n", encoding="utf-8")
    return path


def stand_in_uip(folder: Path, wait: float) -> Path:
    """A `uip` program on a PATH of its own: waits `wait` s, then is fake_uip.py."""
    bin_dir = folder / "bin"
    bin_dir.mkdir()
    uip = bin_dir / "uip"
    uip.write_text(f"#!{sys.executable}\n"
                   "import runpy, sys, time\n"
                   f"time.sleep({wait!r})  # the run's own waiting (Node start-up I/O, the workflow's HTTP calls)\n"
                   f"sys.argv[0] = {str(FAKE_UIP)!r}\n"
                   f"runpy.run_path({str(FAKE_UIP)!r}, run_name='__main__')\n", encoding="utf-8")
    uip.chmod(0o755)
    return bin_dir


def project(folder: Path) -> Path:
    """27 rows of the seed's shape, every one passing: Workflow.json, an exact-match evaluator, one set."""
    root = folder / "project"
    (root / "evals" / "default" / "eval-sets").mkdir(parents=True)
    (root / "evals" / "default" / "evaluators").mkdir(parents=True)
    (root / "Workflow.json").write_text('{"name": "stand-in", "input": null, "output": null}\n')
    (root / "evals" / "default" / "evaluators" / "exact.json").write_text(json.dumps(
        {"version": "1.0", "id": "exact", "name": "Exact", "evaluatorTypeId": "uipath-exact-match",
         "evaluatorConfig": {"targetOutputKey": "*"}}))
    rows = [{"id": f"r{i}", "name": f"row {i}", "inputs": {"output": {"n": i}},
             "evaluationCriterias": {"exact": {"expectedOutput": {"n": i}}}} for i in range(ROWS)]
    (root / "evals" / "default" / "eval-sets" / "rows.json").write_text(json.dumps(
        {"version": "1.0", "id": "rows", "name": "rows", "evaluatorRefs": ["exact"], "evaluations": rows}))
    return root


def timed(argv: list[str], env: dict[str, str], repeats: int) -> float:
    """Median wall seconds of `argv` (which must exit 0)."""
    spent = []
    for _ in range(repeats):
        started = time.perf_counter()
        proc = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600)
        spent.append(time.perf_counter() - started)
        if proc.returncode != 0:
            raise SystemExit(f"{' '.join(argv)} exited {proc.returncode}:\n{proc.stdout[-2000:]}\n"
                             f"{proc.stderr[-2000:]}")
    return statistics.median(spent)


def measure(wait: float = 0.25, repeats: int = 3, settings: tuple[int | None, ...] = (None, 4, 8, 16, 27),
            seed_file: Path | None = None) -> list[Measure]:
    document = seed_document(seed_file)
    with tempfile.TemporaryDirectory(prefix="bench-uip-") as tmp:
        folder = Path(tmp)
        scorer, bin_dir, root = seed_scorer(folder, document), stand_in_uip(folder, wait), project(folder)
        env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}", "NO_COLOR": "1",
               "WORKBENCH_NO_PROGRESS": "1", "PYTHONPATH": str(ROOT)}
        seed = timed([sys.executable, str(scorer), str(root)], env, repeats)
        kind = f"stand-in uip waiting {wait:g} s" if wait else "stand-in uip, CPU only"
        rows = [Measure("10 uip", f"seed scorer, {ROWS} rows, {kind}", f"{seed:.2f} s")]
        for concurrency in settings:
            flag = ["--concurrency", str(concurrency)] if concurrency is not None else []
            spent = timed([sys.executable, "-m", "workbench", "run", str(root), "--no-history", *flag], env, repeats)
            name = "default concurrency" if concurrency is None else f"--concurrency {concurrency}"
            ratio = spent / seed
            target = f"≤ {TARGET:.2f}" if concurrency is None and wait else ""
            ok = (ratio <= TARGET) if target else None
            rows.append(Measure("10 uip", f"workbench, {name}", f"{spent:.2f} s = {ratio:.2f} × seed", target, ok))
        return rows


def run(quick: bool = False) -> list[Measure]:
    """For benchmarks/run.py."""
    return measure(repeats=1 if quick else 3)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wait", type=float, default=0.25)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=Path, help="seed 003's document (default: ../shared/seeds/003_*.txt)")
    args = parser.parse_args()
    from workbench.runners import default_concurrency

    print(f"cpus: {os.cpu_count()}; default concurrency for uip: {default_concurrency('uip')}, "
          f"for command: {default_concurrency('command')}; load: {os.getloadavg()[0]:.1f}")
    for row in measure(args.wait, args.repeats, seed_file=args.seed):
        print(f"{row.case:<55} {row.value:<28} {row.target:<7} {row.status}")


if __name__ == "__main__":
    main()
