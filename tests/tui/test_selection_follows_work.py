"""Issue 12, point 4: open where the work is. Once the first iteration ends the cursor goes to the first
failing row (unless the user already moved), and after `f`, a filter or a fixed file problem the
selection — and the detail with it — moves to a row that still shows."""

from __future__ import annotations

from pathlib import Path

from helpers.tui import (
    FakeTarget,
    app_for,
    press_and_wait,
    selected_id,
    settle,
    static_text,
    to_first_row,
    wait_idle,
    wait_until,
    write_project,
)


def detail_row(app) -> str | None:
    return app.main.detail.row[1].id if app.main.detail.row is not None else None


async def test_the_app_opens_on_the_first_failing_row(tmp_path: Path) -> None:
    app = app_for(write_project(tmp_path))
    async with app.run_test() as pilot:
        await wait_idle(app, pilot)
        await settle(pilot)
        assert selected_id(app) == "bravo" and detail_row(app) == "bravo"
        assert "✘ FAIL" in static_text(app, "#detail-meta")


async def test_a_user_who_moved_during_the_first_iteration_stays_put(tmp_path: Path) -> None:
    target = FakeTarget()
    target.block("echo")
    app = app_for(write_project(tmp_path), target)
    async with app.run_test() as pilot:
        await wait_until(pilot, lambda: "echo" in target.waiting, "the first iteration is running")
        await settle(pilot)
        await pilot.press("j", "j")  # alpha → bravo → charlie
        assert selected_id(app) == "charlie"
        target.release()
        await wait_idle(app, pilot)
        await settle(pilot)
        assert selected_id(app) == "charlie"


async def test_failures_only_moves_the_detail_to_a_row_that_shows(tmp_path: Path) -> None:
    app = app_for(write_project(tmp_path))
    async with app.run_test() as pilot:
        await wait_idle(app, pilot)
        await to_first_row(app, pilot)
        assert selected_id(app) == "alpha" and detail_row(app) == "alpha"
        await pilot.press("f")  # alpha passes: hidden. bravo now sits on alpha's line
        await settle(pilot)
        assert selected_id(app) == "bravo"
        assert detail_row(app) == "bravo", "the detail follows although the cursor's line number stayed"


async def test_a_filter_that_hides_the_row_moves_the_detail_and_one_that_hides_all_clears_it(
        tmp_path: Path) -> None:
    app = app_for(write_project(tmp_path))
    async with app.run_test() as pilot:
        await wait_idle(app, pilot)
        await to_first_row(app, pilot)
        await pilot.press("slash", "e", "c", "h")  # only echo matches
        await settle(pilot)
        assert selected_id(app) == "echo" and detail_row(app) == "echo"
        await pilot.press("z")  # nothing matches "echz"
        await settle(pilot)
        assert selected_id(app) is None and detail_row(app) is None
        assert "Select a row" in static_text(app, "#detail-title")


async def test_after_a_problem_file_is_fixed_the_selection_lands_on_a_row(tmp_path: Path) -> None:
    config = write_project(tmp_path)
    broken = config.root / "evals" / "default" / "eval-sets" / "broken.json"
    broken.write_text('{"evaluations": [\n')
    app = app_for(config)
    async with app.run_test() as pilot:
        await wait_idle(app, pilot)
        await pilot.press("home", "down")  # the file problem
        await settle(pilot)
        assert app.main.sets_tree.selected_problem is not None and "File problem" in static_text(app, "#detail-title")
        broken.unlink()
        await press_and_wait(app, pilot, "R")
        await settle(pilot)
        assert selected_id(app) is not None
        assert detail_row(app) == selected_id(app), "the detail shows the row the cursor landed on"
