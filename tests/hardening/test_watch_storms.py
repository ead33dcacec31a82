"""Watching under abuse: thousands of file events in about a second run a bounded number of iterations (the
last one on the final content), and deleting `evals/` and putting it back while watching recovers."""

from __future__ import annotations

import asyncio
import contextlib
import json
import shutil
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import EXACT, make_project, row
from hardening_support import WAIT_S, FixedRunner

from workbench.config import load_config
from workbench.events import IterationReport, Trigger
from workbench.progress import IterationSummary
from workbench.session import Session

pytestmark = pytest.mark.hardening

QUIET_S = 2.0  # longer than the watcher's longest batch (1 s): nothing more is coming after this


class Loop:
    """`Session.watch()` as a task, counting what was requested and what completed."""

    def __init__(self, root: Path, runner: Callable[..., Any]) -> None:
        self.requested: list[Trigger] = []
        self.completed: list[IterationReport] = []
        self.notices: list[str] = []
        self.ready = asyncio.Event()
        self.session = Session(load_config(root), on_iteration=self._done, on_notice=self.notices.append,
                               record=False, runner_factory=runner)
        original = self.session.request

        def request(trigger: Trigger, selection: Any = None, **options: Any) -> Any:
            self.requested.append(trigger)
            return original(trigger, selection, **options)

        self.session.request = request  # type: ignore[method-assign]
        self.task: asyncio.Task[None] | None = None

    def _done(self, report: IterationReport, _summary: IterationSummary) -> None:
        self.completed.append(report)

    async def until(self, condition: Callable[[], bool], what: str) -> None:
        deadline = time.monotonic() + WAIT_S
        while not condition():
            assert self.task is not None
            if self.task.done():
                self.task.result()
                pytest.fail(f"the watch loop ended while waiting for {what}")
            assert time.monotonic() < deadline, f"timed out waiting for {what}: {self.requested}, {self.notices}"
            await asyncio.sleep(0.02)

    async def settle(self) -> None:
        """Until nothing new was requested for QUIET_S and no iteration runs."""
        seen, since = len(self.requested), time.monotonic()
        while time.monotonic() - since < QUIET_S or self.session.running:
            await asyncio.sleep(0.05)
            if len(self.requested) != seen:
                seen, since = len(self.requested), time.monotonic()
        await self.session.wait_idle()


@contextlib.asynccontextmanager
async def watching(root: Path, runner: Callable[..., Any]) -> AsyncIterator[Loop]:
    loop = Loop(root, runner)
    loop.task = asyncio.create_task(loop.session.watch(ready=loop.ready))
    try:
        await loop.until(lambda: loop.ready.is_set() and len(loop.completed) >= 1, "the first iteration")
        yield loop
    finally:
        loop.task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await loop.task
        await loop.session.aclose()


def set_document(expected: int) -> str:
    return json.dumps({"version": "1.0", "evaluatorRefs": [EXACT],
                       "evaluations": [row("r", {}, {"v": expected}, id="r")]})


async def test_thousands_of_events_in_a_second_run_a_bounded_number_of_iterations(tmp_path: Path) -> None:
    root = make_project(tmp_path, sets={"s": set_document(0)})
    set_file = root / "evals" / "default" / "eval-sets" / "s.json"
    scratch = root / "scratch"
    scratch.mkdir()
    async with watching(root, FixedRunner.factory({"r": {"v": 999}})) as loop:
        before = len(loop.requested)
        writes, started = 0, time.monotonic()
        while time.monotonic() - started < 1.0 or writes < 2000:
            for index in range(50):  # new files, rewrites and deletions, as a build or a checkout makes
                path = scratch / f"f{(writes + index) % 400}.txt"
                if index % 10 == 9:
                    path.unlink(missing_ok=True)
                else:
                    path.write_text(str(writes + index))
            set_file.write_text(set_document(writes))
            writes += 51
            await asyncio.sleep(0)  # the watcher shares this loop, as it does in the TUI
        storm_s = time.monotonic() - started
        set_file.write_text(set_document(999))  # the final content
        await loop.settle()
    batches = len(loop.requested) - before
    # The watcher cuts a storm into batches at most a second apart: about one per second of storm.
    assert 1 <= batches <= storm_s + 3, (batches, storm_s, writes)
    last = loop.completed[-1]
    assert [r.verdict.value for r in last.results] == ["PASS"], "the last iteration did not see the final file"


async def test_deleting_and_recreating_evals_while_watching_recovers(tmp_path: Path) -> None:
    root = make_project(tmp_path, sets={"s": set_document(1)})
    async with watching(root, FixedRunner.factory({"r": {"v": 1}})) as loop:
        shutil.rmtree(root / "evals")
        await loop.until(lambda: any("no evals/ folder" in n for n in loop.notices), "a notice that evals/ is gone")
        done = len(loop.completed)
        make_project(tmp_path, sets={"s": set_document(1)})
        await loop.until(lambda: len(loop.completed) > done and loop.completed[-1].results, "an iteration again")
        assert [r.verdict.value for r in loop.completed[-1].results] == ["PASS"]
        assert not loop.task.done()  # type: ignore[union-attr]


async def test_deleting_a_watched_evals_folder_and_recreating_it_recovers(tmp_path: Path) -> None:
    """With `[watch] paths = ["evals"]` the folder being watched is itself deleted and made again."""
    root = make_project(tmp_path, sets={"s": set_document(1)}, config={"watch": {"paths": ["evals"]}})
    async with watching(root, FixedRunner.factory({"r": {"v": 1}})) as loop:
        shutil.rmtree(root / "evals")
        await loop.until(lambda: any("no evals/ folder" in n for n in loop.notices), "a notice that evals/ is gone")
        done = len(loop.completed)
        make_project(tmp_path, sets={"s": set_document(1)})
        await loop.until(lambda: len(loop.completed) > done and loop.completed[-1].results, "an iteration again")
        deadline = time.monotonic() + WAIT_S
        while not (loop.completed[-1].results and loop.completed[-1].results[0].verdict.value == "FAIL"):
            # saved again until seen: the new folder's watch may not have been live at the first save
            assert time.monotonic() < deadline, "edits in the new evals/ are never seen"
            (root / "evals" / "default" / "eval-sets" / "s.json").write_text(set_document(2))
            await asyncio.sleep(0.5)
