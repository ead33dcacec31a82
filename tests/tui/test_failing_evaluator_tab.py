"""Issue 22 point 2: a row that fails on one of several evaluators opens its detail on the failing
evaluator, and the evaluator tabs carry ✔/✘. Once the user picks an evaluator, results arriving never
move them off it. A row shown while its files change is shown as they say it now: its tabs follow the
evaluators that score it."""

from __future__ import annotations

import json
from pathlib import Path

from helpers.named_format import named_format, write_named_project
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


MANY = ("reply-mentions-queue", "ticket-similarity", "category-is-billing", "priority-field", "tool-order",
        "queue-field", "tone-is-polite")


def many_evaluator_project(root: Path) -> Config:
    """One row scored seven ways with long names (agent-tools' refund row): only queue-field fails."""
    output = {ref: "ok" for ref in MANY}
    criteria = {ref: {"expectedOutput": {ref: "ok" if ref != "queue-field" else "billing"}} for ref in MANY}
    doc = {"version": "1.0", "id": "set-many", "name": "Many evaluators", "evaluatorRefs": list(MANY),
           "evaluations": [row("refund", {"out": output}, criteria=criteria)]}
    return write_project(root, {"many": doc}, evaluators={ref: evaluator(ref, id=f"{ref}-eval") for ref in MANY})


async def test_at_80_columns_every_tab_keeps_its_mark_and_cut_names_end_in_an_ellipsis(tmp_path: Path) -> None:
    """H12 finding 1: seven tabs at 80 columns ran off the pane: one mark seen, a name cut mid-word."""
    app = app_for(many_evaluator_project(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_idle(app, pilot)
        await settle(pilot)
        detail = app.main.detail
        assert detail.current_ref == "queue-field"  # issue 22 point 2: the detail opens on the failing one
        tabs = detail.query_one("#detail-evaluators")
        labels = tab_labels(app)
        assert len(labels) == len(MANY)
        assert [label[-1] for label in labels] == ["✔", "✔", "✔", "✔", "✔", "✘", "✔"]
        for tab, ref in zip(tabs.query(Tab), MANY, strict=True):
            name = tab.label.plain[:-1].rstrip()
            assert name == ref or (ref.startswith(name.rstrip("…")) and name.endswith("…")) or not name
            assert tab.region.right <= tabs.region.right  # on screen, not scrolled off the pane
        assert "queue-field ✘" in labels  # the failing one keeps its name
        await pilot.press("enter", "left")  # the user steps to a passing evaluator: its tab names it
        await settle(pilot)
        assert detail.current_ref == "tool-order"
        assert any(label.startswith("tool-or") for label in tab_labels(app))
        await pilot.resize_terminal(160, 48)
        await settle(pilot)
        wide = tab_labels(app)  # wider: every tab names its evaluator again
        assert all(ref.startswith(label[:-2].rstrip("…")) and len(label) > 6
                   for label, ref in zip(wide, MANY, strict=True))


async def test_a_set_that_gains_an_evaluator_the_shown_row_fails_opens_it_in_a_new_tab(tmp_path: Path) -> None:
    """The set read again with one more evaluator, while its row is shown: the tabs are made again for the
    three refs (they kept the two the row was shown with) and the row opens on the new one, which fails."""
    config = three_evaluator_project(tmp_path)
    path = config.root / "evals" / "default" / "eval-sets" / "bands.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["evaluatorRefs"] = ["grade", "score"]
    path.write_text(json.dumps(doc), encoding="utf-8")
    app = app_for(config)
    async with app.run_test() as pilot:
        await wait_idle(app, pilot)
        await settle(pilot)
        assert tab_labels(app) == ["grade ✔", "score ✔"]
        assert app.main.detail.current_ref == "grade"
        doc["evaluatorRefs"] = ["grade", "score", "band"]
        path.write_text(json.dumps(doc), encoding="utf-8")
        await press_and_wait(app, pilot, "r")
        await settle(pilot)
        assert tab_labels(app) == ["grade ✔", "score ✔", "band ✘"]
        assert app.main.detail.current_ref == "band"
        assert "✘ FAIL" in static_text(app, "#detail-meta")


async def test_a_row_whose_criteria_come_to_name_a_failing_evaluator_opens_on_it(tmp_path: Path) -> None:
    """A format that scores a row only by the evaluators its criteria name (`Dialect.refs_of`): the shown row
    edited to name a third one, which fails, opens on it when it runs again. The pane kept the row it was
    shown with, so its tabs and the evaluator it opened on were those of the two passing ones."""
    rows = [{"id": "merit", "inputs": {"out": OUTPUT}, "criteria": {
        "Grade": {"expectedOutput": {"grade": "PASS"}}, "Band": {"expectedOutput": {"band": "merit"}}}}]
    doc = {"evaluatorRefs": ["Grade", "Band", "Score"], "rows": rows}
    with named_format():
        config = write_named_project(tmp_path, {ref.lower(): {"id": ref, "targetOutputKey": ref.lower()}
                                                for ref in ("Grade", "Band", "Score")}, {"bands": doc})
        app = app_for(config)
        async with app.run_test() as pilot:
            await wait_idle(app, pilot)
            await settle(pilot)
            assert tab_labels(app) == ["Grade ✔", "Band ✔"]
            rows[0]["criteria"]["Score"] = {"expectedOutput": {"score": 70}}
            (config.root / "bands.named.json").write_text(json.dumps(doc), encoding="utf-8")
            await press_and_wait(app, pilot, "r")
            await settle(pilot)
            detail = app.main.detail
            assert detail.refs == ["Grade", "Band", "Score"]
            assert tab_labels(app) == ["Grade ✔", "Band ✔", "Score ✘"]
            assert detail.current_ref == "Score"
            assert "✘ FAIL" in static_text(app, "#detail-meta")
