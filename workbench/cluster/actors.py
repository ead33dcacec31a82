"""The actors that serve `python` and `worker` rows on the cluster: each holds one local runner (one
target process) for the iteration and serves one row at a time, like a slot of the local worker pool.

Actors start as rows need them, up to the iteration's rows in flight. One whose row was cancelled,
timed out or failed in Ray is retired and replaced, never reused: its process may be mid-row. Retiring
asks the actor to close its runner first (which kills the target's process groups, grandchildren
included), and kills the actor after that or after CLOSE_GRACE_S.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from ..runners.base import RunOutcome, RunRequest
from .connection import ClusterStatus
from .faults import STOP_GRACE_S, answer, ended

CLOSE_GRACE_S = STOP_GRACE_S  # for an actor to close its target processes itself before it is killed


@dataclass(slots=True)
class Slot:
    """A place in the pool: the actor serving it, or None until one is started."""

    actor: Any = None


class ActorPool:
    def __init__(self, ray: ModuleType, host: Any, *, size: int, status: ClusterStatus, cpus: float) -> None:
        self.ray = ray
        self.host = host  # the RowHost actor class with its options (CPUs, runtime environment) set
        self.status = status
        self.cpus = cpus
        self._live: list[Any] = []
        self._slots: asyncio.Queue[Any] = asyncio.Queue()
        for _ in range(size):
            self._slots.put_nowait(None)

    async def take(self) -> Slot:
        return Slot(await self._slots.get())

    def put_back(self, slot: Slot) -> None:
        self._slots.put_nowait(slot.actor)

    async def run_in(self, slot: Slot, request: RunRequest, seconds: float) -> RunOutcome:
        """One row on the slot's actor (started when the slot has none). Any way this ends other than
        an outcome (cancelled, no answer, a Ray failure) kills the actor and re-raises."""
        if slot.actor is None:
            slot.actor = self.host.remote()
            self._live.append(slot.actor)
            self.status.actor_cpus += self.cpus
        ref = slot.actor.run.remote(request)
        try:
            outcome: RunOutcome = await answer(ref, seconds)
        except BaseException:
            with contextlib.suppress(Exception):
                self.ray.cancel(ref)  # an actor's row: asyncio-cancelled there, its target killed
            actor, slot.actor = slot.actor, None
            await self._retire([actor])
            raise
        return outcome

    async def close(self) -> None:
        await self._retire(list(self._live))

    async def _retire(self, actors: list[Any]) -> None:
        """Let the actors close their runners, then kill them (whether they managed or not)."""
        actors = [actor for actor in actors if actor in self._live]
        for actor in actors:
            self._live.remove(actor)
        try:
            await asyncio.wait_for(asyncio.gather(*(ended(actor.close.remote()) for actor in actors)), CLOSE_GRACE_S)
        except TimeoutError:
            pass
        finally:  # also when this wait is cancelled: killed at once then
            for actor in actors:
                self.status.actor_cpus = max(0.0, self.status.actor_cpus - self.cpus)
                with contextlib.suppress(Exception):  # already gone
                    self.ray.kill(actor, no_restart=True)
