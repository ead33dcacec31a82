"""TUI actions over the shared use cases: `+` runs the target with the settings as the files say now
(workbench.toml edited after launch counts), and a set's classification metric shows on its line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from helpers.project import evaluator, row, toml_text
from helpers.tui import SIZE, FakeRunner, FakeTarget, app_for, wait_idle, wait_until, write_project
from textual.widgets import Button, Input

from workbench.config import Config
from workbench.runners.base import Runner
from workbench.tui.app import make_app
from workbench.tui.writeback_screens import AddRowScreen

COMMAND = {"kind": "command", "command": ["{python}", "-c", "pass"], "timeout": 20}


def timeout_reporting(config: Config) -> Runner:
    """A target whose output is the runner timeout it was started with: which settings it ran under."""
    return FakeRunner(config, FakeTarget(compute=lambda _inputs: {"timeout": config.runner.timeout}))


async def test_add_row_runs_the_target_with_settings_edited_after_launch(tmp_path: Path) -> None:
    config = write_project(tmp_path, config=COMMAND)
    set_file = config.root / "evals" / "default" / "eval-sets" / "grading.json"
    app = make_app(config, watch=False, record=False, runner_factory=timeout_reporting)
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(app, pilot)
        (config.root / "workbench.toml").write_text(toml_text({**COMMAND, "timeout": 33}))
        await pilot.press("plus")
        await wait_until(pilot, lambda: isinstance(app.screen, AddRowScreen), "the new-row form opened")
        screen = app.screen
        screen.query_one("#add-name", Input).value = "under new settings"
        screen.query_one("#add-inputs", Input).value = "{}"
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: not screen.query_one("#add-append", Button).disabled, "the run finished")
        assert '"timeout": 33' in screen.query_one("#add-preview").content.plain
        await pilot.click("#add-append")
        await wait_until(pilot, lambda: not isinstance(app.screen, AddRowScreen), "the form closed")
        await wait_idle(app, pilot, 2)
    added = json.loads(set_file.read_text())["evaluations"][-1]
    assert added["name"] == "under new settings"
    assert added["evaluationCriterias"]["exact-match-evaluator"]["expectedOutput"] == {"timeout": 33}


def routing_project(root: Path) -> Config:
    """Four tickets routed by a multiclass evaluator that asks for its macro precision over the set."""
    routing = evaluator("queue", type_id="uipath-multiclass-classification", id="routing-eval")
    routing["evaluatorConfig"].update({"classes": ["billing", "technical"], "metricType": "precision",
                                       "averaging": "macro"})
    rows: list[dict[str, Any]] = [
        row(f"ticket {n}", {"out": {"queue": got}}, criteria={"routing": {"expectedClass": want}})
        for n, (got, want) in enumerate([("billing", "billing"), ("billing", "technical"),
                                         ("technical", "technical"), ("technical", "technical")])
    ]
    doc = {"version": "1.0", "id": "set-routing", "name": "Routing", "evaluatorRefs": ["routing"],
           "evaluations": rows}
    return write_project(root, {"tickets": doc}, evaluators={"routing": routing})


async def test_a_sets_classification_metric_shows_on_its_line(tmp_path: Path) -> None:
    app = app_for(routing_project(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(app, pilot)
        line = app.main.sets_tree.root.children[0].label.plain
        # predicted billing twice, right once (1/2); technical twice, right both times (1): macro (1/2 + 1) / 2
        assert "3/4" in line and "precision (macro) 0.75 over 4 rows" in line
