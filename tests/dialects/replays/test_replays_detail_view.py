"""The row detail of a scripted replay: the run's end, each step with the state it reached, the approval
decisions and where the run stopped — as data (`outline`) and on the TUI's detail pane."""

from __future__ import annotations

import json
from pathlib import Path

from helpers.detail_views import move_to, open_on_first_row
from helpers.replays import copy_example, replay
from helpers.tui import SIZE, app_for, selected_id, settle, static_text, to_first_row, wait_idle, wait_until
from textual.widgets import Button, Input

from workbench.config import load_config
from workbench.dialects.replays.outline import DENIED, DONE, FAILED, NOT_REACHED, NOT_RUN, WAITING, outline
from workbench.tui.case_from_run_screen import CaseFromRunScreen
from workbench.tui.detail_views import view_for
from workbench.tui.detail_views.replay import ReplayView


def states(name: str, results: dict) -> list[tuple[str, str]]:
    result = results[name]
    return [(line.kind, line.state) for line in outline(result.inputs["script"], result.trace, result.actual).steps]


def test_the_outline_says_how_far_each_case_got(tmp_path: Path) -> None:
    results = replay(copy_example(tmp_path / "refund-agent"))
    assert states("refund-approved", results) == [("tool.call", DONE), ("tool.call", DONE),
                                                  ("approval.decide", DONE), ("artifact.write", DONE),
                                                  ("assistant.output", DONE)]
    assert states("refund-denied", results) == [("assistant.output", DONE), ("tool.call", DENIED),
                                                ("approval.decide", DENIED)]
    assert states("refund-held", results) == [("tool.call", WAITING), ("assistant.output", NOT_REACHED)]
    assert states("refund-typo", results) == [("tool.call", FAILED), ("approval.decide", NOT_REACHED),
                                              ("assistant.output", NOT_REACHED)]
    held = results["refund-held"]
    plan = outline(held.inputs["script"], held.trace, held.actual)
    assert (plan.status, plan.stopped_at, plan.detail) == ("waiting", 0, "issue_refund is waiting for approval.")
    assert plan.steps[0].note == "issue_refund is waiting for approval."
    approved = results["refund-approved"]
    lookup = outline(approved.inputs["script"], approved.trace, approved.actual).steps[0]
    assert lookup.summary.startswith('lookup_order {"orderId":"A-1001"} → {"orderId":"A-1001","item":"Kettle"')
    assert lookup.summary.endswith("(live)")
    assert [line.state for line in outline(held.inputs["script"], None, None).steps] == [NOT_RUN, NOT_RUN]


async def test_the_tui_shows_a_replays_steps_and_where_it_stopped(tmp_path: Path) -> None:
    assert view_for("replays") is ReplayView
    app = app_for(load_config(copy_example(tmp_path / "refund-agent")))
    async with app.run_test(size=SIZE) as pilot:
        await open_on_first_row(app, pilot, "refund-approved", ReplayView)
        assert "Run completed" in static_text(app, "#replay-run")
        assert "✓ [2] approval.decide approved" in static_text(app, "#replay-steps")
        await move_to(app, pilot, ("j", "j"), "refund-held")
        run = static_text(app, "#replay-run")
        assert "Run waiting  stopped at script[0]" in run and "issue_refund is waiting for approval." in run
        steps = static_text(app, "#replay-steps")
        assert "⏸ [0] tool.call issue_refund" in steps and "waiting — issue_refund is waiting for approval." in steps
        assert '· [1] assistant.output said "Refunded order A-1001."  not reached' in steps
        assert '"status": "waiting"' in static_text(app, "#replay-expect")
        await move_to(app, pilot, ("k",), "refund-denied")
        assert "✗ [2] approval.decide denied" in static_text(app, "#replay-steps")
        assert "Approval for issue_refund was denied." in static_text(app, "#replay-run")


async def test_c_on_the_history_tab_turns_the_rows_run_into_a_case_after_a_preview(tmp_path: Path) -> None:
    root = copy_example(tmp_path / "refund-agent")
    app = app_for(load_config(root), record=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(app, pilot)
        await to_first_row(app, pilot)  # the app opens on the first failing row
        await pilot.press("2", "j", "j")  # the history tab; the sets tree keeps the keys
        await settle(pilot)
        assert selected_id(app) == "refund-held" and app.main.history_pane.selected_iteration == 1
        await pilot.press("c")
        await wait_until(pilot, lambda: isinstance(app.screen, CaseFromRunScreen), "the preview opened")
        await settle(pilot)
        screen = app.screen
        assert "evals/refund-held.script.json already exists" in static_text(screen, "#case-status")
        assert screen.query_one("#case-write", Button).disabled
        screen.query_one("#case-name", Input).value = "held-again"
        await settle(pilot)
        assert "new file evals/held-again.script.json" in static_text(screen, "#case-status")
        assert '"status": "waiting"' in static_text(screen, "#case-preview")
        assert not (root / "evals" / "held-again.script.json").exists()  # nothing before the confirmation
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: not isinstance(app.screen, CaseFromRunScreen), "the preview closed")
        written = json.loads((root / "evals" / "held-again.script.json").read_text())
        assert written["expect"] == {"status": "waiting"}
        assert written["script"] == [{"type": "tool.call", "toolName": "issue_refund",
                                      "arguments": {"orderId": "A-1001"}}]
