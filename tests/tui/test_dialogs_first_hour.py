"""Issue 22 points 9 and 11 in the dialogs: the `c` dialog is centred like the others and names the case
after the row (a readable slug, not its UUID); in the `+` dialog Enter in a field never runs the target
again once ctrl+r ran it (new values may); the focused button stands out; the help says how to close it
on its first line."""

from __future__ import annotations

from pathlib import Path

from helpers.tui import FakeTarget, app_for, example_project, settle, settled, wait_idle, wait_until, write_project
from textual.widgets import Button, Input

from workbench.textsafe import slug
from workbench.tui.case_from_run_screen import CaseFromRunScreen
from workbench.tui.help_screen import HelpScreen
from workbench.tui.writeback_screens import AddRowScreen

BOUNDARY = "2f0c6d1e-7a53-4a0e-9a57-0c1d5e0b1a03"  # examples/grading: "score 50 passes (boundary)"


def test_a_slug_is_the_readable_part_of_a_name() -> None:
    assert slug("score 50 passes (boundary)") == "score-50-passes-boundary"
    assert slug("Élève — ünïcode!") == "eleve-unicode"
    assert slug("日本") == ""  # nothing readable left: the caller falls back to the row's id


async def test_the_case_dialog_is_centred_and_named_after_the_row(tmp_path: Path) -> None:
    config, target = example_project(tmp_path)
    app = app_for(config, target, record=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(app, pilot)
        assert app.main.sets_tree.selected_row is not None and app.main.sets_tree.selected_row[2] == BOUNDARY
        await pilot.press("2", "c")
        await wait_until(pilot, lambda: isinstance(app.screen, CaseFromRunScreen), "the case dialog opened")
        await settled(app, pilot)
        screen = app.screen
        assert screen.query_one("#case-name", Input).value == "score-50-passes-boundary"
        box = screen.query_one("#case-from-run-box").region
        width, height = app.size
        assert abs(box.x - (width - box.right)) <= 1, (box, width)  # centred across
        assert abs(box.y - (height - box.bottom)) <= 1, (box, height)  # and down


async def test_enter_in_a_field_never_runs_the_target_again_after_ctrl_r(tmp_path: Path) -> None:
    target = FakeTarget()
    app = app_for(write_project(tmp_path), target)
    async with app.run_test() as pilot:
        await wait_idle(app, pilot)
        await pilot.press("plus")
        await wait_until(pilot, lambda: isinstance(app.screen, AddRowScreen), "the new-row dialog opened")
        screen = app.screen
        screen.query_one("#add-name", Input).value = "new one"
        inputs = screen.query_one("#add-inputs", Input)
        inputs.value = '{"out": 1}'
        inputs.focus()
        await settle(pilot)
        calls = len(target.calls)
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: not screen.query_one("#add-append", Button).disabled, "the run finished")
        assert len(target.calls) == calls + 1
        await pilot.press("enter")
        await settled(app, pilot)
        assert len(target.calls) == calls + 1, "Enter ran the target again"
        assert "already run on these inputs" in screen.query_one("#add-status").content.plain
        assert not screen.query_one("#add-append", Button).disabled, "the run's row is still there to append"
        inputs.value = '{"out": 2}'  # new values: Enter runs them
        await settle(pilot)
        await pilot.press("enter")
        await wait_until(pilot, lambda: not screen.query_one("#add-append", Button).disabled, "the run finished")
        assert len(target.calls) == calls + 2


async def test_the_focused_button_stands_out(tmp_path: Path) -> None:
    app = app_for(write_project(tmp_path), FakeTarget())
    async with app.run_test() as pilot:
        await wait_idle(app, pilot)
        await pilot.press("plus")
        await wait_until(pilot, lambda: isinstance(app.screen, AddRowScreen), "the new-row dialog opened")
        screen = app.screen
        run, cancel = screen.query_one("#add-run", Button), screen.query_one("#add-cancel", Button)
        cancel.focus()
        await settle(pilot)
        assert app.focused is cancel
        assert cancel.styles.text_style.underline and not run.styles.text_style.underline
        assert cancel.styles.background != run.styles.background


async def test_the_help_says_how_to_close_it_first(tmp_path: Path) -> None:
    app = app_for(write_project(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_idle(app, pilot)
        await pilot.press("question_mark")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), "the help opened")
        await settled(app, pilot)
        title = app.screen.query_one("#help-title")
        assert "Esc, q or ? closes this help" in title.content.plain
        assert title.region.y <= app.screen.query_one("#help-box").region.y + 2  # on the box's first line
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, HelpScreen), "Esc closed it")


async def test_the_case_dialog_shows_its_buttons_at_80x24(tmp_path: Path) -> None:
    config, target = example_project(tmp_path)
    app = app_for(config, target, record=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_idle(app, pilot)
        await pilot.press("2", "c")
        await wait_until(pilot, lambda: isinstance(app.screen, CaseFromRunScreen), "the case dialog opened")
        await settled(app, pilot)
        box = app.screen.query_one("#case-from-run-box")
        for button in app.screen.query(Button):
            assert button.region and box.content_region.contains_region(button.region), button.id


async def test_ctrl_c_in_a_field_of_a_dialog_quits(tmp_path: Path) -> None:
    """Ctrl-C is the way out everywhere, an Input's focus included (where Textual would copy)."""
    app = app_for(write_project(tmp_path), FakeTarget())
    async with app.run_test() as pilot:
        await wait_idle(app, pilot)
        await pilot.press("plus")
        await wait_until(pilot, lambda: isinstance(app.screen, AddRowScreen), "the new-row dialog opened")
        app.screen.query_one("#add-name", Input).focus()
        await settle(pilot)
        await pilot.press("ctrl+c")
        assert app.closing.is_set(), "ctrl+c did not quit"  # set by action_quit's shutdown, before the exit
    assert app.return_code == 0
