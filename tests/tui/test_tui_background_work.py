"""The TUI's background work: a watcher that dies is reported and restarted (or said stopped) while the app
keeps answering keys; history is read and written off the UI thread; an iteration reaches the screen as
a fixed sequence of messages; an iteration cancelled without a replacement stops showing as running."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest
from helpers import tui
from helpers.tui import (
    SIZE,
    WAIT_S,
    FakeTarget,
    app_for,
    seed_history,
    selected_id,
    settle,
    static_text,
    status_text,
    to_first_row,
    wait_idle,
    wait_until,
    write_project,
)
from textual.message import Message
from textual.widgets import DataTable, TabbedContent

from workbench.history import HistoryStore
from workbench.tui.app import WorkbenchApp
from workbench.tui.messages import EngineMessage
from workbench.tui.watch_control import MAX_RESTARTS


def spy_notices(app: WorkbenchApp) -> list[tuple[str, str]]:
    """(severity, message) of every notification the app shows, in order."""
    seen: list[tuple[str, str]] = []
    show = app.notify

    def notify(message: str, **kwargs: Any) -> None:
        seen.append((str(kwargs.get("severity", "information")), message))
        show(message, **kwargs)

    app.notify = notify  # type: ignore[method-assign]
    return seen


def failing_watch(app: WorkbenchApp, failures: int) -> list[bool]:
    """Make the session's watcher raise the first `failures` times it starts, then watch for real."""
    starts: list[bool] = []
    real = app.session.watch

    async def watch(*, initial: bool = True, ready: asyncio.Event | None = None) -> None:
        starts.append(initial)
        if len(starts) <= failures:
            await asyncio.sleep(0)
            raise RuntimeError("inotify watch limit reached")
        await real(initial=initial, ready=ready)

    app.session.watch = watch  # type: ignore[method-assign]
    return starts


async def test_a_watcher_that_raises_is_reported_restarted_and_keys_keep_working(tmp_path: Path) -> None:
    app = app_for(write_project(tmp_path), FakeTarget(), watch=True)
    notices = spy_notices(app)
    starts = failing_watch(app, failures=1)
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(app, pilot)  # the restarted watcher ran everything to catch up
        await to_first_row(app, pilot)  # the app opens on the first failing row
        assert starts == [True, True]
        assert ("error", "watching the project for changes failed: RuntimeError: inotify watch limit reached") \
            in notices
        assert any(severity == "warning" and text.startswith("Watching restarted") for severity, text in notices)
        assert "● watching" in status_text(app) and "stopped" not in status_text(app)
        await pilot.press("j")
        assert selected_id(app) == "bravo"


async def test_a_watcher_that_keeps_failing_stops_visibly_and_the_app_keeps_running(tmp_path: Path) -> None:
    app = app_for(write_project(tmp_path), FakeTarget(), watch=True)
    notices = spy_notices(app)
    starts = failing_watch(app, failures=99)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: "watching stopped" in status_text(app), "the status says watching stopped")
        assert len(starts) == MAX_RESTARTS + 1
        failures = [text for severity, text in notices if severity == "error" and "inotify" in text]
        assert len(failures) == MAX_RESTARTS + 1
        assert any(text.startswith("Watching stopped") for _, text in notices)
        await pilot.press("R")  # re-running by hand still works
        await wait_idle(app, pilot)
        await to_first_row(app, pilot)  # the app opens on the first failing row
        assert [label[0] for label in tui.shown_rows(app).values()] == ["✔", "✘", "✔", "✘", "✔"]
        await pilot.press("j")
        assert selected_id(app) == "bravo"
        await pilot.press("w")  # w starts the watcher again (it fails again here, and says so)
        await wait_until(pilot, lambda: len(starts) > MAX_RESTARTS + 1, "w restarted the watcher")


async def test_history_reads_and_the_recording_never_block_the_keys(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = write_project(tmp_path)
    seed_history(config, [3, 4])
    release = threading.Event()  # holds the recording and every history read until the keys were answered
    recording, reading = threading.Event(), threading.Event()
    readers: list[int] = []
    record, results = HistoryStore.record, HistoryStore.results

    def slow_record(self: HistoryStore, report: Any, *, partial: bool = False) -> int:
        recording.set()
        release.wait(WAIT_S)
        return record(self, report, partial=partial)

    def slow_results(self: HistoryStore, number: int) -> Any:
        readers.append(threading.get_ident())
        reading.set()
        release.wait(WAIT_S)
        return results(self, number)

    app = app_for(config, FakeTarget(), record=True)  # the session reads what history remembers here, before
    monkeypatch.setattr(HistoryStore, "record", slow_record)  # the app runs; from now on reads must be off
    monkeypatch.setattr(HistoryStore, "results", slow_results)  # the UI thread
    try:
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: recording.is_set() and reading.is_set(),
                             "an iteration is being recorded while the history pane reads")
            await pilot.press("j", "j", "2")
            assert selected_id(app) == "charlie"
            assert app.query_one("#bottom", TabbedContent).active == "history"
            assert "iteration 1" not in status_text(app)  # the iteration's summary waits for the recording
            release.set()
            await wait_idle(app, pilot)
            assert app.query_one("#history-table", DataTable).row_count == 3
            assert static_text(app, "#history-detail").startswith("iteration 3")
            assert "3/5 rows pass" in status_text(app)
    finally:
        release.set()
    assert readers and threading.get_ident() not in readers


async def test_an_iteration_reaches_the_screen_as_began_then_rows_then_done(tmp_path: Path) -> None:
    seen: list[str] = []

    def hook(message: Message) -> None:
        if isinstance(message, EngineMessage):
            seen.append(type(message).__name__)

    app = app_for(write_project(tmp_path), FakeTarget())
    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        await wait_idle(app, pilot)
        first = list(seen)
        await pilot.press("R")
        await wait_idle(app, pilot, 2)
    in_order = [kind for index, kind in enumerate(first) if index == 0 or first[index - 1] != kind]
    assert in_order == ["IterationBegan", "RowsChanged", "IterationDone", "SessionIdle"]
    assert seen[len(first)] == "IterationBegan" and seen[-2:] == ["IterationDone", "SessionIdle"]


async def test_an_iteration_cancelled_without_a_replacement_stops_showing_as_running(tmp_path: Path) -> None:
    target = FakeTarget()
    target.block("charlie")
    app = app_for(write_project(tmp_path), target)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: target.waiting == {"charlie"}, "charlie is running")
        await wait_until(pilot, lambda: "running" in status_text(app), "the status shows the run")
        await app.session.cancel()
        await app.settled()
        await settle(pilot)
        assert "running" not in status_text(app)
        assert not tui.shown_rows(app)["charlie"].startswith("◐")
        assert app.main.iterations_done == 0  # nothing was recorded or summarised
