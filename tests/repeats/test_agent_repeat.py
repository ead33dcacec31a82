"""The agent's `run` tool takes `repeat`: that iteration runs each row N times (for it only — the next `run`
goes back to the project's setting), and history keeps its k/N."""

from __future__ import annotations

import asyncio
from pathlib import Path

from helpers.project import make_project, row
from helpers.repeats import SEEDED, seeded_row_with

from workbench.agent.loop import AgentLoop
from workbench.agent.tools import call_tool, schema_of
from workbench.config import load_config
from workbench.history import HistoryStore


def test_run_tool_repeat_runs_every_row_n_times_for_that_iteration(tmp_path: Path) -> None:
    flaky_id = seeded_row_with(3)
    root = make_project(tmp_path / "proj", sets={"draws": [row(flaky_id, {"p": 0.6}, {"ok": True}, id=flaky_id)]},
                        config={"runner": {"kind": "command", "command": ["{python}", "seeded.py"], "timeout": 20}},
                        files={"seeded.py": SEEDED})
    schema = schema_of("run")
    assert schema is not None and schema["properties"]["repeat"]["minimum"] == 1
    config = load_config(root)

    async def drive() -> None:
        loop = AgentLoop(config, join_live=False)
        try:
            answer, is_error = await call_tool(loop, "run", {"repeat": 5, "reuse": False, "wait_s": 100})
            assert not is_error, answer.text
            assert "3/5" in answer.text, answer.text
            answer, is_error = await call_tool(loop, "run", {"reuse": False, "wait_s": 100})
            assert not is_error, answer.text
        finally:
            await loop.aclose()

    asyncio.run(drive())
    with HistoryStore.open(config) as store:
        first, second = (store.results(n)[0] for n in (1, 2))
    assert first.samples_text == "3/5" and first.sample_flaky
    assert second.samples == []  # the next run: the project's own repeat (1)
