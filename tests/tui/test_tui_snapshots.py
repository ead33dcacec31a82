"""Snapshots of the main layouts (pytest-textual-snapshot): `pytest --snapshot-update` rewrites them
after an intended change; look at the SVGs in tests/tui/__snapshots__/ before committing them.

The screens that matter are also pinned at 80x24 (the smallest terminal workbench supports) and 160x48:
the main layout, the help, the `+` dialog, the accept dialog and the bulk-accept walk.

Everything that could vary is pinned: the project is a copy of examples/grading named `grading`, the
target is the example's grade.py run in-process with a fixed duration, history times are fixed and
shown in UTC, notifications are cleared and Input cursors stop blinking before the shot, and every wait is
on the app's settled signal, never a pause of some length.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers.tui import (
    SIZE,
    app_for,
    example_project,
    fixed_clock_recording,
    seed_history,
    settle,
    settled,
    steady_cursors,
    two_evaluator_project,
    wait_idle,
    wait_until,
)
from textual.screen import Screen

from workbench.tui.app import WorkbenchApp
from workbench.tui.bulk_accept_screen import BulkAcceptScreen
from workbench.tui.help_screen import HelpScreen
from workbench.tui.writeback_screens import AcceptScreen, AddRowScreen

SIZES = {"80x24": (80, 24), "160x48": (160, 48)}
SMALL = SIZES["80x24"]


@pytest.fixture
def utc(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """History shows local times: make local time UTC for the shot."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def ready(app: WorkbenchApp, *keys: str, iterations: int = 1) -> Any:
    async def run_before(pilot: Any) -> None:
        await wait_idle(app, pilot, iterations)
        await settle(pilot)
        if keys:
            await pilot.press(*keys)
            await settled(app, pilot)  # what a key started (the history tab's load) has finished
            await settle(pilot)
        app.clear_notifications()
        steady_cursors(app)
        await pilot.pause()
    return run_before


def test_overview(tmp_path: Path, snap_compare: Any) -> None:
    config, target = example_project(tmp_path)
    app = app_for(config, target, watch=True)
    assert snap_compare(app, terminal_size=SIZE, run_before=ready(app))


def test_fail_row_diff(tmp_path: Path, snap_compare: Any) -> None:
    config, target = example_project(tmp_path)
    app = app_for(config, target, watch=True)
    assert snap_compare(app, terminal_size=SIZE, run_before=ready(app, "n"))


def test_history_after_several_iterations(tmp_path: Path, snap_compare: Any, utc: None,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    config, target = example_project(tmp_path)
    seed_history(config, [3, 5, 4, 5])
    fixed_clock_recording(monkeypatch)
    app = app_for(config, target, watch=True, record=True)
    assert snap_compare(app, terminal_size=SIZE, run_before=ready(app, "2"))


def test_help_screen(tmp_path: Path, snap_compare: Any) -> None:
    config, target = example_project(tmp_path)
    app = app_for(config, target, watch=True)
    assert snap_compare(app, terminal_size=SIZE, run_before=ready(app, "question_mark"))


def test_file_problem_in_the_sets_pane(tmp_path: Path, snap_compare: Any) -> None:
    config, target = example_project(tmp_path)
    broken = config.root / "evals" / "default" / "eval-sets" / "broken.json"
    broken.write_text('{"version": "1.0", "evaluations": [\n  {"id": "x",, }\n]}\n')
    app = app_for(config, target, watch=True)
    assert snap_compare(app, terminal_size=SIZE, run_before=ready(app, "home", "down"))


def opened(app: WorkbenchApp, key: str, screen: type[Screen[Any]] | None) -> Any:
    """After the first iteration, press `key` and wait for `screen` (opened by a worker for `A`)."""
    async def run_before(pilot: Any) -> None:
        await wait_idle(app, pilot)
        await settle(pilot)
        if screen is not None:
            await pilot.press(key)
            await wait_until(pilot, lambda: isinstance(app.screen, screen), f"{key} opened {screen.__name__}")
            await settled(app, pilot)
            await settle(pilot)
        app.clear_notifications()
        steady_cursors(app)  # the + dialog's focused Input would blink
        await pilot.pause()
    return run_before


SCREENS: dict[str, tuple[str, type[Screen[Any]] | None]] = {
    "main": ("", None),
    "help": ("question_mark", HelpScreen),
    "add-row": ("plus", AddRowScreen),
    "accept": ("a", AcceptScreen),
    "bulk-accept": ("A", BulkAcceptScreen),
}


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("screen", SCREENS)
def test_screens_at_80x24_and_160x48(tmp_path: Path, snap_compare: Any, screen: str, size: str) -> None:
    """The app opens on the failing row of examples/grading, so `a` and `A` have a diff to show."""
    config, target = example_project(tmp_path)
    app = app_for(config, target, watch=True)
    key, screen_type = SCREENS[screen]
    assert snap_compare(app, terminal_size=SIZES[size], run_before=opened(app, key, screen_type))


# -- issue 22: the first hour at 80x24 ---------------------------------------------------------------


def test_failing_multi_evaluator_row_at_80x24(tmp_path: Path, snap_compare: Any) -> None:
    """One row, two evaluators, one failing: the detail opens on the failing one (scrolled to its top here,
    to show them); the tabs carry ✔/✘."""
    app = app_for(two_evaluator_project(tmp_path))
    assert snap_compare(app, terminal_size=SMALL, run_before=ready(app, "enter", "home"))


def test_stacked_expected_and_actual_at_80x24(tmp_path: Path, snap_compare: Any) -> None:
    """At 80 columns the failing row's expected sits above its actual, each the pane's width; it opens
    with the `Expected` heading at the top."""
    app = app_for(two_evaluator_project(tmp_path))
    assert snap_compare(app, terminal_size=SMALL, run_before=ready(app))


def test_history_tab_at_80x24(tmp_path: Path, snap_compare: Any, utc: None, monkeypatch: pytest.MonkeyPatch) -> None:
    config, target = example_project(tmp_path)
    seed_history(config, [3, 5, 4, 5])
    fixed_clock_recording(monkeypatch)
    app = app_for(config, target, watch=True, record=True)
    assert snap_compare(app, terminal_size=SMALL, run_before=ready(app, "2"))


def test_evaluators_tab_at_80x24(tmp_path: Path, snap_compare: Any) -> None:
    config, target = example_project(tmp_path)
    app = app_for(config, target, watch=True)
    assert snap_compare(app, terminal_size=SMALL, run_before=ready(app, "3"))
