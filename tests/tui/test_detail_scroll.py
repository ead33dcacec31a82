"""Issue 12, point 1: the row detail scrolls — with the keyboard when focused and with the mouse wheel, a
scrollbar shows — and a failing row opens with its first difference in view, even at 80x24."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from helpers.tui import app_for, example_project, screen_text, selected_id, settle, static_text, wait_idle
from textual import events
from textual.pilot import Pilot

from workbench.tui.app import WorkbenchApp

SMALL = (80, 24)
BOUNDARY = "2f0c6d1e-7a53-4a0e-9a57-0c1d5e0b1a03"  # examples/grading: "score 50 passes (boundary)" fails


@asynccontextmanager
async def example_at_80x24(tmp_path: Path) -> AsyncIterator[tuple[WorkbenchApp, Pilot[None]]]:
    """The bundled example's app at 80x24, its first iteration done and the screen settled."""
    config, target = example_project(tmp_path)
    app = app_for(config, target)
    async with app.run_test(size=SMALL) as pilot:
        await wait_idle(app, pilot)
        await settle(pilot)
        yield app, pilot


async def test_a_failing_row_opens_at_its_first_difference_at_80x24(tmp_path: Path) -> None:
    async with example_at_80x24(tmp_path) as (app, _pilot):
        detail = app.main.detail
        assert selected_id(app) == BOUNDARY
        assert detail.max_scroll_y > 0, "the body is taller than the pane, so it can scroll"
        assert detail.show_vertical_scrollbar
        shown = screen_text(app)
        # expected above actual (stacked at 80 columns, issue 22 point 3); the verdict and the Differences list
        # come first, on screen without scrolling (issue 38 point 1: before, it opened past them on Expected)
        assert app.main.detail.has_class("stacked")
        assert "✘ FAIL" in shown and "Differences" in shown, shown
        assert 'grade: expected "PASS", got "FAIL"' in shown, shown


async def test_the_focused_detail_scrolls_with_the_keys_and_the_wheel(tmp_path: Path) -> None:
    async with example_at_80x24(tmp_path) as (app, pilot):
        detail = app.main.detail
        await pilot.press("enter")
        assert app.focused is detail
        await pilot.press("home")
        await settle(pilot)
        assert detail.scroll_y == 0 and "score 50 passes (boundary)" in screen_text(app)
        await pilot.press("down", "down")
        await settle(pilot)
        assert detail.scroll_y == 2
        await pilot.press("end")
        await settle(pilot)
        assert detail.scroll_y == detail.max_scroll_y
        await pilot.press("pageup")
        await settle(pilot)
        assert detail.scroll_y < detail.max_scroll_y
        before = detail.scroll_y
        detail.post_message(events.MouseScrollDown(detail, 1, 1, 0, 1, 0, False, False, False))
        await settle(pilot)
        assert detail.scroll_y > before, "the wheel scrolls it too"


async def test_another_row_starts_at_its_top(tmp_path: Path) -> None:
    async with example_at_80x24(tmp_path) as (app, pilot):
        assert app.main.detail.scroll_y > 0
        await pilot.press("k")  # a passing row: nothing to scroll to
        await settle(pilot)
        assert app.main.detail.scroll_y == 0
        assert "score 40 fails" in static_text(app, "#detail-title")


async def test_a_failing_row_opened_again_opens_at_its_first_difference_again(tmp_path: Path) -> None:
    """docs/tui.md: "a failing row opens scrolled to its first differing line" — every time it is opened, not only
    the first: back on it from another row (and Enter on it then) it opened at the top."""
    async with example_at_80x24(tmp_path) as (app, pilot):
        detail = app.main.detail
        opened_at = detail.scroll_y
        assert opened_at > 0
        await pilot.press("k")  # a passing row, at its top
        await settle(pilot)
        assert detail.scroll_y == 0
        await pilot.press("j")  # back on the failing row
        await settle(pilot)
        assert selected_id(app) == BOUNDARY
        assert detail.scroll_y == opened_at, "it opened at its first difference again"
        await pilot.press("enter")  # into the detail: it stays where it opened
        await settle(pilot)
        assert app.focused is detail and detail.scroll_y == opened_at
        await pilot.press("home")  # the user scrolls: it is left there
        await settle(pilot)
        assert detail.scroll_y == 0
