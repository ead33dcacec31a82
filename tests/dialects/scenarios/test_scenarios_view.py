"""A scenario's row detail: listed actions beside the actual ones — matched pairs aligned, unmatched ones
marked with why — as data (`align`) and on the TUI's detail pane, on a copy of examples/form-agent."""

from __future__ import annotations

import runpy
import shutil
from pathlib import Path
from typing import Any

from helpers.detail_views import move_to, open_on_first_row
from helpers.paths import EXAMPLES
from helpers.tui import SIZE, FakeTarget, app_for, static_text

from workbench.config import load_config
from workbench.dialects.scenarios.align import ALLOWED, EXTRA, FORBIDDEN, MATCHED, MISSING, align
from workbench.tui.detail_views import view_for
from workbench.tui.detail_views.scenario import ScenarioView

EXAMPLE = EXAMPLES / "form-agent"


def act(kind: str, **payload: Any) -> dict[str, Any]:
    return {"type": kind, "payload": payload}


def states(expect: dict[str, Any], *actions: dict[str, Any]) -> list[tuple[str, str | None, str | None]]:
    alignment = align(expect, {"actions": list(actions), "reply": ""})
    return [(row.state, row.expected, row.actual) for row in alignment.rows]


def test_matched_pairs_are_aligned_in_the_listed_order() -> None:
    expect = {"actions": [act("click", id="ok"), {"type": "form_fill", "payload": {"fields": [{"fieldId": "a"}]}}]}
    got = states(expect, act("form_fill", fields=[{"fieldId": "b"}, {"fieldId": "a"}]), act("click", id="ok"))
    assert got == [(MATCHED, "click ok", "click ok"), (MATCHED, "form_fill(a)", "form_fill(b, a)")]


def test_unmatched_ones_are_marked_with_why() -> None:
    expect = {"mode": "any", "forbidActionTypes": ["delete_item"],
              "actions": [act("click", id="ok"), act("navigate", screen="Home")]}
    alignment = align(expect, {"actions": [act("click", id="cancel"), act("click", id="ok"), act("delete_item")]})
    rows = [(r.state, r.expected, r.actual_index, r.note) for r in alignment.rows]
    assert rows == [
        (MATCHED, "click ok", 1, ""),
        (MISSING, "navigate Home", None, "no navigate action for the listed navigate Home "
                                         "(actions: click cancel, click ok, delete_item)"),
        (ALLOWED, None, 0, "not listed (extras are allowed in mode any)"),
        (FORBIDDEN, None, 2, "forbidActionTypes"),
    ]
    assert not alignment.ok


def test_exact_and_none_mark_extras_as_failures() -> None:
    assert states({"mode": "exact", "actions": [act("click", id="ok")]}, act("click", id="ok"), act("close")) == [
        (MATCHED, "click ok", "click ok"), (EXTRA, None, "close")]
    assert states({"mode": "none"}, act("close")) == [(EXTRA, None, "close")]
    wrong = align({"mode": "exact", "actions": [act("click", id="ok")]}, {"actions": [act("click", id="no")]})
    assert wrong.rows[0].note == 'action 1 is click no: payload.id is "no", expected "ok"'


def test_any_of_shows_the_alternative_that_matched_or_the_closest() -> None:
    expect = {"anyOf": [{"mode": "exact", "actions": [act("confirm")]}, {"mode": "none", "replyMustContain": ["sure"]}]}
    matched = align(expect, {"actions": [], "reply": "Are you sure?"})
    assert (matched.ok, matched.alternative, matched.alternatives, matched.mode) == (True, 1, 2, "none")
    closest = align(expect, {"actions": [act("confirm", id=1), act("close")], "reply": ""})
    assert (closest.ok, closest.alternative, closest.mode) == (False, 0, "exact")


def test_unusable_sides_are_a_problem_not_a_crash() -> None:
    assert align({"mode": "maybe"}, {"actions": []}).problem == (
        'expect.mode must be one of any, first, exact, none, not "maybe"')
    assert align({}, "just text").problem.startswith("the response is not")  # type: ignore[union-attr]


async def test_the_tui_shows_expected_actions_beside_the_actual_ones(tmp_path: Path) -> None:
    assert view_for("appilots") is ScenarioView
    root = tmp_path / "form-agent"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns(".workbench", "__pycache__"))
    respond = runpy.run_path(str(root / "agent.py"))["respond"]
    app = app_for(load_config(root), FakeTarget(compute=respond))
    async with app.run_test(size=SIZE) as pilot:
        await open_on_first_row(app, pilot, "asks-before-deleting-a-vehicle", ScenarioView)
        assert "anyOf[1] of 2, matched" in static_text(app, "#scenario-actions")
        assert "must contain one of:" in static_text(app, "#scenario-reply")
        await move_to(app, pilot, ("j", "j"), "fills-signup-from-one-sentence")
        assert 'When "Hi, my name is Rui Costa' in static_text(app, "#scenario-request")
        table = static_text(app, "#scenario-actions")
        assert "Actions — mode any" in table
        line = next(line for line in table.splitlines() if "✓" in line)
        assert "form_fill(name, email)" in line and "[0] form_fill(email, name)" in line
        await move_to(app, pilot, ("j",), "keeps-card-number-private")
        reply = static_text(app, "#scenario-reply")
        assert 'Reply  "Thanks, I noted the card ending in 9012."' in reply
        assert 'must not contain: "9012"  ✗ found' in reply
        assert 'reply contains forbidden "9012"' in static_text(app, "#detail-explanation")
        assert '"replyMustNotContain"' in static_text(app, "#scenario-expect")
