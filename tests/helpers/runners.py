"""Drive a runner through its API, as the engine would: one row, rows one after another on one runner, or a row
cancelled once its target has started."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from workbench.config import Config
from workbench.runners import LogSink, Runner, RunOutcome, RunRequest, make_runner
from workbench.runners.preload import PreloadRunner

START_WAIT_TRIES = 600  # x 0.05 s: a 30 s hang guard, it stops as soon as the target has started


def rows_in_turn(config: Config, rows: list[dict[str, Any]]) -> list[RunOutcome]:
    """The rows one after another on one runner (a worker serves them all from one process); a warm parent
    that fell back to fresh processes fails the test, since the row was then not run the way asked."""
    async def go() -> list[RunOutcome]:
        runner = make_runner(config)
        try:
            outcomes = [await runner.run(RunRequest(inputs, f"r{i}", f"row {i}", "set.json", "default"))
                        for i, inputs in enumerate(rows)]
            if isinstance(runner, PreloadRunner):
                assert runner.fallback_reason is None, runner.fallback_reason
            return outcomes
        finally:
            await runner.aclose()

    return asyncio.run(go())


async def cancel_once_started(runner: Runner, request: RunRequest, started: Path) -> None:
    """Run `request`, wait until its target has written something to `started`, cancel the row (it must end
    cancelled) and close the runner."""
    task = asyncio.ensure_future(runner.run(request))
    for _ in range(START_WAIT_TRIES):
        if started.exists() and started.read_text():
            break
        await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await runner.aclose()


def run_row(runner: Runner, inputs: dict[str, Any], *, row_id: str = "row-1", row_name: str = "row one",
            set_file: str = "s.json", scope: str = "default", on_log: LogSink | None = None) -> RunOutcome:
    """One row on `runner`, which is closed afterwards."""
    async def go() -> RunOutcome:
        try:
            return await runner.run(RunRequest(inputs=inputs, row_id=row_id, row_name=row_name,
                                               set_file=set_file, scope=scope), on_log)
        finally:
            await runner.aclose()

    return asyncio.run(go())


def row_error(runner: Runner, inputs: dict[str, Any]) -> str:
    """The error of one row on `runner` that must fail (the test fails here if it did not)."""
    outcome = run_row(runner, inputs)
    assert not outcome.ok, outcome.output
    assert outcome.error is not None
    return outcome.error
