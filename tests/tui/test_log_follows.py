"""Issue 22 point 3: the log pane follows the newest lines unless the user scrolled up — also when a long
line brings a horizontal scrollbar that takes a line of the pane's height — and scrolling back to the
bottom follows again."""

from __future__ import annotations

from pathlib import Path

from helpers.tui import FakeTarget, app_for, press_and_wait, settle, settled, to_first_row, wait_idle, write_project

from workbench.tui.log_pane import RunLog

SMALL = (80, 24)  # the log pane shows five lines


def at_newest(log: RunLog) -> bool:
    return log.max_scroll_y > 0 and round(log.scroll_y) == log.max_scroll_y


async def test_the_log_follows_new_lines_even_when_a_long_line_adds_a_scrollbar(tmp_path: Path) -> None:
    lines = [f"line {n}" for n in range(30)] + ["x" * 300, "the last line"]
    target = FakeTarget(logs={"alpha": lines})
    app = app_for(write_project(tmp_path), target)
    async with app.run_test(size=SMALL) as pilot:
        await wait_idle(app, pilot)
        await to_first_row(app, pilot)
        await settled(app, pilot)
        log = app.query_one("#run-log", RunLog)
        assert log.show_horizontal_scrollbar  # the 300-character line
        assert at_newest(log), (log.scroll_y, log.max_scroll_y)
        await press_and_wait(app, pilot, "r")  # a second run: 32 more lines
        await settled(app, pilot)
        assert at_newest(log), (log.scroll_y, log.max_scroll_y)


async def test_scrolled_up_stays_put_and_the_bottom_follows_again(tmp_path: Path) -> None:
    target = FakeTarget(logs={"alpha": [f"line {n}" for n in range(30)]})
    app = app_for(write_project(tmp_path), target)
    async with app.run_test(size=SMALL) as pilot:
        await wait_idle(app, pilot)
        await to_first_row(app, pilot)
        await settled(app, pilot)
        log = app.query_one("#run-log", RunLog)
        assert at_newest(log)
        log.scroll_to(y=3, animate=False)  # the user scrolls up to read
        await settle(pilot)
        await press_and_wait(app, pilot, "r")
        await settled(app, pilot)
        assert round(log.scroll_y) == 3 and log.max_scroll_y > 3  # the new run came in below, unseen
        log.scroll_end(animate=False)  # back to the bottom: following again
        await settle(pilot)
        await press_and_wait(app, pilot, "r")
        await settled(app, pilot)
        assert at_newest(log)


async def test_another_row_opens_its_log_on_the_newest_lines(tmp_path: Path) -> None:
    target = FakeTarget(logs={"alpha": [f"alpha {n}" for n in range(40)], "bravo": [f"bravo {n}" for n in range(120)]})
    app = app_for(write_project(tmp_path), target)
    async with app.run_test(size=SMALL) as pilot:
        await wait_idle(app, pilot)
        await to_first_row(app, pilot)
        await settled(app, pilot)
        log = app.query_one("#run-log", RunLog)
        assert at_newest(log)
        await pilot.press("j")  # bravo: a longer log
        await settled(app, pilot)
        assert log.lines[-1] == "bravo 119"
        assert at_newest(log), (log.scroll_y, log.max_scroll_y)
