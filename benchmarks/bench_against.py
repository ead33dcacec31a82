"""Benchmark 15: issue 33's four measures — 200 command rows (vs promptfoo), 5,000 python rows,
`workbench --help`, `run -q` on the project `init` makes — on one tree, or two side by side.

Every sample is a fresh `python -m workbench` process: `sys.executable` with PYTHONPATH set to the tree
measured, so that tree's code runs and not an installed copy (checked before the first sample: the
child says where it imported workbench from). Wall time is the process's, from start to exit; CPU time
is its user + system time and its children's (workers, row processes: what a loaded machine's waiting
does not inflate); peak RSS is `wait4`'s `ru_maxrss` (its workers are smaller: the peak is workbench's). Each
sample starts without `.workbench/` (no history, no recorded runs), so both trees do the same work;
compiled modules are kept under the run's temp folder (an installed package has them), and one
sample of each case is run first and not counted. `run.py --against REV` interleaves the trees
sample by sample (A B B A A B ...) so a loaded machine slows both alike, and reports medians.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from common import ROOT, TRIVIAL_TARGET, Measure, trivial_rows, write_project

SAMPLE_TIMEOUT_S = 600.0
PROMPTFOO_TARGET = '''\
import json
import sys

print(json.dumps({"y": int(sys.argv[1]) + 1}))
'''


@dataclass(slots=True)
class Sample:
    wall_s: float
    rss_mib: float
    cpu_s: float  # user + system time of the process and the children it waited for (its workers, its rows)


@dataclass(slots=True)
class Case:
    """One measure on one tree: the command, where it runs, and how many rows it runs."""

    argv: list[str]
    cwd: Path
    rows: int = 0
    samples: list[Sample] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Spec:
    name: str
    title: str
    make: Callable[[Path, Path], Case]  # (a folder of its own, the tree measured) -> the case


def _workbench(*args: str) -> list[str]:
    return [sys.executable, "-m", "workbench", *args]


def _rows_project(rows: int, runner: dict[str, object]) -> Callable[[Path, Path], Case]:
    def make(folder: Path, tree: Path) -> Case:
        write_project(folder, trivial_rows(rows), runner=runner, sources={"target.py": TRIVIAL_TARGET})
        return Case(_workbench("run", "-q"), folder, rows)
    return make


def _help(folder: Path, tree: Path) -> Case:
    folder.mkdir(parents=True)
    return Case(_workbench("--help"), folder)


def _init_project(folder: Path, tree: Path) -> Case:
    """The project this checkout's `init` makes (older trees' `init` wrote no runner), for every tree."""
    folder.mkdir(parents=True)
    made = subprocess.run(_workbench("init"), cwd=folder, env=tree_env(ROOT), capture_output=True, text=True,
                          timeout=120, check=False)
    if made.returncode != 0:
        raise RuntimeError(f"`workbench init` failed in {folder}: {made.stderr.strip()}")
    return Case(_workbench("run", "-q"), folder, 1)


SPECS = (
    Spec("command", '200 `kind = "command"` rows (`{python} target.py` per row)',
         _rows_project(200, {"kind": "command", "command": ["{python}", "target.py"]})),
    Spec("python", '5,000 `kind = "python"` rows (`run -q`)',
         _rows_project(5000, {"kind": "python", "callable": "target:add_one"})),
    Spec("help", "`workbench --help`", _help),
    Spec("init", "`workbench run -q` on the project `workbench init` makes", _init_project),
)


def tree_env(tree: Path, pycache: Path | None = None) -> dict[str, str]:
    """The environment that makes `tree`'s workbench the one imported (its children inherit it). With
    `pycache`, compiled modules are written and read there (as an installed package's are, compiled at
    install), even where PYTHONDONTWRITEBYTECODE is set: otherwise every sample would compile every module."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(tree), *filter(None, [os.environ.get("PYTHONPATH")])])
    env.pop("WORKBENCH_TRACE", None)
    if pycache is not None:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(pycache)
    return env


def check_tree(tree: Path) -> None:
    """Refuse to measure a tree whose workbench is not the one a child imports."""
    probe = subprocess.run([sys.executable, "-c", "import workbench; print(workbench.__file__)"],
                           cwd=tempfile.gettempdir(), env=tree_env(tree), capture_output=True, text=True, timeout=60,
                           check=False)  # not from this checkout's folder, whose workbench/ `-c` would import
    found = Path(probe.stdout.strip()).resolve()
    if probe.returncode != 0 or found.parent.parent != tree.resolve():
        raise RuntimeError(f"a child started with PYTHONPATH={tree} imports workbench from "
                           f"{probe.stdout.strip() or probe.stderr.strip()}, not from {tree}")


# Started by `timed` as a fresh, small interpreter that forks the measured command: a process's peak
# RSS (`ru_maxrss`) keeps the memory of what it was forked from, even across exec, so forking it from
# this benchmark (which imported workbench) would report this process's size instead of the child's.
LAUNCHER = """\
import json, os, sys, time
cwd, argv = sys.argv[1], sys.argv[2:]
started = time.perf_counter()
pid = os.fork()
if pid == 0:
    try:
        os.chdir(cwd)
        null = os.open(os.devnull, os.O_RDWR)
        os.dup2(null, 0)
        os.dup2(null, 1)
        os.execv(argv[0], argv)
    finally:
        os._exit(127)
_, status, usage = os.wait4(pid, 0)
print(json.dumps({"wall": time.perf_counter() - started, "maxrss_kib": usage.ru_maxrss,
                  "cpu": usage.ru_utime + usage.ru_stime, "code": os.waitstatus_to_exitcode(status)}))
"""


def timed(argv: list[str], cwd: Path, env: dict[str, str]) -> Sample:
    """Run `argv` in `cwd` to its end, in a process group of its own (killed with it after SAMPLE_TIMEOUT_S)."""
    shutil.rmtree(cwd / ".workbench", ignore_errors=True)
    with tempfile.TemporaryFile() as err:
        process = subprocess.Popen([sys.executable, "-c", LAUNCHER, str(cwd), *argv], env=env,
                                   stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=err,
                                   start_new_session=True)
        try:
            out, _ = process.communicate(timeout=SAMPLE_TIMEOUT_S)
        finally:
            _kill_group(process.pid)  # the command on a timeout, and whatever it left in its group
            process.wait()
        got = json.loads(out) if process.returncode == 0 else {"code": process.returncode}
        if got["code"] != 0:
            err.seek(0)
            detail = err.read().decode("utf-8", "replace").strip()[-800:]
            raise RuntimeError(f"`{' '.join(argv[2:])}` in {cwd} exited {got['code']}: {detail}")
    return Sample(got["wall"], got["maxrss_kib"] / 1024, got["cpu"])


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def promptfoo_seconds(folder: Path, rows: int = 200) -> float | None:
    """promptfoo's time on the same 200 rows (an `exec:` provider running the same Python per row, an
    `equals` assertion each), or None when `promptfoo` is not installed (on PATH or
    WORKBENCH_BENCH_PROMPTFOO, a path to its executable)."""
    program = os.environ.get("WORKBENCH_BENCH_PROMPTFOO") or shutil.which("promptfoo")
    if not program:
        return None
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "target.py").write_text(PROMPTFOO_TARGET, encoding="utf-8")
    config = {
        "prompts": ["{{x}}"],
        "providers": [f"exec: {sys.executable} target.py"],
        "tests": [{"vars": {"x": str(i)}, "assert": [{"type": "equals", "value": json.dumps({"y": i + 1})}]}
                  for i in range(rows)],
    }
    (folder / "promptfooconfig.json").write_text(json.dumps(config), encoding="utf-8")
    env = dict(os.environ, PROMPTFOO_DISABLE_TELEMETRY="1", PROMPTFOO_DISABLE_UPDATE="1",
               PROMPTFOO_CONFIG_DIR=str(folder / ".promptfoo"))
    started = time.perf_counter()
    done = subprocess.run([program, "eval", "-c", "promptfooconfig.json", "--no-cache", "--no-progress-bar",
                           "--no-table", "--no-write"], cwd=folder, env=env, capture_output=True, text=True,
                          timeout=SAMPLE_TIMEOUT_S, check=False)
    seconds = time.perf_counter() - started
    if done.returncode != 0:  # promptfoo exits non-zero when any assertion failed, too
        raise RuntimeError(f"promptfoo exited {done.returncode}: {(done.stdout + done.stderr).strip()[-800:]}")
    return seconds


def _median(samples: list[Sample]) -> Sample:
    return Sample(statistics.median(s.wall_s for s in samples), statistics.median(s.rss_mib for s in samples),
                  statistics.median(s.cpu_s for s in samples))


def _spread(samples: list[Sample]) -> str:
    walls = sorted(s.wall_s for s in samples)
    return f"{walls[0]:.2f}–{walls[-1]:.2f}"


def measure(trees: dict[str, Path], specs: tuple[Spec, ...], repeats: int, workdir: Path) -> dict[str, dict[str, Case]]:
    """Every spec on every tree, `repeats` samples each, the trees alternating (A B, then B A, ...)."""
    for tree in trees.values():
        check_tree(tree)
    cases = {spec.name: {label: spec.make(workdir / spec.name / label, tree) for label, tree in trees.items()}
             for spec in specs}
    envs = {label: tree_env(tree, workdir / "pycache" / str(number))
            for number, (label, tree) in enumerate(trees.items())}
    for spec in specs:  # one sample each not counted: modules compiled, files in the page cache
        for label in trees:
            timed(cases[spec.name][label].argv, cases[spec.name][label].cwd, envs[label])
    labels = list(trees)
    for round_number in range(repeats):
        order = labels if round_number % 2 == 0 else labels[::-1]
        for spec in specs:
            for label in order:
                case = cases[spec.name][label]
                print(f"  {spec.name} on {label}, sample {round_number + 1}/{repeats}", file=sys.stderr, flush=True)
                case.samples.append(timed(case.argv, case.cwd, envs[label]))
    return cases


def side_by_side(trees: dict[str, Path], specs: tuple[Spec, ...], cases: dict[str, dict[str, Case]],
                 promptfoo: float | None) -> str:
    """The table: each measure's median (range) and peak RSS per tree, and the ratio of the last to the first."""
    labels = list(trees)
    first, last = labels[0], labels[-1]
    header = ["measure", *(f"{label}: median wall (range), CPU, peak RSS" for label in trees), f"{last} / {first}"]
    lines = [header]
    for spec in specs:
        row = [spec.title]
        medians = {}
        for label in trees:
            samples = cases[spec.name][label].samples
            med = medians[label] = _median(samples)
            rows = cases[spec.name][label].rows
            rate = f", {rows / med.wall_s:,.0f} rows/s" if rows >= 100 else ""
            row.append(f"{med.wall_s:.2f} s ({_spread(samples)}), CPU {med.cpu_s:.2f} s, {med.rss_mib:.0f} MiB{rate}")
        row.append(f"{medians[last].wall_s / medians[first].wall_s:.2f}× time, "
                   f"{medians[last].cpu_s / medians[first].cpu_s:.2f}× CPU, "
                   f"{medians[last].rss_mib / medians[first].rss_mib:.2f}× RSS")
        lines.append(row)
    if "command" in cases:
        if promptfoo is None:
            lines.append(["promptfoo on the same 200 rows", "not installed: not measured", *[""] * len(trees)])
        else:
            lines.append(["promptfoo on the same 200 rows", f"{promptfoo:.2f} s",
                          *(f"{label}: {_median(cases['command'][label].samples).wall_s / promptfoo:.2f}× promptfoo"
                            for label in trees)])
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    text = [" | ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip() for line in lines]
    text.insert(1, "-+-".join("-" * width for width in widths))
    return "\n".join(text)


def select(names: str) -> tuple[Spec, ...]:
    """The specs named in a comma-separated list (all when empty)."""
    wanted = [name.strip() for name in names.split(",") if name.strip()]
    unknown = sorted(set(wanted) - {spec.name for spec in SPECS})
    if unknown:
        raise SystemExit(f"unknown measure(s) {', '.join(unknown)}; choose from {', '.join(s.name for s in SPECS)}")
    return tuple(spec for spec in SPECS if not wanted or spec.name in wanted)


def run(quick: bool = False) -> list[Measure]:
    """In the suite: the four measures on this tree alone (3 samples each; 1 with --quick)."""
    with tempfile.TemporaryDirectory(prefix="wb-bench-against-") as tmp:
        trees = {"this tree": ROOT}
        cases = measure(trees, SPECS, 1 if quick else 3, Path(tmp))
        promptfoo = promptfoo_seconds(Path(tmp) / "promptfoo") if not quick else None
    measures = []
    for spec in SPECS:
        case = cases[spec.name]["this tree"]
        med = _median(case.samples)
        rate = f", {case.rows / med.wall_s:,.0f} rows/s" if case.rows >= 100 else ""
        measures.append(Measure("15 issue 33", spec.title, f"{med.wall_s:.2f} s ({_spread(case.samples)}), "
                                                          f"CPU {med.cpu_s:.2f} s, peak {med.rss_mib:.0f} MiB{rate}"))
    if promptfoo is not None:
        ours = _median(cases["command"]["this tree"].samples).wall_s
        measures.append(Measure("15 issue 33", "200 command rows vs promptfoo",
                                f"{ours:.2f} s vs {promptfoo:.2f} s = {ours / promptfoo:.2f}×", "≤ 0.10×",
                                ours / promptfoo <= 0.10))
    return measures
