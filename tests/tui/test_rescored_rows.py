"""The TUI shows when rows were re-scored from their last run instead of running again."""

from __future__ import annotations

import json
from pathlib import Path

from helpers.tui import SIZE, FakeTarget, app_for, shown_rows, status_text, wait_idle, wait_until, write_project

from workbench.events import Trigger

SET_FILE = "evals/default/eval-sets/grading.json"


async def test_an_expectation_edit_shows_rescored_rows_and_runs_none(tmp_path: Path) -> None:
    target = FakeTarget()
    config = write_project(tmp_path)
    app = app_for(config, target)
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(app, pilot, 1)
        assert len(target.calls) == 5 and "↺" not in "".join(shown_rows(app).values())
        path = config.root / SET_FILE
        doc = json.loads(path.read_text())
        doc["evaluations"][1]["evaluationCriterias"]["exact-match-evaluator"]["expectedOutput"] = (
            doc["evaluations"][1]["inputs"]["out"])  # bravo's expectation now matches its output
        path.write_text(json.dumps(doc))
        app.session.request(Trigger("change", (SET_FILE,)))
        await wait_idle(app, pilot, 2)
        assert len(target.calls) == 5  # nothing ran again
        rows = shown_rows(app)
        assert rows["bravo"].startswith("✔") and all("↺" in label for label in rows.values())
        await wait_until(pilot, lambda: "5 re-scored, 0 run" in status_text(app), "the status says so")
