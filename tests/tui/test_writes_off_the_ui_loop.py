"""Issue 21: the TUI writes the user's files in thread workers. A write waits for its eval set's lock
(up to 30 s while another workbench writes): meanwhile the UI keeps answering keys, and the outcome
arrives as a notification once the lock is free."""

from __future__ import annotations

import asyncio
import time

from helpers.tui import FakeTarget, Notices, app_for, to_first_row, wait_idle, wait_until, write_project
from textual.widgets import TabbedContent

from workbench import jsonio
from workbench.tui.writeback_screens import AcceptScreen
from workbench.writeback.lock import writing_lock

HANG_GUARD_S = 20  # below the lock's own 30 s wait


def write_pending(app) -> bool:
    return any(worker.group == "write" and not worker.is_finished for worker in app.workers)


async def test_accept_waits_on_the_held_lock_while_keys_keep_working(tmp_path):
    config = write_project(tmp_path)
    path = (config.root / "evals" / "default" / "eval-sets" / "grading.json").resolve()
    before = path.read_bytes()
    notices = Notices()
    app = app_for(config, FakeTarget())
    async with app.run_test(message_hook=notices) as pilot:
        await wait_idle(app, pilot)
        await to_first_row(app, pilot)
        await pilot.press("n", "a")  # bravo fails: accept it
        await wait_until(pilot, lambda: isinstance(app.screen, AcceptScreen), "the accept dialog opened")
        with writing_lock(path.parents[3], path, "grading.json"):  # another workbench is writing this set
            await pilot.press("y")
            await wait_until(pilot, lambda: not isinstance(app.screen, AcceptScreen), "the dialog closed")
            await wait_until(pilot, lambda: write_pending(app), "the write started")
            await pilot.press("2")  # the UI answers while the write waits for the lock
            assert app.query_one("#bottom", TabbedContent).active == "history"
            assert write_pending(app) and path.read_bytes() == before, "nothing written while the lock is held"
        await wait_until(pilot, lambda: any("Accepted as expected" in n for n in notices), "the write's outcome")
        await wait_idle(app, pilot, 2)  # not watching: the app re-runs the accepted row itself
        bravo = next(r for r in jsonio.loads(path.read_bytes())["evaluations"] if r["name"] == "bravo")
        assert "expectedOutput" in bravo["evaluationCriterias"]["exact-match-evaluator"]
        assert path.read_bytes() != before


async def test_closing_the_app_ends_a_writes_wait_for_the_lock(tmp_path):
    """Quitting sets the app's `closing` event; a write waiting on another writer's lock then gives up at
    once (nothing written) instead of holding the exit up for the lock's 30 s."""
    config = write_project(tmp_path)
    path = (config.root / "evals" / "default" / "eval-sets" / "grading.json").resolve()
    before = path.read_bytes()
    app = app_for(config, FakeTarget())
    with writing_lock(path.parents[3], path, "grading.json"):  # another workbench is writing this set
        async with app.run_test() as pilot:
            await wait_idle(app, pilot)
            await to_first_row(app, pilot)
            await pilot.press("n", "a")
            await wait_until(pilot, lambda: isinstance(app.screen, AcceptScreen), "the accept dialog opened")
            await pilot.press("y")
            await wait_until(pilot, lambda: write_pending(app), "the write waits for the lock")
            app.closing.set()  # what quitting does first (WorkbenchApp.exit / shutdown)
            deadline = time.monotonic() + HANG_GUARD_S
            while write_pending(app):
                assert time.monotonic() < deadline, "the write still waits for the lock"
                await asyncio.sleep(0.01)
        assert path.read_bytes() == before, "nothing written"


def test_asking_the_app_to_exit_sets_its_closing_event(tmp_path):
    app = app_for(write_project(tmp_path), FakeTarget())
    assert not app.closing.is_set()
    app.exit()
    assert app.closing.is_set()
