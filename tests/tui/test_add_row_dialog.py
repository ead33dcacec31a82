"""Issue 12, point 7: the `+` dialog. Its placeholders come from the set's own rows (not the demo's
`{"score": 64}`); typing name, Tab, inputs quickly never loses the Tab; and a set whose evaluator doesn't
compare with expectedOutput (uipath-contains) asks for the new row's criterion instead of writing an
empty `evaluationCriterias` that could only ERROR. The dialog names the set's real file."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from helpers.project import evaluator
from helpers.tui import (
    WAIT_S,
    FakeTarget,
    app_for,
    out_row,
    settle,
    static_text,
    wait_idle,
    wait_until,
    widget_text,
    write_project,
)
from textual import events
from textual.widget import Widget
from textual.widgets import Button, Input, Static

from workbench.tui.writeback_screens import AddRowScreen

CONTAINS = "says-refund"


def contains_project(tmp_path: Path):
    rows = [{"id": "r1", "name": "asks for a refund", "inputs": {"out": "we will refund you", "lang": "en"},
             "evaluationCriterias": {CONTAINS: {"searchText": "refund"}}}]
    doc = {"id": "s", "name": "support", "evaluatorRefs": [CONTAINS], "evaluations": rows}
    return write_project(tmp_path, {"support": doc},
                         evaluators={CONTAINS: evaluator("*", type_id="uipath-contains", id="contains-1")})


async def open_dialog(app, pilot) -> AddRowScreen:
    await wait_idle(app, pilot)
    await pilot.press("plus")
    await wait_until(pilot, lambda: isinstance(app.screen, AddRowScreen), "the new-row dialog opened")
    await settle(pilot)
    return app.screen


async def test_placeholders_come_from_the_sets_rows(tmp_path: Path) -> None:
    config = write_project(tmp_path, {"g": [out_row("a", {"grade": "PASS"}, {"grade": "PASS"})]})
    app = app_for(config)
    async with app.run_test() as pilot:
        screen = await open_dialog(app, pilot)
        assert screen.query_one("#add-inputs", Input).placeholder == '{"out":{"grade":"PASS"}}'
        assert "64" not in screen.query_one("#add-inputs", Input).placeholder
        assert not screen.query(".form-row Input#add-criterion-0"), "exact match needs no criterion typed in"


def key_event(key: str) -> events.Key:
    return events.Key(key, None if len(key) > 1 else key)


@pytest.mark.parametrize("settle_frames", [0, 1, 2, 3])
async def test_typing_name_tab_inputs_quickly_keeps_the_tab(tmp_path: Path, settle_frames: int) -> None:
    """Keys arriving in one burst right after the dialog opened (as a fast typist's do). With 0 frames
    the keys may come before the dialog's fields exist (on a loaded machine they often do): the wait
    takes a NoMatches for "not yet", and the keys still land where they were typed."""
    app = app_for(write_project(tmp_path), FakeTarget())
    async with app.run_test() as pilot:
        await wait_idle(app, pilot)
        app.post_message(key_event("plus"))
        await wait_until(pilot, lambda: isinstance(app.screen, AddRowScreen), "the new-row dialog opened")
        for _ in range(settle_frames):
            await pilot.pause()
        for key in ["n", "e", "w", "tab", "{", "}"]:
            app.post_message(key_event(key))
        await wait_until(pilot, lambda: app.screen.query_one("#add-inputs", Input).value == "{}",
                         "the inputs reached the inputs field")
        assert app.screen.query_one("#add-name", Input).value == "new"


async def test_keys_typed_before_the_dialogs_fields_exist_land_where_they_were_typed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What a loaded machine does by chance, made certain: the whole burst is typed while the dialog is
    pushed but its fields are not composed yet (the app holds the keys until they are), and the first
    look for the inputs field finds none yet."""
    started, composing, mount = asyncio.Event(), asyncio.Event(), AddRowScreen.mount_composed_widgets

    async def held_mount(screen: AddRowScreen, widgets: list[Widget]) -> None:
        """Textual's hook between compose() and mounting what it made: held until the keys are typed."""
        started.set()
        await composing.wait()
        await mount(screen, widgets)

    monkeypatch.setattr(AddRowScreen, "mount_composed_widgets", held_mount)
    app = app_for(write_project(tmp_path), FakeTarget())
    async with app.run_test() as pilot:
        await wait_idle(app, pilot)
        app.post_message(key_event("plus"))
        # No pilot.pause() until the compose goes on: a pause waits for the screen, which is held.
        await asyncio.wait_for(started.wait(), WAIT_S)
        for key in ["n", "e", "w", "tab", "{", "}"]:
            app.post_message(key_event(key))
        assert isinstance(app.screen, AddRowScreen) and not app.screen.query(Input)
        composing.set()
        await wait_until(pilot, lambda: app.screen.query_one("#add-inputs", Input).value == "{}",
                         "the inputs reached the inputs field")
        assert app.screen.query_one("#add-name", Input).value == "new"


async def test_a_contains_set_asks_for_the_criterion_and_writes_it(tmp_path: Path) -> None:
    config = contains_project(tmp_path)
    path = config.root / "evals" / "default" / "eval-sets" / "support.json"
    app = app_for(config, FakeTarget())
    async with app.run_test() as pilot:
        screen = await open_dialog(app, pilot)
        criterion = screen.query_one("#add-criterion-0", Input)
        assert criterion.placeholder == '{"searchText":"refund"}'
        assert screen.query_one("#add-inputs", Input).placeholder == '{"out":"we will refund you","lang":"en"}'
        screen.query_one("#add-name", Input).value = "thanks"
        screen.query_one("#add-inputs", Input).value = '{"out": "a refund is on its way"}'
        await settle(pilot)
        status = screen.query_one("#add-status").content.plain
        assert f"needs a criterion for {CONTAINS} (uipath-contains)" in status
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert screen.query_one("#add-append", Button).disabled, "no run without the criterion"
        criterion.value = '{"searchText": "refund"}'
        await settle(pilot)
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: not screen.query_one("#add-append", Button).disabled, "the run finished")
        await pilot.click("#add-append")
        await wait_until(pilot, lambda: not isinstance(app.screen, AddRowScreen), "the dialog closed")
        await wait_idle(app, pilot, 2)
        new = json.loads(path.read_text())["evaluations"][-1]
        assert new["name"] == "thanks" and new["evaluationCriterias"] == {CONTAINS: {"searchText": "refund"}}
        assert app.state.row_verdict(*app.state.find_row(("default", "support.json", new["id"]))).value == "PASS"


async def test_the_detail_and_the_dialog_name_the_sets_real_file(tmp_path: Path) -> None:
    """The set's path from the project's folder, as the user finds it (`evals/default/eval-sets/g.json`),
    not its scope and file name (`default/g.json`, a path that is not there)."""
    config = write_project(tmp_path, {"g": [out_row("a", {"grade": "PASS"}, {"grade": "PASS"})]})
    app = app_for(config)
    async with app.run_test() as pilot:
        await wait_idle(app, pilot)
        await settle(pilot)
        assert "   evals/default/eval-sets/g.json · id " in static_text(app, "#detail-title")
        screen = await open_dialog(app, pilot)
        title = widget_text(screen.query_one("#add-row-box").query(Static).first())
        assert title.startswith("New row  appended to evals/default/eval-sets/g.json;"), title
