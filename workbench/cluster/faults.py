"""Waiting for a row's outcome from Ray, and what a Ray failure means for the row.

The row's own timeout is enforced on the worker; the driver waits that long plus a grace for Ray's
scheduling and a fresh worker's start-up, so a node that vanished without Ray noticing costs one
ERROR, never a hang.
"""

from __future__ import annotations

import asyncio
import contextlib
from types import ModuleType
from typing import Any

# Past the row's own timeout: scheduling, setting the project up on a node, starting a worker.
ANSWER_GRACE_S = 300.0
# For a cancelled task to clean up (kill the target's process group) before its worker is killed.
STOP_GRACE_S = 5.0

_DEATHS = ("WorkerCrashedError", "RayActorError", "NodeDiedError", "LocalRayletDiedError", "ObjectLostError",
           "OutOfMemoryError", "TaskCancelledError")


class NoAnswer(Exception):
    """Ray did not hand the outcome back in time."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"the Ray cluster did not hand this row's outcome back within {seconds:g}s "
                         "(its timeout plus the time Ray may take to start it); it was cancelled")


async def answer(ref: Any, seconds: float) -> Any:
    """The task's value, or NoAnswer after `seconds`; Ray's own errors (RayError) pass through."""

    async def value() -> Any:
        return await ref

    try:
        return await asyncio.wait_for(value(), seconds)
    except TimeoutError:
        raise NoAnswer(seconds) from None


async def ended(ref: Any) -> None:
    """Until the task behind `ref` has ended, however it ended."""
    with contextlib.suppress(Exception):
        await ref


async def stop_task(ray: ModuleType, ref: Any) -> None:
    """Cancel a task so that it cleans up: Ray interrupts it, asyncio cancels the row and the runner
    kills the target's process group, as locally. Only a task still running after STOP_GRACE_S is
    forced (its worker process killed; Ray then kills that process's children, but not theirs)."""
    with contextlib.suppress(Exception):
        ray.cancel(ref, force=False)
    try:
        await asyncio.wait_for(ended(ref), STOP_GRACE_S)
    except TimeoutError:
        _force(ray, ref)
    except BaseException:  # this wait was cancelled as well: force at once
        _force(ray, ref)
        raise


def _force(ray: ModuleType, ref: Any) -> None:
    with contextlib.suppress(Exception):
        ray.cancel(ref, force=True)


def _of(ray: ModuleType, names: tuple[str, ...]) -> tuple[type[BaseException], ...]:
    """Ray's exception classes by name, skipping any this Ray version doesn't have."""
    return tuple(getattr(ray.exceptions, name) for name in names if hasattr(ray.exceptions, name))


def worker_died(ray: ModuleType, exc: BaseException) -> bool:
    """The process (or node) running the row went away: the row may be run again."""
    return isinstance(exc, _of(ray, _DEATHS))


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def failure_text(ray: ModuleType, exc: BaseException) -> str:
    """The row's ERROR for a Ray failure, in words that say where it happened."""
    if isinstance(exc, _of(ray, ("RuntimeEnvSetupError",))):
        return f"Ray could not set the project up on the worker: {_first_line(exc)}"
    if worker_died(ray, exc):
        return f"the Ray worker running this row died: {_first_line(exc)}"
    if isinstance(exc, _of(ray, ("RayTaskError",))):
        cause = getattr(exc, "cause", None) or exc
        return f"the runner failed on the Ray worker: {type(cause).__name__}: {_first_line(cause)}"
    return f"Ray could not run this row: {type(exc).__name__}: {_first_line(exc)}"
