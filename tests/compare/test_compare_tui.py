"""Issue 24: `d` on an iteration in the TUI's history tab opens its comparison with the one before — the
code diff first, then the flipped rows with their output before and after. Waits on public signals only:
the app's iterations and settled signal, the screen's `loaded`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from helpers.grading import GradeRunner, graded_project
from helpers.tui import SIZE, press_and_wait, wait_idle, wait_until

from workbench.tui.app import make_app
from workbench.tui.compare_screen import CompareScreen


async def test_d_in_the_history_tab_compares_an_iteration_with_the_one_before(tmp_path: Path) -> None:
    config = graded_project(tmp_path)
    app = make_app(config, watch=False, record=True, runner_factory=GradeRunner)
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(app, pilot)
        (config.root / "grade.py").write_text("def grade(score):\n    return score >= 60\n")
        await press_and_wait(app, pilot, "R")
        await pilot.press("2")
        pane = app.main.history_pane
        await wait_until(pilot, lambda: not pane.busy and pane.selected_iteration == 2, "history lists iteration 2")
        pane.query_one("#history-table").focus()
        await pilot.press("d")
        await wait_until(pilot, lambda: isinstance(app.screen, CompareScreen) and app.screen.loaded,
                         "the comparison is on screen")
        screen: Any = app.screen
        text = screen.plain_text
        assert text.startswith("iteration 1 → iteration 2")
        assert "1 fixed · 0 newly failing" in text
        code, rows = text.index("grade.py +1 −1"), text.index("fixed (1)")
        assert code < rows  # the code diff first, then the rows it flipped
        assert "-    return score > 60" in text and "+    return score >= 60" in text
        flipped = text[rows:]
        assert "60 passes" in flipped and "FAIL → PASS" in flipped
        before, after = flipped.index("before:"), flipped.index("after:")
        assert '"FAIL"' in flipped[before:after] and '"PASS"' in flipped[after:]
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, CompareScreen), "the comparison closed")
