"""`[cluster] engine = "ray"`: the configured runner kind, run on a Ray cluster.

`command` and `uip` rows are Ray tasks that start the target on a worker; `python` and `worker` rows
go to actors that keep their target process for the iteration (`remote.py` is the worker side).
Each row's outcome (output or error, log, trace, duration) comes back whole; scoring, history and
write-back stay here on the driver. The first row connects (`connection.py`) and ships the project
(`shipping.py`) once for the iteration; a failure there is every row's ERROR, never a traceback.

Cancelling a row (a file change, Ctrl-C, `q`) force-cancels its task, which kills the worker process
and with it the target's process group, or kills its actor. A worker or node that dies mid-row makes
the row an ERROR, or runs it once more per `[cluster] retries`.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager, AbstractContextManager, nullcontext
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from ..config import Config
from ..runners.base import LogSink, Runner, RunOutcome, RunRequest
from ..runners.worker import START_TIMEOUT_S as WORKER_START_TIMEOUT_S
from .actors import ActorPool, Slot
from .connection import (
    ClusterError,
    ClusterStatus,
    address_of,
    connect,
    current_status,
    in_background,
    in_flight_limit,
    require_ray,
)
from .faults import ANSWER_GRACE_S, NoAnswer, answer, failure_text, stop_task, worker_died
from .remote import LocalFactory, RowHost, run_row
from .shipping import ShippingError, ship_project

ACTOR_KINDS = ("python", "worker")


@dataclass(slots=True)
class _Shipped:
    """What every row of the iteration is sent with: the connection, the project, the settings."""

    ray: ModuleType
    status: ClusterStatus
    runtime_env: dict[str, Any]
    config_ref: Any


@functools.cache
def _remote_row(ray: ModuleType) -> Any:
    return ray.remote(run_row)


@functools.cache
def _remote_host(ray: ModuleType) -> Any:
    return ray.remote(RowHost)


class RayRunner(Runner):
    def __init__(self, config: Config, kind: str, make_local: LocalFactory) -> None:
        super().__init__(config)
        self.kind = kind
        self.make_local = make_local  # builds the local runner on the worker (workbench.runners.make_runner)
        self.cpus = config.cluster.cpus_per_row
        self._shipping: asyncio.Future[_Shipped | str] | None = None
        self._pool: ActorPool | None = None
        self._tasks: set[Any] = set()
        self._closed = False

    # -- the iteration's setup -------------------------------------------------------------------

    async def shipped(self) -> _Shipped | str:
        """Connected and shipped (once per runner), or why not: the ERROR of every row."""
        if self._closed:
            return "the iteration is closing"
        if self._shipping is None:
            self._shipping = asyncio.ensure_future(self._ship())
        return await asyncio.shield(self._shipping)

    async def _ship(self) -> _Shipped | str:
        try:
            ray = require_ray()
            status = await in_background(connect, self.config)
            runtime_env = await in_background(ship_project, ray, self.config)
            config_ref = ray.put(self.config)
        except (ClusterError, ShippingError) as exc:
            return str(exc)
        except Exception as exc:  # the connection broke between iterations
            return f"the Ray cluster at {address_of(self.config.cluster)} failed: {type(exc).__name__}: {exc}"
        return _Shipped(ray, status, runtime_env, config_ref)

    def pool(self, shipped: _Shipped) -> ActorPool:
        if self._pool is None:
            host = _remote_host(shipped.ray).options(num_cpus=self.cpus, runtime_env=shipped.runtime_env,
                                                     max_restarts=0)
            host = _Bound(host, shipped.config_ref, self.make_local)
            size = in_flight_limit(shipped.status, self.config.cluster)
            self._pool = ActorPool(shipped.ray, host, size=size, status=shipped.status, cpus=self.cpus)
        return self._pool

    # -- rows ------------------------------------------------------------------------------------

    async def run(self, request: RunRequest, on_log: LogSink | None = None) -> RunOutcome:
        # Counted before the first await, so a front-end repainting for the row's start shows it.
        with counted(self.cpus):
            outcome = await self._run(request)
        replay(outcome, on_log)
        return outcome

    async def _run(self, request: RunRequest) -> RunOutcome:
        shipped = await self.shipped()
        if isinstance(shipped, str):
            return RunOutcome(error=shipped)
        if self.kind in ACTOR_KINDS:
            pool = self.pool(shipped)
            slot = await pool.take()
            try:
                outcome = await self.attempts(shipped, lambda: pool.run_in(slot, request, self.deadline(request)))
            finally:
                pool.put_back(slot)
        else:
            outcome = await self.attempts(shipped, lambda: self._task(shipped, request))
        return outcome

    def deadline(self, request: RunRequest) -> float:
        """How long the driver waits for the row's outcome: its timeout, Ray's grace, and for an actor's row the
        start-up deadline its worker process has on top of the row's timeout (`runners/worker.py`)."""
        start_up = WORKER_START_TIMEOUT_S if self.kind in ACTOR_KINDS else 0.0
        return request.time_limit(self.config.runner.timeout) + start_up + ANSWER_GRACE_S

    async def attempts(self, shipped: _Shipped, attempt: Callable[[], Awaitable[RunOutcome]]) -> RunOutcome:
        """Run the row; when its worker dies, again, up to [cluster] retries times (each noted in its log)."""
        notes: list[str] = []
        for tried in range(self.config.cluster.retries + 1):
            try:
                outcome = await attempt()
            except NoAnswer as exc:
                return RunOutcome(error=str(exc), log="\n".join(notes))
            except Exception as exc:  # Ray's errors, and a connection to the cluster that broke
                if worker_died(shipped.ray, exc) and tried < self.config.cluster.retries:
                    notes.append(f"[workbench] {failure_text(shipped.ray, exc)}; running the row again "
                                 f"([cluster] retries = {self.config.cluster.retries})")
                    continue
                return RunOutcome(error=failure_text(shipped.ray, exc), log="\n".join(notes))
            if notes:
                outcome.log = "\n".join([*notes, outcome.log] if outcome.log else notes)
            return outcome
        raise AssertionError("unreachable: the last attempt returns")

    async def _task(self, shipped: _Shipped, request: RunRequest) -> RunOutcome:
        """One attempt as a Ray task; cancelled or unanswered, the task is stopped (`stop_task`) before
        this returns, so the next iteration never starts beside it."""
        task = _remote_row(shipped.ray).options(num_cpus=self.cpus, runtime_env=shipped.runtime_env, max_retries=0)
        ref = task.remote(shipped.config_ref, request, self.make_local)
        self._tasks.add(ref)
        try:
            outcome: RunOutcome = await answer(ref, self.deadline(request))
        except (asyncio.CancelledError, NoAnswer):
            await stop_task(shipped.ray, ref)
            raise
        finally:
            self._tasks.discard(ref)
        return outcome

    def hold(self) -> AbstractAsyncContextManager[Runner]:
        """A conversation's turns all reach the same actor, so a target keeping state in memory keeps it."""
        return _HeldActor(self) if self.kind in ACTOR_KINDS else nullcontext(self)

    async def aclose(self) -> None:
        self._closed = True
        shipping, self._shipping = self._shipping, None
        if shipping is None:
            return
        if not shipping.done():
            shipping.cancel()
            return
        shipped = shipping.result()
        if isinstance(shipped, str):
            return
        await asyncio.gather(*(stop_task(shipped.ray, ref) for ref in list(self._tasks)), return_exceptions=True)
        if self._pool is not None:
            await self._pool.close()


class _Bound:
    """The actor class with its constructor arguments bound, so the pool only says `remote()`."""

    def __init__(self, host: Any, config_ref: Any, make_local: LocalFactory) -> None:
        self.host, self.config_ref, self.make_local = host, config_ref, make_local

    def remote(self) -> Any:
        return self.host.remote(self.config_ref, self.make_local)


class _HeldActor(Runner):
    """One actor of the pool kept for a block of requests (a conversation's turns)."""

    def __init__(self, runner: RayRunner) -> None:
        super().__init__(runner.config)
        self.runner = runner
        self.slot: Slot | None = None
        self.pool: ActorPool | None = None

    async def __aenter__(self) -> _HeldActor:
        shipped = await self.runner.shipped()
        if not isinstance(shipped, str):
            self.pool = self.runner.pool(shipped)
            self.slot = await self.pool.take()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        if self.pool is not None and self.slot is not None:
            self.pool.put_back(self.slot)

    async def run(self, request: RunRequest, on_log: LogSink | None = None) -> RunOutcome:
        shipped = await self.runner.shipped()
        if isinstance(shipped, str):
            return RunOutcome(error=shipped)
        pool, slot = self.pool, self.slot
        assert pool is not None and slot is not None
        with counted(self.runner.cpus):
            outcome = await self.runner.attempts(shipped, lambda: pool.run_in(slot, request,
                                                                              self.runner.deadline(request)))
        replay(outcome, on_log)
        return outcome


def counted(cpus: float) -> AbstractContextManager[None]:
    """The row counted in the cluster's status for the block (nothing to count before a connection)."""
    status = current_status()
    return status.row(cpus) if status is not None else nullcontext()


def replay(outcome: RunOutcome, on_log: LogSink | None) -> None:
    """The row's log lines reach the live log when its outcome arrives (they can't stream from a worker)."""
    if on_log is not None and outcome.log:
        for line in outcome.log.splitlines():
            on_log(line)
