"""How many rows run at once when `[runner] concurrency` is not set: what fits this machine and the target.

Measured on 2 cores (benchmarks/bench_uip_concurrency.py, benchmarks/README.md #10): a `uip` run mostly
waits (Node's start-up I/O, the workflow's HTTP activities), so many more runs than cores overlap well —
27 rows of a stand-in took 0.41 × the seed scorer's time at 4, 0.24–0.32 at 8, 0.23–0.28 at 16, 0.25–0.27 at
27 (a loaded machine: the ranges are two runs) — and a CPU-only stand-in lost nothing above the cores. So:

* `command`, `worker`, `python` (a process or a worker per slot, often CPU-bound): one per core, at least 4
  (the old fixed default: an agent waiting on a model's API still overlaps on a small machine);
* `uip`: 8 per core, between 16 and 32 (each run is a Node process of ~100 MB; 32 bounds the memory).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..config import Config

PROCESS_FLOOR = 4
UIP_PER_CORE, UIP_FLOOR, UIP_CAP = 8, 16, 32


def cores() -> int:
    """The cores this process may use (its CPU affinity, which containers narrow), else os.cpu_count()."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def default_concurrency(kind: str, cpus: int | None = None) -> int:
    """Rows at once for runner `kind` on a machine of `cpus` cores (default: this one's)."""
    cpus = cpus if cpus is not None else cores()
    if kind == "uip":
        return min(UIP_CAP, max(UIP_FLOOR, UIP_PER_CORE * cpus))
    return max(PROCESS_FLOOR, cpus)


def concurrency_of(config: Config) -> int:
    """`[runner] concurrency` (or --concurrency) when set, else the default for the project's runner kind."""
    from ..config import ConfigError, resolve_runner_kind

    if config.runner.concurrency is not None:
        return config.runner.concurrency
    try:
        kind = resolve_runner_kind(config)
    except ConfigError:  # nothing runs the rows (a replay-only project): any count will do
        kind = "command"
    return default_concurrency(kind)
