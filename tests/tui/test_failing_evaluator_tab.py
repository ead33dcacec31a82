"""Issue 22 point 2: a row that fails on one of several evaluators opens its detail on the failing
evaluator, and the evaluator tabs carry ✔/✘. Once the user picks an evaluator, results arriving never
move them off it."""

from __future__ import annotations

from pathlib import Path

from helpers.project import evaluator, row
from helpers.tui import FakeTarget, app_for, press_and_wait, settle, static_text, wait_idle, write_project
from textual.widgets import Tab

from workbench.config import Config

REFS = ("grade", "band", "score")
OUTPUT = {"grade": "PASS", "band": "merit", "score": 72}


def three_evaluator_project(root: Path) -> Config:
    """One row scored three ways: grade ✔, band ✘ (expects distinction), score ✔."""
    rows = [row("merit", {"out": OUTPUT}, criteria={
        "grade": {"expectedOutput": {"grade": "PASS"}},
        "band": {"expectedOutput": {"band": "distinction"}},
        "score": {"expectedOutput": {"score": 72}}})]
    doc = {"version": "1.0", "id": "set-three", "name": "Three evaluators", "evaluatorRefs": list(REFS),
           "evaluations": rows}
    return write_project(root, {"bands": doc}, evaluators={ref: evaluator(ref, id=f"{ref}-eval") for ref in REFS})


def tab_labels(app: object) -> list[str]:
    return [tab.label.plain for tab in app.main.detail.query_one("#detail-evaluators").query(Tab)]  # type: ignore[attr-defined]


async def test_the_row_opens_on_its_failing_evaluator_and_the_tabs_carry_marks(tmp_path: Path) -> None:
    app = app_for(three_evaluator_project(tmp_path))
    async with app.run_test() as pilot:
        await wait_idle(app, pilot)
        await settle(pilot)
        detail = app.main.detail
        assert detail.current_ref == "band"
        assert "✘ FAIL" in static_text(app, "#detail-meta")
        assert tab_labels(app) == ["grade ✔", "band ✘", "score ✔"]


async def test_the_marks_follow_new_results_and_a_picked_evaluator_stays(tmp_path: Path) -> None:
    target = FakeTarget()
    app = app_for(three_evaluator_project(tmp_path), target)
    async with app.run_test() as pilot:
        await wait_idle(app, pilot)
        await settle(pilot)
        await pilot.press("enter", "right")  # the user picks score
        assert app.main.detail.current_ref == "score"
        target.outputs["merit"] = {"grade": "FAIL", "band": "distinction", "score": 72}
        await press_and_wait(app, pilot, "r")
        await settle(pilot)
        assert tab_labels(app) == ["grade ✘", "band ✔", "score ✔"]
        assert app.main.detail.current_ref == "score"  # picked: not moved to the newly failing grade


async def test_a_row_that_passes_everywhere_opens_on_its_first_evaluator(tmp_path: Path) -> None:
    target = FakeTarget(outputs={"merit": {"grade": "PASS", "band": "distinction", "score": 72}})
    app = app_for(three_evaluator_project(tmp_path), target)
    async with app.run_test() as pilot:
        await wait_idle(app, pilot)
        await settle(pilot)
        assert app.main.detail.current_ref == "grade"
        assert tab_labels(app) == ["grade ✔", "band ✔", "score ✔"]
