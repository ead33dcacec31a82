"""Issue 12, point 8: the help lists each key once (`w` pauses and resumes: one line), and names `a`, `A`
and `+` with what they do."""

from __future__ import annotations

from pathlib import Path

from helpers.tui import app_for, settle, wait_idle, write_project

from workbench.tui.help_screen import HelpScreen


async def test_help_lists_each_key_once_with_a_and_plus(tmp_path: Path) -> None:
    app = app_for(write_project(tmp_path))
    async with app.run_test() as pilot:
        await wait_idle(app, pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        keys = [keys for keys, _ in app.screen.rows]
        assert len(keys) == len(set(keys)), keys
        described = dict(app.screen.rows)
        assert described["w"].startswith("pause or resume watching")
        assert "accept the row's actual output" in described["a"]
        assert described["A"].startswith("walk every failing row")
        assert described["+"].startswith("run the target on new inputs")
        text = app.screen.plain_text
        assert text.count("resume watching") == 1


async def test_help_lists_the_panes_own_keys_with_where_they_work(tmp_path: Path) -> None:
    """H12 finding 3: `d` (history tab: compare with the iteration before) and `,` `.` (a repeated row's
    samples, in the detail) work in one pane only and were missing from `?`."""
    app = app_for(write_project(tmp_path))
    async with app.run_test() as pilot:
        await wait_idle(app, pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        keys = [keys for keys, _ in app.screen.rows]
        assert len(keys) == len(set(keys)), keys
        described = dict(app.screen.rows)
        assert described["d"].startswith("compare")  # from anywhere (issue 38 point 3), and in the history tab:
        assert "; in the history tab: compare the highlighted iteration with the one before" in described["d"]
        assert described[","].startswith("in the detail: a repeated row")
        assert "previous run" in described[","] and "next run" in described["."]
