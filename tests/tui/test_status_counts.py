"""Issue 12, point 5: counts that agree. The status line counts rows and results, keeps the totals after
`r` re-ran a few rows (and says what those did), and counts the changes waiting while paused; the
history pane shows rows beside results."""

from __future__ import annotations

import json
from pathlib import Path

from helpers.tui import (
    FAIL,
    PASS,
    FakeTarget,
    app_for,
    grading_rows,
    out_row,
    press_and_wait,
    settle,
    status_text,
    to_first_row,
    two_evaluator_project,
    wait_idle,
    wait_until,
    write_project,
)
from textual.widgets import DataTable

from workbench.tui.status_bar import StatusBar


async def test_rows_and_results_are_both_counted(tmp_path: Path) -> None:
    app = app_for(two_evaluator_project(tmp_path))  # one row: grade passes, detail fails
    async with app.run_test() as pilot:
        await wait_idle(app, pilot)
        assert "0/1 rows pass · 1/2 results" in status_text(app)


async def test_the_totals_stay_after_a_partial_rerun(tmp_path: Path) -> None:
    target = FakeTarget()
    app = app_for(write_project(tmp_path), target)
    async with app.run_test() as pilot:
        await wait_idle(app, pilot)
        assert "3/5 rows pass · 3/5 results" in status_text(app)
        target.outputs["bravo"] = PASS
        await to_first_row(app, pilot)
        await pilot.press("j")  # bravo
        await press_and_wait(app, pilot, "r")
        # the whole line (as a wide terminal shows it): at 80 columns the results count gives way to
        # `workbench ·`, the iteration and the project (status_bar's rule; issue 38 point 9)
        status = app.query_one("#status", StatusBar).text.plain
        assert "4/5 rows pass · 4/5 results" in status, status
        assert "re-run: 1/1 rows pass" in status
        assert "4/5 rows pass" in status_text(app) and "re-run: 1/1 rows pass" in status_text(app)


async def test_paused_says_how_many_changes_wait(tmp_path: Path) -> None:
    config = write_project(tmp_path)
    set_file = config.root / "evals" / "default" / "eval-sets" / "grading.json"
    app = app_for(config, FakeTarget(), watch=True)
    async with app.run_test() as pilot:
        await wait_idle(app, pilot)
        await pilot.press("w")
        assert "⏸ paused" in status_text(app) and "waiting" not in status_text(app)
        rows = grading_rows()
        rows[1] = out_row("bravo", FAIL, FAIL)
        doc = json.loads(set_file.read_text())
        doc["evaluations"] = rows
        set_file.write_text(json.dumps(doc, indent=2))
        await wait_until(pilot, lambda: "1 change waiting (w runs them)" in status_text(app),
                         "the status line counts the waiting change")
        await pilot.press("w")
        await wait_idle(app, pilot, 2)
        assert "waiting" not in status_text(app) and "4/5 rows pass" in status_text(app)


async def test_history_shows_rows_and_results(tmp_path: Path) -> None:
    app = app_for(two_evaluator_project(tmp_path), record=True)
    async with app.run_test() as pilot:
        await wait_idle(app, pilot)
        await pilot.press("2")
        history = app.main.history_pane
        await wait_until(pilot, lambda: not history.busy and history.infos, "history was read")
        await settle(pilot)
        table = app.query_one("#history-table", DataTable)
        labels = [str(column.label) for column in table.columns.values()]
        assert labels[2:4] == ["rows ✔", "results ✔"]  # short headers fit 80 columns (issue 22 point 3)
        assert [str(cell) for cell in table.get_row_at(0)[2:4]] == ["0/1", "1/2"]
        detail = app.query_one("#history-detail").content.plain
        assert "0/1 rows pass · 1/2 results pass" in detail
