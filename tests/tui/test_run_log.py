"""Issue 12, point 3: the run log. No stale "(no log output)" above a row's real lines, each run under a
header (iteration, time) instead of a pile of identical lines, and every line shown once even when the
selection reaches a running row just before its streamed lines are painted (how uip rows doubled)."""

from __future__ import annotations

from pathlib import Path

from helpers.tui import (
    FakeTarget,
    app_for,
    press_and_wait,
    selected_id,
    settle,
    to_first_row,
    wait_idle,
    wait_until,
    write_project,
)

from workbench.events import ResultReady, RowLog, RowStarted
from workbench.model import Result, RowKey, Verdict
from workbench.tui.log_pane import NO_OUTPUT, RunLog


def log_lines(app) -> list[str]:
    return list(app.query_one("#run-log", RunLog).lines)


async def test_each_run_has_a_header_and_r_twice_shows_two_runs(tmp_path: Path) -> None:
    target = FakeTarget(logs={"alpha": ["alpha says hello"]})
    app = app_for(write_project(tmp_path), target)
    async with app.run_test() as pilot:
        await wait_idle(app, pilot)
        await to_first_row(app, pilot)
        lines = log_lines(app)
        assert lines[0].startswith("── iteration 1 · ") and lines[1:] == ["alpha says hello"]
        await press_and_wait(app, pilot, "r")
        await press_and_wait(app, pilot, "r")
        await settle(pilot)
        lines = log_lines(app)
        headers = [line for line in lines if line.startswith("── iteration")]
        assert [h.split(" · ")[0] for h in headers] == ["── iteration 1", "── iteration 2", "── iteration 3"]
        assert lines.count("alpha says hello") == 3
        assert all(lines[lines.index(h) + 1] == "alpha says hello" for h in headers), "a header above every run"


async def test_no_stale_placeholder_above_the_first_line(tmp_path: Path) -> None:
    target = FakeTarget(logs={"alpha": ["first line"]})
    gate = target.block("alpha")
    app = app_for(write_project(tmp_path), target)
    async with app.run_test() as pilot:
        await wait_until(pilot, lambda: "alpha" in target.waiting, "alpha is running")
        await settle(pilot)
        assert selected_id(app) == "alpha"
        target.release()
        gate.set()
        await wait_idle(app, pilot)
        await to_first_row(app, pilot)
        assert not any(line.startswith("(no log output") for line in log_lines(app))
        assert log_lines(app)[1:] == ["first line"]


async def test_a_row_without_output_says_so_until_it_writes(tmp_path: Path) -> None:
    app = app_for(write_project(tmp_path), FakeTarget())
    async with app.run_test() as pilot:
        await wait_idle(app, pilot)
        await to_first_row(app, pilot)
        assert log_lines(app) == [log_lines(app)[0]] and log_lines(app)[0].startswith("── iteration 1")
        app.main.sets_tree.select_row(RowKey("default", "grading.json", "gone"))  # nothing to select: the pane says so
        app.query_one("#run-log", RunLog).show(RowKey("default", "grading.json", "never-ran"), app.state.logs, "x")
        assert log_lines(app) == [NO_OUTPUT]


async def test_lines_streamed_before_the_selection_arrives_are_shown_once(tmp_path: Path) -> None:
    """The selection shows a row's whole log at once; the engine's batched update for the same lines lands a
    moment later and must add nothing. Nor may the run's recorded log (a uip debug log) repeat them."""
    app = app_for(write_project(tmp_path), FakeTarget())
    async with app.run_test() as pilot:
        await wait_idle(app, pilot)
        await to_first_row(app, pilot)
        key = RowKey("default", "grading.json", "charlie")
        lines = [f"debug line {n}" for n in range(3)]
        app.state.apply(RowStarted(key, "charlie"))
        for line in lines:
            app.state.apply(RowLog(key, line))  # streamed, not painted yet
        app.main.sets_tree.select_row(key)
        await settle(pilot)  # the selection drew charlie's whole log
        result = Result(scope="default", set_file="grading.json", row_id="charlie", row_name="charlie",
                        evaluator="exact-match-evaluator", verdict=Verdict.PASS, score=1.0, detail="",
                        log="\n".join(lines))
        app.state.apply(ResultReady(result, 1, 1))
        app.main.apply_changes()  # the batched update arrives
        await settle(pilot)
        shown = log_lines(app)
        assert [line for line in shown if line.startswith("debug")] == lines, shown
