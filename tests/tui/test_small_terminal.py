"""Issue 12, point 6: 80x24 is a first-class size. The footer keeps `?` and `q`, the status line keeps
"stalled" (it drops the project name and the iteration number first), help descriptions wrap inside
their column, and the `+`, accept and bulk-accept dialogs show their buttons. (The layouts themselves
are pinned by the 80x24 and 160x48 snapshots in test_tui_snapshots.py.)"""

from __future__ import annotations

from pathlib import Path

from helpers.tui import (
    FakeTarget,
    app_for,
    example_project,
    screen_text,
    settle,
    status_text,
    wait_idle,
    wait_until,
    write_project,
)
from textual.geometry import Region
from textual.widgets import Button

from workbench.events import Trigger
from workbench.progress import IterationSummary
from workbench.tui.bulk_accept_screen import BulkAcceptScreen
from workbench.tui.help_screen import HelpScreen
from workbench.tui.writeback_screens import AcceptScreen, AddRowScreen

SMALL = (80, 24)


def fully_shown(app, widget) -> bool:
    """The widget lies whole inside its dialog's visible area (a cut-off button lies partly below it)."""
    dialog = app.screen.query_one(".dialog")
    return bool(widget.region) and dialog.content_region.contains_region(widget.region)


async def test_the_footer_keeps_help_and_quit(tmp_path: Path) -> None:
    app = app_for(write_project(tmp_path))
    async with app.run_test(size=SMALL) as pilot:
        await wait_idle(app, pilot)
        footer = screen_text(app).splitlines()[-1]
        assert "? Help" in footer and "q Quit" in footer


async def test_the_status_line_keeps_stalled_and_the_counts(tmp_path: Path) -> None:
    app = app_for(write_project(tmp_path), watch=True)
    async with app.run_test(size=SMALL) as pilot:
        await wait_idle(app, pilot)
        app.session.set_paused(True)
        app.main.last_summary = IterationSummary(number=123, trigger=Trigger("change"), rows_passed=3, rows_total=5,
                                            duration_s=1.0, change=0, stalled_for=5)
        app.main.render_status()
        await settle(pilot)
        line = status_text(app)  # what an 80-column terminal shows
        assert "⚠ stalled: no gain in 5 iterations" in line and "3/5 rows pass" in line and "⏸ paused" in line
        assert "iteration 123" not in line, "the least important part made room"
        assert "iteration 123" in app.query_one("#status").text.plain, "a wide terminal shows it all"
        app.session.set_paused(False)


async def test_help_descriptions_wrap_inside_their_column(tmp_path: Path) -> None:
    app = app_for(write_project(tmp_path))
    async with app.run_test(size=SMALL) as pilot:
        await wait_idle(app, pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        widget = app.screen.query_one("#help-text")
        lines = [strip.text for strip in widget.render_lines(Region(0, 0, widget.size.width, widget.size.height))]
        column = lines[0].index("show every key")
        wrapped = [line for line in lines if line.strip() and not line[:column].strip()]
        assert wrapped, "at 80 columns some descriptions take two lines"
        assert all(line[column - 1] == " " and line[column] != " " for line in wrapped), wrapped


async def test_every_dialog_shows_its_buttons_at_80x24(tmp_path: Path) -> None:
    config, target = example_project(tmp_path)
    app = app_for(config, target)
    async with app.run_test(size=SMALL) as pilot:
        await wait_idle(app, pilot)
        await settle(pilot)
        for key, screen_type in (("plus", AddRowScreen), ("a", AcceptScreen), ("A", BulkAcceptScreen)):
            await pilot.press(key)
            await wait_until(pilot, lambda t=screen_type: isinstance(app.screen, t), f"{key} opened its dialog")
            await settle(pilot)
            buttons = list(app.screen.query(Button))
            assert buttons and all(fully_shown(app, b) for b in buttons), [(b.label, b.region) for b in buttons]
            await pilot.press("escape")
            await wait_until(pilot, lambda t=screen_type: not isinstance(app.screen, t), "the dialog closed")


async def test_fake_target_rows_fit_too(tmp_path: Path) -> None:
    """The status line of a project with long names still shows the counts at 80 columns."""
    long_name = tmp_path / ("a-project-with-a-rather-long-folder-name-" * 2)
    app = app_for(write_project(long_name), FakeTarget())
    async with app.run_test(size=SMALL) as pilot:
        await wait_idle(app, pilot)
        assert "3/5 rows pass" in status_text(app)
