"""What runs on a Ray worker: the project's own local runner, built there, running rows there.

A task (`command`, `uip` rows) builds a runner for its one row and closes it, so the target's process
group, timeout and kill all happen on the worker. An actor (`python`, `worker` rows) keeps one runner
for the iteration, so its target process stays up between rows as it does locally. Either way the
project folder is the worker's current directory (Ray's working directory) and `{python}` is the
worker's own interpreter. Outcomes travel back whole (output, error, log, trace, duration); nothing is
scored here. After each row, what its target moved into a session of its own (a double fork, `setsid`)
is killed, as at the end of a local iteration (`reaper.sweep_escaped`): a worker serves one row at a
time, so that is all that row's.

This module imports no Ray: Ray wraps these functions on the driver and runs them on the workers,
which therefore need workbench installed (the same version as the driver).
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Callable
from pathlib import Path

from ..config import ClusterConfig, Config
from ..runners.base import RUNNER_FAULTS, Runner, RunOutcome, RunRequest, outcome_from_exception
from ..runners.reaper import sweep_escaped

LocalFactory = Callable[[Config], Runner]


def on_this_worker(config: Config, *, keeps_processes: bool) -> Config:
    """The driver's settings, for a runner on this worker: the shipped project is the current folder,
    the cluster is not used again from here, and each runner serves one row at a time (the cluster
    decides how many run at once). A task's row gets a plain process: a warm parent would be started
    and thrown away with every row."""
    local = copy.deepcopy(config)
    local.root = Path.cwd()
    local.cluster = ClusterConfig()
    local.runner.concurrency = 1
    if not keeps_processes:
        local.runner.preload = False
    return local


# How often a task's event loop wakes to notice Ray's cancel. Ray cancels a task by interrupting its
# thread the next time it runs Python code, which an event loop blocked on a quiet child never does.
_NOTICE_S = 0.1


async def _tick() -> None:
    while True:
        await asyncio.sleep(_NOTICE_S)


async def _run_once(runner: Runner, request: RunRequest) -> RunOutcome:
    """The row, then the runner closed. Cancelled by Ray, asyncio cancels the row and the runner's own
    cleanup kills the target's process group, as a local cancel does."""
    ticker = asyncio.ensure_future(_tick())
    try:
        return await runner.run(request)
    except RUNNER_FAULTS as exc:
        return outcome_from_exception(exc)
    finally:
        ticker.cancel()
        await runner.aclose()
        sweep_escaped()


def run_row(config: Config, request: RunRequest, make_runner: LocalFactory) -> RunOutcome:
    """A Ray task: one row, on a runner built for it on this worker."""
    runner = make_runner(on_this_worker(config, keeps_processes=False))
    return asyncio.run(_run_once(runner, request))


class RowHost:
    """A Ray actor: one local runner (one target process) kept for the iteration, one row at a time."""

    def __init__(self, config: Config, make_runner: LocalFactory) -> None:
        self.runner = make_runner(on_this_worker(config, keeps_processes=True))

    async def run(self, request: RunRequest) -> RunOutcome:
        try:
            return await self.runner.run(request)
        except RUNNER_FAULTS as exc:
            return outcome_from_exception(exc)
        finally:
            sweep_escaped()  # the kept target process's own group is spared

    async def close(self) -> None:
        await self.runner.aclose()
        sweep_escaped()
