"""The TUI shows a repeated row's k/N with a distinct mark and colour (`3/5 ≈ flaky`, magenta), a row flaky
over time the same way, and lets the detail step through the samples (`,` `.`): each one's output,
verdict, duration and log."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from helpers.tui import PASS, SIZE, out_row, settle, shown_rows, static_text, wait_idle, write_project

from workbench.config import Config
from workbench.runners.base import LogSink, Runner, RunOutcome, RunRequest
from workbench.tui.app import make_app

PASSING_SAMPLES = (0, 2, 3)  # of 5: 3/5


class SampledRunner(Runner):
    """Passes the samples in PASSING_SAMPLES, fails the others, and logs which sample it is."""

    async def run(self, request: RunRequest, on_log: LogSink | None = None) -> RunOutcome:
        await asyncio.sleep(0)
        grade = "PASS" if request.sample in PASSING_SAMPLES else "FAIL"
        return RunOutcome(output={"grade": grade}, duration_ms=10.0 + (request.sample or 0),
                          log=f"this is sample {request.sample}")


def repeated_config(tmp_path: Path) -> Config:
    return write_project(tmp_path / "proj", {"grading": [out_row("coin", PASS, PASS)]},
                         config={"runner": {"kind": "command", "command": ["{python}", "-c", "pass"], "timeout": 20,
                                            "repeat": 5}, "gate": {"row_pass_rate": 0.6}})


def test_a_repeated_row_shows_k_of_n_flaky_and_its_samples_one_by_one(tmp_path: Path) -> None:
    config = repeated_config(tmp_path)

    async def drive() -> None:
        app = make_app(config, watch=False, record=False, runner_factory=lambda c: SampledRunner(c))
        async with app.run_test(size=SIZE) as pilot:
            await wait_idle(app, pilot)
            label = shown_rows(app)["coin"]
            assert label.startswith("✔") and "3/5 ≈ flaky" in label, label
            row_node = next(n for s in app.main.sets_tree.root.children for n in s.children
                            if n.data is not None and n.data.kind == "row")
            assert any("magenta" in str(span.style) for span in row_node.label.spans)  # the distinct colour
            app.main.sets_tree.select_row(row_node.data.key)
            await settle(pilot)
            title = static_text(app, "#detail-title")
            assert "samples 3/5 ≈ flaky" in title and "✔ ✘ ✔ ✔ ✘" in title, title
            app.main.detail.focus()
            await pilot.press("full_stop", "full_stop")  # the second sample
            await settle(pilot)
            title = static_text(app, "#detail-title")
            assert "sample 2/5 · 11ms" in title and "this is sample 1" in title, title
            assert app.main.detail.context().result is not None
            shown: Any = app.main.detail.context().result
            assert shown.verdict.value == "FAIL" and shown.actual == {"grade": "FAIL"}
            await pilot.press("comma", "comma")  # back to the row's result
            await settle(pilot)
            assert "sample 2/5" not in static_text(app, "#detail-title")
            assert app.main.detail.context().result.verdict.value == "PASS"  # 3/5 at row_pass_rate 0.6

    asyncio.run(drive())


def test_a_row_flaky_over_time_is_marked_in_the_tree_and_the_detail(tmp_path: Path) -> None:
    from helpers.tui import FakeTarget, press_and_wait

    config = write_project(tmp_path / "proj", {"grading": [out_row("coin", PASS, PASS)]})
    target = FakeTarget(outputs={"coin": {"grade": "FAIL"}})

    async def drive() -> None:
        app = make_app(config, watch=False, record=True, runner_factory=target.factory)
        async with app.run_test(size=SIZE) as pilot:
            await wait_idle(app, pilot)
            assert "flaky" not in shown_rows(app)["coin"]
            target.outputs["coin"] = {"grade": "PASS"}  # nothing changed, yet the target answers otherwise
            await press_and_wait(app, pilot, "R")
            await settle(pilot)
            label = shown_rows(app)["coin"]
            assert label.startswith("✔") and "≈ flaky" in label, label
            app.main.sets_tree.select_row(("default", "grading.json", "coin"))
            await settle(pilot)
            assert "flaky: PASS now, not in iteration 1" in static_text(app, "#detail-title")

    asyncio.run(drive())
