"""The TUI's two write actions (issue 5): `a` accepts a failing row's actual output after showing the
change, `+` runs the target on new inputs and appends a row. Both write only on confirm."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from helpers.tui import (
    FAIL,
    PASS,
    FakeTarget,
    Notices,
    app_for,
    grading_rows,
    to_first_row,
    wait_idle,
    wait_until,
    write_project,
)
from textual.pilot import Pilot
from textual.widgets import Button, Input

from workbench import jsonio
from workbench.tui.app import WorkbenchApp
from workbench.tui.writeback_screens import AcceptScreen, AddRowScreen


def set_file(config) -> Path:
    return config.root / "evals" / "default" / "eval-sets" / "grading.json"


@asynccontextmanager
async def grading_app(tmp_path: Path) -> AsyncIterator[tuple[WorkbenchApp, Pilot[None], Path, bytes]]:
    """The grading project's app after its first iteration, its set file and the file's bytes before."""
    config = write_project(tmp_path)
    path = set_file(config)
    before = path.read_bytes()
    app = app_for(config, FakeTarget())
    async with app.run_test() as pilot:
        await wait_idle(app, pilot)
        yield app, pilot, path, before


async def test_accept_shows_the_change_and_writes_only_on_confirm(tmp_path):
    async with grading_app(tmp_path) as (app, pilot, path, before):
        await to_first_row(app, pilot)  # the app opens on the first failing row
        await pilot.press("n")  # the first failing row: bravo
        await pilot.press("a")
        await wait_until(pilot, lambda: isinstance(app.screen, AcceptScreen), "the accept dialog opened")
        diff = app.screen.query_one("#accept-diff").content.plain
        assert '-' in diff and '"grade": "PASS"' in diff and '"grade": "FAIL"' in diff
        assert path.read_bytes() == before, "nothing is written before confirming"
        await pilot.press("y")
        await wait_until(pilot, lambda: not isinstance(app.screen, AcceptScreen), "the dialog closed")
        await wait_idle(app, pilot, 2)  # not watching: the app re-runs the accepted row itself
        doc = jsonio.loads(path.read_bytes())
        bravo = next(r for r in doc["evaluations"] if r["name"] == "bravo")
        assert bravo["evaluationCriterias"]["exact-match-evaluator"]["expectedOutput"] == FAIL
        changed = [i for i, (a, b) in enumerate(zip(before.splitlines(), path.read_bytes().splitlines(),
                                                     strict=True)) if a != b]
        assert len(changed) == 1, "only the expectation's line changed"
        assert app.state.row_verdict(*app.state.find_row(("default", "grading.json", bravo["id"]))).value == "PASS"


async def test_accept_cancelled_writes_nothing(tmp_path):
    async with grading_app(tmp_path) as (app, pilot, path, before):
        await pilot.press("n", "a")
        await wait_until(pilot, lambda: isinstance(app.screen, AcceptScreen), "the accept dialog opened")
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, AcceptScreen), "the dialog closed")
        await pilot.pause()
    assert path.read_bytes() == before


async def test_accept_on_a_passing_row_says_so_and_opens_nothing(tmp_path):
    config = write_project(tmp_path)
    app = app_for(config, FakeTarget())
    notices = Notices()
    async with app.run_test(message_hook=notices) as pilot:
        await wait_idle(app, pilot)
        await pilot.press("home", "down", "a")  # alpha passes
        await pilot.pause()
        assert not isinstance(app.screen, AcceptScreen)
        assert any("passes" in n for n in notices)


async def test_new_row_form_validates_json_and_appends_on_confirm(tmp_path):
    async with grading_app(tmp_path) as (app, pilot, path, before):
        await pilot.press("plus")
        await wait_until(pilot, lambda: isinstance(app.screen, AddRowScreen), "the new-row form opened")
        screen = app.screen
        screen.query_one("#add-name", Input).value = "foxtrot"
        screen.query_one("#add-inputs", Input).value = '{"out": {"grade": "PASS"'
        await pilot.pause()
        assert "not valid JSON" in screen.query_one("#add-status").content.plain
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert screen.query_one("#add-append", Button).disabled, "invalid inputs never reach the target"
        screen.query_one("#add-inputs", Input).value = '{"out": {"grade": "PASS"}}'
        await pilot.pause()
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: not screen.query_one("#add-append", Button).disabled, "the run finished")
        assert '"name": "foxtrot"' in screen.query_one("#add-preview").content.plain
        assert path.read_bytes() == before, "nothing is written before Append"
        await pilot.click("#add-append")
        await wait_until(pilot, lambda: not isinstance(app.screen, AddRowScreen), "the form closed")
        await wait_idle(app, pilot, 2)
    doc = json.loads(path.read_text())
    assert [r["name"] for r in doc["evaluations"]] == [r["name"] for r in grading_rows()] + ["foxtrot"]
    new = doc["evaluations"][-1]
    assert new["evaluationCriterias"] == {"exact-match-evaluator": {"expectedOutput": PASS}}
    assert path.read_bytes().startswith(before[: before.rindex(b"}", 0, before.rindex(b"]"))])


async def test_new_row_refuses_a_duplicate_name(tmp_path):
    config = write_project(tmp_path)
    app = app_for(config, FakeTarget())
    async with app.run_test() as pilot:
        await wait_idle(app, pilot)
        await pilot.press("plus")
        await wait_until(pilot, lambda: isinstance(app.screen, AddRowScreen), "the new-row form opened")
        app.screen.query_one("#add-name", Input).value = "alpha"
        app.screen.query_one("#add-inputs", Input).value = "{}"
        await pilot.pause()
        assert "already has a row named 'alpha'" in app.screen.query_one("#add-status").content.plain
        await pilot.press("escape")
