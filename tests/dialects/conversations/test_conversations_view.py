"""The TUI's detail for conversation rows: the transcript turn by turn with each assertion's ✔ / ✘ beside
its turn, the first failing turn scrolled into view, and a snapshot of the view. The project is a copy of
examples/support-bot whose bot runs in-process with a fixed clock, so every time on screen is fixed."""

from __future__ import annotations

import itertools
import runpy
import shutil
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from helpers.conversations import ScriptedTarget
from helpers.paths import EXAMPLES
from helpers.project import make_project, row
from helpers.tui import pinned_clock, screen_text, selected_id, settle, shown_rows, static_text, status_text, wait_idle

from workbench.config import load_config
from workbench.dialects.conversations import player
from workbench.project import load_project
from workbench.scoring.judge_client import clear_cache
from workbench.tui.app import WorkbenchApp, make_app
from workbench.tui.detail_views.conversation import ConversationView
from workbench.tui.filter_box import NameFilter
from workbench.tui.filter_text import RowFilterText

EXAMPLE = EXAMPLES / "support-bot"
SMALL = (110, 30)


class _Clock:
    """perf_counter for the player: every reading is 12.5 ms after the one before."""

    def __init__(self) -> None:
        self.ticks = itertools.count()

    def perf_counter(self) -> float:
        return next(self.ticks) * 0.0125


@pytest.fixture
def support_bot(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, ScriptedTarget]:
    root = tmp_path / "support-bot"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns(".workbench", "__pycache__"))
    monkeypatch.setattr(player, "time", _Clock())
    clear_cache()
    bot = runpy.run_path(str(root / "bot.py"))["reply"]
    config = load_config(root)
    config.overrides.concurrency = 1  # rows one after another (kept when the settings are re-read): the fixed
    config.overrides.apply(config)  # clock then gives every row the same times
    return config, ScriptedTarget(bot)


def app_on(config: Any, target: ScriptedTarget) -> WorkbenchApp:
    return pinned_clock(make_app(config, watch=False, record=False, runner_factory=target.factory))


async def select(app: WorkbenchApp, pilot: Any, row_id: str) -> None:
    """Move the tree's cursor to the row `row_id` with the keyboard (from the top)."""
    await pilot.press(*["k"] * 8)
    for _ in range(12):
        if selected_id(app) == row_id:
            break
        await pilot.press("j")
    await settle(pilot)
    assert selected_id(app) == row_id


@asynccontextmanager
async def showing(support_bot: tuple[Any, ScriptedTarget], row_id: str,
                  size: tuple[int, int]) -> AsyncIterator[tuple[WorkbenchApp, Any]]:
    """The app on the support bot, its first iteration done and the row `row_id` selected: (app, pilot)."""
    config, target = support_bot
    app = app_on(config, target)
    async with app.run_test(size=size) as pilot:
        await wait_idle(app, pilot)
        await select(app, pilot, row_id)
        yield app, pilot


def turn_texts(app: WorkbenchApp) -> list[str]:
    return [static_text(app, f"#{w.id}") if w.id else w.content.plain  # type: ignore[union-attr]
            for w in app.query(".conversation-turn") if w.display]


async def test_the_transcript_shows_each_turn_with_its_assertions_marked(support_bot: tuple[Any, Any]) -> None:
    async with showing(support_bot, "order-refund", (150, 60)) as (app, _pilot):
        assert isinstance(app.main.detail.view, ConversationView)
        turns = turn_texts(app)
        assert turns[0].startswith("Setup workflow")
        assert "flow  onboarding completed" in turns[0]
        assert turns[1].startswith("Turn 1   12ms")
        assert "event {\"orderId\":\"ORD-001\",\"total\":49.99}" in turns[1]
        assert "bot   Order ORD-001 is confirmed: $49.99 charged." in turns[1]
        assert "state conversation.lastOrder ∅ → ORD-001" in turns[1]
        assert "✔ workflow: name \"orderConfirmation\" entered true" in turns[1]
        assert turns[2].startswith("Turn 2   12ms   1 failed")
        assert "tool  lookupOrder {\"orderId\":\"ORD-001\"} → {\"status\":\"paid\"}" in turns[2]
        assert ("✘ tools: called \"issueRefund\" params {\"orderId\":{\"equals\":\"ORD-001\"}} — issueRefund was "
                "not called (tools called: lookupOrder)") in turns[2]
        assert "✔ response: contains \"5 business days\"" in turns[2]
        assert turns[3].startswith("Outcome") and "✔ workflow: name \"onboarding\" completed true" in turns[3]
        assert "1 of 8 assertions failed" in static_text(app, "#detail-explanation")


async def test_the_first_failing_turn_is_scrolled_into_view(support_bot: tuple[Any, Any]) -> None:
    async with showing(support_bot, "order-refund", SMALL) as (app, _pilot):
        failing = [w for w in app.query(".conversation-turn") if "1 failed" in w.content.plain]  # type: ignore[attr-defined]
        assert failing
        detail = app.main.detail
        assert detail.scroll_y > 0
        top, bottom = detail.region.y, detail.region.bottom
        assert top <= failing[0].region.y < bottom


async def test_before_a_run_the_turns_and_assertions_show_as_written(support_bot: tuple[Any, Any]) -> None:
    support_bot[1].answer = lambda request: (_ for _ in ()).throw(RuntimeError("the bot is down"))
    async with showing(support_bot, "greeting", (150, 60)) as (app, _pilot):
        turns = turn_texts(app)
        assert turns[0].startswith("Turn 1") and "stopped here: the target raised RuntimeError: the bot is down" \
            in turns[0]
        assert "not run (the conversation stopped earlier)" in turns[1]
        assert "Error" in static_text(app, "#detail-explanation")


def test_snapshot_of_a_failing_conversation(support_bot: tuple[Any, Any], snap_compare: Any) -> None:
    config, target = support_bot
    app = app_on(config, target)

    async def run_before(pilot: Any) -> None:
        await wait_idle(app, pilot)
        await select(app, pilot, "order-refund")
        app.clear_notifications()
        await pilot.pause()

    assert snap_compare(app, terminal_size=(150, 45), run_before=run_before)


async def test_screen_text_names_the_failing_assertion_beside_its_turn(support_bot: tuple[Any, Any]) -> None:
    async with showing(support_bot, "order-refund", (150, 70)) as (app, _pilot):
        screen = screen_text(app)
        assert "Turn 2" in screen and "✘ tools: called \"issueRefund\"" in screen


# -- the `/` filter with tag: and type: ---------------------------------------------------------------

@pytest.mark.parametrize(("text", "shown"), [
    ("tag:smoke", ["greeting"]),
    ("tag:smoke tag:events", ["greeting", "order-refund"]),
    ("type:regression", ["urgent-ticket"]),
    ("type:capability refund", ["order-refund"]),
    ("TICKET", ["urgent-ticket"]),
    ("tag:nope", []),
])
def test_filter_text_selects_on_tags_types_and_name(text: str, shown: list[str]) -> None:
    project = load_project(EXAMPLE)
    wanted = RowFilterText.parse(text)
    assert [r.name for s in project.sets for r in s.rows if wanted.matches(r.name, r)] == shown


async def test_the_filter_box_takes_tag_words(support_bot: tuple[Any, Any]) -> None:
    config, target = support_bot
    make_project(config.root, sets={"plain": [row("untagged", {"x": 1}, {"x": 1})]})
    app = app_on(config, target)
    async with app.run_test(size=(150, 45)) as pilot:
        await wait_idle(app, pilot)
        assert "untagged" in shown_rows(app)
        await pilot.press("/", *"tag:smoke", "enter")
        await settle(pilot)
        assert list(shown_rows(app)) == ["greeting"]  # untagged rows of other formats are left out too
        assert "[filter: tag:smoke]" in status_text(app)


async def test_launched_with_tag_only_those_rows_run_and_show(support_bot: tuple[Any, Any]) -> None:
    config, target = support_bot
    config.overrides.tags = ("events",)
    app = app_on(config, target)
    async with app.run_test(size=(150, 45)) as pilot:
        await wait_idle(app, pilot)
        assert list(shown_rows(app)) == ["order-refund"]
        assert {request["eval"] for request in target.requests} == {"order-refund"}
        assert app.query_one("#filter", NameFilter).value == "tag:events"
