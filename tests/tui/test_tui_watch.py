"""Watch mode in the TUI: `w` pauses and resumes, and editing the target mid-run restarts the iteration
and the panes show the new verdicts."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from helpers.checks import process_alive
from helpers.project import row
from helpers.tui import (
    FAIL,
    PASS,
    SIZE,
    FakeTarget,
    app_for,
    grading_rows,
    out_row,
    settled,
    shown_rows,
    status_text,
    wait_idle,
    wait_until,
    write_project,
)

from workbench.events import Event, IterationStarted
from workbench.tui.app import WorkbenchApp, make_app

ATTEMPT_S = 3.0  # how long one edit may take to be seen before it is made again (the watcher may be starting)


def spy_events(app: WorkbenchApp) -> list[Event]:
    seen: list[Event] = []
    forward = app.session.on_event

    def spy(event: Event) -> None:
        seen.append(event)
        forward(event)

    app.session.on_event = spy
    return seen


async def edit_until(pilot: Any, edit: Any, seen: Any, what: str, attempts: int = 8) -> None:
    """Make `edit` until `seen()` holds: a watcher that was still starting misses the first one."""
    for _ in range(attempts):
        edit()
        try:
            await wait_until(pilot, seen, what, timeout=ATTEMPT_S)
            return
        except AssertionError:
            continue
    raise AssertionError(f"timed out waiting until {what}")


async def test_w_pauses_watching_and_changes_made_meanwhile_run_on_resume(tmp_path: Path) -> None:
    config = write_project(tmp_path)
    set_file = config.root / "evals" / "default" / "eval-sets" / "grading.json"
    app = app_for(config, FakeTarget(), watch=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(app, pilot)
        assert "● watching" in status_text(app)
        await pilot.press("w")
        assert app.session.paused and "paused" in status_text(app)

        def fix_bravo() -> None:  # bravo's target outputs FAIL: expect that, and it passes
            rows = grading_rows()
            rows[1] = out_row("bravo", FAIL, FAIL)
            doc = json.loads(set_file.read_text())
            doc["evaluations"] = rows
            set_file.write_text(json.dumps(doc, indent=2))

        await edit_until(pilot, fix_bravo, lambda: bool(app.session.pending_changes), "the paused watcher saw it")
        assert app.main.iterations_done == 1  # remembered, not run
        assert shown_rows(app)["bravo"].startswith("✘")
        await pilot.press("w")
        assert not app.session.paused
        await wait_idle(app, pilot, 2)
        assert shown_rows(app)["bravo"].startswith("✔")
        assert app.session.last_report is not None
        assert app.session.last_report.trigger.kind == "change"
        assert "evals/default/eval-sets/grading.json" in app.session.last_report.trigger.files
        status = status_text(app)
        assert "● watching" in status and "4/5 rows pass" in status


async def test_w_without_watch_mode_only_says_so(tmp_path: Path) -> None:
    app = app_for(write_project(tmp_path), watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(app, pilot)
        await pilot.press("w")
        assert not app.session.paused and "not watching" in status_text(app)


TARGET_V1 = """\
import json, os, sys, time
inputs = json.load(sys.stdin)
if inputs.get("slow"):
    open(os.path.join({pids!r}, str(os.getpid())), "w").close()
    time.sleep(60)  # still running when the target is edited: the edit cancels it
print(json.dumps({{"grade": "FAIL"}}))
"""
TARGET_V2 = """\
import json, sys
json.load(sys.stdin)
print(json.dumps({"grade": "PASS"}))
"""


async def test_editing_the_target_during_a_run_restarts_it_and_the_panes_show_the_new_verdicts(
        tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    pids.mkdir()
    config = write_project(
        tmp_path / "project", {"grading": [row("quick", {"n": 1}, PASS), row("slow", {"n": 2, "slow": True}, PASS)]},
        config={"kind": "command", "command": ["{python}", "target.py"], "timeout": 90},
        files={"target.py": TARGET_V1.format(pids=str(pids))})
    app = make_app(config, watch=True, record=False)
    events = spy_events(app)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: any(pids.iterdir()) and shown_rows(app).get("quick", "").startswith("✘"),
                         "quick failed and slow is running")
        rows = shown_rows(app)
        assert rows["slow"].startswith("◐") and "running 1/2 rows" in status_text(app)
        slow_pid = int(next(pids.iterdir()).name)

        def fix_target() -> None:
            staged = tmp_path / "target_v2.py"
            staged.write_text(TARGET_V2)
            os.replace(staged, config.root / "target.py")

        await edit_until(pilot, fix_target, lambda: any(
            isinstance(e, IterationStarted) and e.trigger.kind == "change" for e in events), "the edit restarted it")
        await wait_until(pilot, lambda: not app.state.running and all(
            label.startswith("✔") for label in shown_rows(app).values()), "both rows pass")
        await settled(app, pilot)
        assert "2/2 rows pass" in status_text(app)
        assert not process_alive(slow_pid)  # the cancelled run's target was killed
        changes = [e for e in events if isinstance(e, IterationStarted) and e.trigger.kind == "change"]
        assert "target.py" in changes[-1].trigger.files
