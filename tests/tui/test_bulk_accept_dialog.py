"""Issue 12, point 2: `A` walks every failing row's diff in turn — accept, skip, accept all the rest, stop,
cancel — and then writes the accepted rows with one surgical write per eval set."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers.tui import FAIL, PASS, FakeTarget, Notices, app_for, out_row, settle, wait_idle, wait_until, write_project

from workbench.actions import accept_bulk
from workbench.tui.bulk_accept_screen import BulkAcceptScreen

EXACT = "exact-match-evaluator"


def project(tmp_path: Path) -> Any:
    """Two sets: `first` has three failing rows and a passing one, `second` one failing row and one that errors."""
    first = [out_row("one", FAIL, PASS), out_row("ok", PASS, PASS), out_row("two", FAIL, PASS),
             out_row("three", FAIL, PASS)]
    second = [out_row("four", FAIL, PASS), out_row("boom", PASS, PASS)]
    return write_project(tmp_path, {"first": first, "second": second})


def expectations(config: Any, name: str) -> dict[str, Any]:
    doc = json.loads((config.root / "evals" / "default" / "eval-sets" / f"{name}.json").read_text())
    return {r["name"]: r["evaluationCriterias"][EXACT]["expectedOutput"] for r in doc["evaluations"]}


def raw(config: Any, name: str) -> bytes:
    return (config.root / "evals" / "default" / "eval-sets" / f"{name}.json").read_bytes()


@pytest.fixture
def writes(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every file write the bulk accept makes."""
    seen: list[str] = []
    real = accept_bulk.write_plan

    def counting(plan: Any) -> Any:
        seen.append(plan.display.rsplit("/", 1)[-1])
        return real(plan)

    monkeypatch.setattr(accept_bulk, "write_plan", counting)
    return seen


async def open_walk(app: Any, pilot: Any) -> BulkAcceptScreen:
    await wait_idle(app, pilot)
    await pilot.press("A")
    await wait_until(pilot, lambda: isinstance(app.screen, BulkAcceptScreen), "the walk opened")
    await settle(pilot)
    screen = app.screen
    assert isinstance(screen, BulkAcceptScreen)
    return screen


def title(screen: BulkAcceptScreen) -> str:
    return screen.query_one("#bulk-title").content.plain


async def test_the_walk_shows_each_diff_and_writes_each_file_once(tmp_path: Path, writes: list[str]) -> None:
    config = project(tmp_path)
    before = raw(config, "first")
    app = app_for(config, FakeTarget(errors={"boom": "the target exited with 1"}))
    notices = Notices()
    async with app.run_test(message_hook=notices) as pilot:
        screen = await open_walk(app, pilot)
        assert [p.label for p in screen.bulk.previews] == ["one", "two", "three", "four"]
        assert "1 of 4" in title(screen) and "one" in title(screen)
        assert '"grade": "FAIL"' in screen.query_one("#bulk-diff").content.plain
        assert any("skipped 'boom'" in n for n in notices), "the ERROR row is named"
        await pilot.press("y")  # one
        assert "2 of 4" in title(screen) and "two" in title(screen)
        await pilot.press("n")  # two: skipped
        assert "3 of 4" in title(screen)
        assert raw(config, "first") == before and writes == [], "nothing is written during the walk"
        await pilot.press("a")  # three and four
        await wait_until(pilot, lambda: not isinstance(app.screen, BulkAcceptScreen), "the walk ended")
        await wait_idle(app, pilot, 2)  # not watching: the app re-runs after the write
    assert writes == ["first.json", "second.json"], "one write per eval set"
    assert expectations(config, "first") == {"one": FAIL, "ok": PASS, "two": PASS, "three": FAIL}
    assert expectations(config, "second") == {"four": FAIL, "boom": PASS}


async def test_stop_writes_what_was_accepted_so_far(tmp_path: Path, writes: list[str]) -> None:
    config = project(tmp_path)
    app = app_for(config, FakeTarget())
    notices = Notices()
    async with app.run_test(message_hook=notices) as pilot:
        await open_walk(app, pilot)
        await pilot.press("n", "y", "q")  # skip one, accept two, stop
        await wait_until(pilot, lambda: not isinstance(app.screen, BulkAcceptScreen), "the walk ended")
        await wait_idle(app, pilot, 2)
        assert any(n.startswith("Accepted 1 row in 1 file") for n in notices)
    assert writes == ["first.json"]
    assert expectations(config, "first") == {"one": PASS, "ok": PASS, "two": FAIL, "three": PASS}


async def test_escape_cancels_the_walk_and_writes_nothing(tmp_path: Path, writes: list[str]) -> None:
    config = project(tmp_path)
    before = raw(config, "first"), raw(config, "second")
    app = app_for(config, FakeTarget())
    async with app.run_test() as pilot:
        await open_walk(app, pilot)
        await pilot.press("y", "y", "escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, BulkAcceptScreen), "the walk closed")
        await settle(pilot)
    assert writes == [] and (raw(config, "first"), raw(config, "second")) == before


async def test_the_walk_follows_the_filter(tmp_path: Path, writes: list[str]) -> None:
    config = project(tmp_path)
    app = app_for(config, FakeTarget())
    async with app.run_test() as pilot:
        await wait_idle(app, pilot)
        await pilot.press("slash", "t", "w", "o", "enter")  # only "two" shows
        await pilot.press("A")
        await wait_until(pilot, lambda: isinstance(app.screen, BulkAcceptScreen), "the walk opened")
        screen = app.screen
        assert isinstance(screen, BulkAcceptScreen) and [p.label for p in screen.bulk.previews] == ["two"]
        await pilot.press("escape")


async def test_a_is_refused_when_nothing_fails(tmp_path: Path) -> None:
    app = app_for(write_project(tmp_path, {"g": [out_row("fine", PASS, PASS)]}), FakeTarget())
    notices = Notices()
    async with app.run_test(message_hook=notices) as pilot:
        await wait_idle(app, pilot)
        await pilot.press("A")
        await settle(pilot)
        assert not isinstance(app.screen, BulkAcceptScreen)
        assert any("No failing rows to accept" in n for n in notices)
