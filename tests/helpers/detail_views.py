"""Walking a format's row detail in the TUI, for the tests of its detail view: open on the first failing row
and check which view shows it, then move the cursor and check where it landed."""

from __future__ import annotations

from typing import Any

from textual.pilot import Pilot

from helpers.tui import selected_id, settle, to_first_row, wait_idle
from workbench.tui.app import WorkbenchApp


async def open_on_first_row(app: WorkbenchApp, pilot: Pilot[Any], row_id: str, view: type) -> None:
    """Wait for the first iteration; the app opens on the first failing row: `row_id`, shown by `view`."""
    await wait_idle(app, pilot)
    await to_first_row(app, pilot)
    assert selected_id(app) == row_id
    assert isinstance(app.main.detail.view, view)


async def move_to(app: WorkbenchApp, pilot: Pilot[Any], keys: tuple[str, ...], row_id: str) -> None:
    """Press `keys`, let the app settle, and check that the cursor is on `row_id`."""
    await pilot.press(*keys)
    await settle(pilot)
    assert selected_id(app) == row_id
