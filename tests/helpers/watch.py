"""Drive `Session.watch()` in-process on a temporary project: one harness for the watch-loop tests
and the hardening storms. It records what was requested and what completed, and every wait fails
with a message (after a generous timeout) instead of hanging."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from workbench.config import load_config
from workbench.events import IterationReport, Trigger
from workbench.progress import IterationSummary
from workbench.session import Session

WAIT_S = 60.0  # for something that should happen; generous, only reached when a test fails
QUIET_S = 2.0  # longer than the watcher's longest batch (1 s): nothing more is coming after this


class WatchHarness:
    """Runs `Session.watch()` as a task; records what was requested and what completed."""

    def __init__(self, root: Path, **session_options: Any) -> None:
        self.completed: list[tuple[IterationReport, IterationSummary]] = []
        self.requested: list[Trigger] = []
        self.notices: list[str] = []
        self.ready = asyncio.Event()
        self._changed = asyncio.Event()
        self.session = Session(load_config(root), on_iteration=self._on_iteration, on_notice=self.notices.append,
                               **session_options)
        original = self.session.request

        def request(trigger: Trigger, selection: Any = None, **options: Any) -> Any:
            self.requested.append(trigger)
            return original(trigger, selection, **options)

        self.session.request = request  # type: ignore[method-assign]
        self.task: asyncio.Task[None] | None = None

    @property
    def reports(self) -> list[IterationReport]:
        return [report for report, _ in self.completed]

    def _on_iteration(self, report: IterationReport, summary: IterationSummary) -> None:
        self.completed.append((report, summary))
        self._changed.set()

    async def start(self) -> None:
        self.task = asyncio.create_task(self.session.watch(ready=self.ready))
        await self.until(self.ready.is_set, "the watcher to start")

    async def wait_for(self, count: int) -> tuple[IterationReport, IterationSummary]:
        """Until `count` iterations have completed; returns the last one."""
        await self.until(lambda: len(self.completed) >= count, f"{count} completed iteration(s)")
        return self.completed[count - 1]

    async def until(self, condition: Callable[[], Any], what: str) -> None:
        deadline = time.monotonic() + WAIT_S
        while not condition():
            assert self.task is not None
            if self.task.done():
                self.task.result()  # raises what stopped the watcher
                pytest.fail(f"the watch loop ended while waiting for {what}")
            if time.monotonic() > deadline:
                pytest.fail(f"timed out waiting for {what}; requested {self.requested}, "
                            f"completed {[r.trigger for r, _ in self.completed]}, notices {self.notices}")
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), 0.05)

    async def settle(self) -> None:
        """Until nothing new was requested for QUIET_S and no iteration runs."""
        seen, since = len(self.requested), time.monotonic()
        while time.monotonic() - since < QUIET_S or self.session.running:
            await asyncio.sleep(0.05)
            if len(self.requested) != seen:
                seen, since = len(self.requested), time.monotonic()
        await self.session.wait_idle()

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task
        await self.session.aclose()


@contextlib.asynccontextmanager
async def watching(root: Path, *, wait_first: bool = True, **session_options: Any) -> AsyncIterator[WatchHarness]:
    """A running harness; with `wait_first`, after the start iteration has completed."""
    harness = WatchHarness(root, **session_options)
    try:
        await harness.start()
        if wait_first:
            await harness.wait_for(1)
        yield harness
    finally:
        await harness.stop()
