"""Issue 38, the TUI's points: a failing row shows why first at any size (its verdict and differences),
held keys scroll the detail one line per press, `d` and the palette's "compare" work from the sets pane,
`p` shows the project's full path again, a comparison says each change once and cuts long lines instead of
wrapping them. (The status line's "file problem", the sets pane's word: test_status_line_first_hour.py.)"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers.grading import GradeRunner, graded_project
from helpers.tui import (
    Notices,
    app_for,
    example_project,
    press_and_wait,
    screen_text,
    selected_id,
    settle,
    wait_idle,
    wait_until,
    write_project,
)
from rich.text import Text
from textual import events
from textual.command import CommandList, CommandPalette
from textual.pilot import Pilot

from workbench.actions.compare import RowChange
from workbench.config import Config
from workbench.model import RowKey, Verdict
from workbench.tui.app import WorkbenchApp, make_app
from workbench.tui.compare_screen import CompareScreen, append_row_change

BOUNDARY = "2f0c6d1e-7a53-4a0e-9a57-0c1d5e0b1a03"  # examples/grading: "score 50 passes (boundary)" fails
SIZES = [(80, 24), (160, 48)]


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "160x48"])
async def test_a_failing_row_opens_on_its_verdict_and_differences(tmp_path: Path, size: tuple[int, int]) -> None:
    config, target = example_project(tmp_path)
    app = app_for(config, target)
    async with app.run_test(size=size) as pilot:
        await wait_idle(app, pilot)
        await settle(pilot)
        assert selected_id(app) == BOUNDARY
        shown = screen_text(app)
        assert "✘ FAIL" in shown and "Differences" in shown, shown
        assert 'grade: expected "PASS", got "FAIL"' in shown, shown  # the list, not scrolled past
        if size == (160, 48):  # with room, expected and actual show around the difference as well
            assert '"grade": "PASS",' in shown and '"grade": "FAIL",' in shown


async def test_twenty_down_keys_sent_at_once_scroll_twenty_lines(tmp_path: Path) -> None:
    config, target = example_project(tmp_path)
    app = app_for(config, target)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_idle(app, pilot)
        await settle(pilot)
        detail = app.main.detail
        await pilot.press("enter")
        assert app.focused is detail
        start = round(detail.scroll_y)
        assert detail.max_scroll_y >= start + 20, "the body is long enough to scroll 20 lines"
        for _ in range(20):  # as a held key's repeats arrive: all queued before the first is handled
            app.post_message(events.Key("down", None))
        await settle(pilot)
        assert round(detail.scroll_y) == start + 20
        for _ in range(5):
            app.post_message(events.Key("up", None))
        await settle(pilot)
        assert round(detail.scroll_y) == start + 15




async def _fixed_in_iteration_2(app: WorkbenchApp, pilot: Pilot[None], config: Config) -> None:
    await wait_idle(app, pilot)
    (config.root / "grade.py").write_text("def grade(score):\n    return score >= 60\n")
    await press_and_wait(app, pilot, "R")
    pane = app.main.history_pane
    await wait_until(pilot, lambda: not pane.busy and pane.selected_iteration == 2, "history lists iteration 2")
    app.main.sets_tree.focus()
    await settle(pilot)
    assert app.focused is app.main.sets_tree


async def _compared(app: WorkbenchApp, pilot: Pilot[None]) -> str:
    await wait_until(pilot, lambda: isinstance(app.screen, CompareScreen) and app.screen.loaded,
                     "the comparison is on screen")
    screen: Any = app.screen
    return str(screen.plain_text)


async def test_d_compares_from_the_sets_pane(tmp_path: Path) -> None:
    config = graded_project(tmp_path)
    app = make_app(config, watch=False, record=True, runner_factory=GradeRunner)
    async with app.run_test(size=(80, 24)) as pilot:
        await _fixed_in_iteration_2(app, pilot, config)
        await pilot.press("d")
        text = await _compared(app, pilot)
        assert text.startswith("iteration 1 → iteration 2") and "FAIL → PASS" in text


async def test_the_palette_finds_compare_and_runs_it_from_the_sets_pane(tmp_path: Path) -> None:
    config = graded_project(tmp_path)
    app = make_app(config, watch=False, record=True, runner_factory=GradeRunner)
    async with app.run_test(size=(160, 48)) as pilot:
        await _fixed_in_iteration_2(app, pilot, config)
        await pilot.press("ctrl+p")
        await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette), "the palette is open")
        await pilot.press(*"compare")
        commands = app.screen.query_one(CommandList)

        def offered() -> bool:
            return commands.highlighted is not None and \
                "compare" in str(commands.get_option_at_index(commands.highlighted).prompt)

        await wait_until(pilot, offered, "the palette offers compare")
        await pilot.press("enter")
        text = await _compared(app, pilot)
        assert "1 fixed" in text


async def test_d_says_why_when_there_is_nothing_to_compare(tmp_path: Path) -> None:
    notices = Notices()
    app = app_for(write_project(tmp_path / "p"))
    async with app.run_test(size=(80, 24), message_hook=notices) as pilot:
        await wait_idle(app, pilot)
        await pilot.press("d")
        await settle(pilot)
        assert not isinstance(app.screen, CompareScreen)
        assert any("compare" in notice for notice in notices), list(notices)


async def test_p_shows_the_demo_welcome_with_its_full_path_again(tmp_path: Path) -> None:
    config, target = example_project(tmp_path)
    welcome = f"One row fails on purpose: fix the comparison in\n{config.root / 'grade.py'}\nand save."
    notices = Notices()
    app = app_for(config, target, welcome=welcome, show_path=True)
    async with app.run_test(size=(80, 24), message_hook=notices) as pilot:
        await wait_idle(app, pilot)
        before = len(list(notices))
        await pilot.press("p")
        await settle(pilot)
        shown = list(notices)[before:]
        # the whole path, broken after a `/` where it is wider than the toast (never inside a name)
        assert [notice.replace("/\n", "/") for notice in shown] == [welcome], shown
        assert all(len(line) <= app.toast_width for line in shown[0].splitlines()), shown


def test_a_compared_row_says_each_change_once() -> None:
    change = RowChange(RowKey("default", "grading.json", "r"), "r", Verdict.PASS, Verdict.FAIL,
                       output_before={"greeting": "hi"}, output_after={"greeting": "yo"},
                       output_diff=["Value of root['greeting'] changed from \"hi\" to \"yo\"."],
                       detail_after='exact: greeting: expected "hi", got "yo"')
    text = Text()
    append_row_change(text, change)
    assert 'expected "hi", got "yo"' in text.plain
    assert "Value of root" not in text.plain, "not said a second time in deepdiff's words"
    fixed = RowChange(RowKey("default", "grading.json", "r"), "r", Verdict.FAIL, Verdict.PASS,
                      output_diff=["Value of root['greeting'] changed"])
    text = Text()
    append_row_change(text, fixed)
    assert "Value of root" in text.plain, "without the evaluator's words, deepdiff's say what changed"
