"""The workflow-contract findings in the TUI (issue 12 point 12): a row whose expectation doesn't fit
Workflow.json's output.schema is listed, as a warning naming the row and the casing fix, with the file
problems at the top of the sets pane; the row still runs and gets its own verdict."""

from __future__ import annotations

import json
from pathlib import Path

from helpers.project import row
from helpers.tui import SIZE, app_for, shown_rows, tree_lines, wait_idle, write_project

WORKFLOW = json.dumps({"input": None, "output": {"schema": {"format": "json", "document": {
    "type": "object", "properties": {"sum": {"type": "number"}}, "required": ["sum"]}}}})


async def test_a_contract_finding_is_a_warning_at_the_top_of_the_tree(tmp_path: Path) -> None:
    config = write_project(tmp_path, {"math": [row("casing", {"out": {"sum": 5}}, {"Sum": 5}),
                                               row("fits", {"out": {"sum": 2}}, {"sum": 2})]},
                           files={"Workflow.json": WORKFLOW})
    app = app_for(config)
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(app, pilot)
        lines = tree_lines(app)
        assert lines[0].startswith("⚠ 1 file problem (warnings)"), lines
        assert lines[1].startswith("evals/default/eval-sets/math.json: evaluations[0] ('casing'): expectedOutput "
                                   "has \"Sum\", which output.schema does not declare — did you mean \"sum\"?")
        rows = shown_rows(app)  # the warning stops nothing: both rows ran and got their own verdicts
        assert rows["casing"].startswith("✘ casing") and rows["fits"].startswith("✔ fits"), rows
