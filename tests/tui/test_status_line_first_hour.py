"""Issue 22 points 4, 8 and 11 on the status line: a --tag session counts only the rows it runs (it said
`1/3 rows pass` after the one selected row passed); a broken set file is marked (it said `3/3 rows pass`
with no marker, the broken file's rows simply gone); the re-scored count clears once the next iteration
starts; and the project's path stays visible (the sets pane's bottom border: the demo's temporary copy)."""

from __future__ import annotations

import json
import runpy
import shutil
from pathlib import Path

from helpers.conversations import ScriptedTarget
from helpers.paths import EXAMPLES
from helpers.tui import (
    FakeTarget,
    app_for,
    example_project,
    pinned_clock,
    settled,
    status_text,
    wait_idle,
    wait_until,
    write_project,
)
from rich.text import Text

from workbench.config import load_config
from workbench.events import Trigger
from workbench.scoring.judge_client import clear_cache
from workbench.tui.app import make_app
from workbench.tui.status_bar import StatusBar

SMALL = (80, 24)
SET_FILE = "evals/default/eval-sets/grading.json"


async def test_a_tag_session_counts_only_the_rows_it_runs(tmp_path: Path) -> None:
    root = tmp_path / "support-bot"
    shutil.copytree(EXAMPLES / "support-bot", root, ignore=shutil.ignore_patterns(".workbench", "__pycache__"))
    clear_cache()
    target = ScriptedTarget(runpy.run_path(str(root / "bot.py"))["reply"])
    full = pinned_clock(make_app(load_config(root), watch=False, record=True, runner_factory=target.factory))
    async with full.run_test(size=(150, 45)) as pilot:  # a full iteration first: history remembers 3 rows
        await wait_idle(full, pilot)
        assert "/3 rows pass" in status_text(full)
    config = load_config(root)
    config.overrides.tags = ("smoke",)  # then `workbench --tag smoke`: one of the three rows
    app = pinned_clock(make_app(config, watch=False, record=True, runner_factory=target.factory))
    async with app.run_test(size=(150, 45)) as pilot:
        await wait_idle(app, pilot)
        line = status_text(app)
        assert "1/1 rows pass ·" in line, line  # not 1/3, and no (-1) against the full iteration
        assert "/3 rows" not in line and "1/1 results" in line


async def test_at_100_columns_the_header_keeps_workbench_and_the_iteration(tmp_path: Path) -> None:
    """H12 finding 6: `workbench --tag smoke` with a broken file at 100 columns left out `workbench ·` and
    `· iteration N` while `● watching` and `[filter: tag:smoke]` kept their long words; now the filter
    shortens first. Issue 38 point 9: `watching` stays at any width and the marker says "file problem" (the
    sets pane's word, two letters longer), so here the results count is what gives way (status_bar's rule)."""
    root = tmp_path / "support-bot"
    shutil.copytree(EXAMPLES / "support-bot", root, ignore=shutil.ignore_patterns(".workbench", "__pycache__"))
    (root / "evals" / "tickets.eval.json").write_text('{"cases": [\n')
    clear_cache()
    target = ScriptedTarget(runpy.run_path(str(root / "bot.py"))["reply"])
    config = load_config(root)
    config.overrides.tags = ("smoke",)
    app = pinned_clock(make_app(config, watch=True, record=True, runner_factory=target.factory))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_idle(app, pilot)
        await settled(app, pilot)
        line = status_text(app)
        assert line.startswith(" workbench · support-bot"), line
        assert "· iteration 1" in line and "1/1 rows pass" in line, line
        assert "⚠ 1 file problem" in line and "[tag:smoke]" in line and "● watching" in line, line
        assert "results" not in line, line  # the one part left out
        await pilot.resize_terminal(160, 30)
        await settled(app, pilot)
        await wait_until(pilot, lambda: "[filter: tag:smoke]" in status_text(app), "the long words came back")
        assert "1/1 rows pass · 1/1 results" in status_text(app)


async def test_a_broken_set_file_is_marked_on_the_status_line(tmp_path: Path) -> None:
    config, target = example_project(tmp_path)
    app = app_for(config, target)
    async with app.run_test(size=SMALL) as pilot:
        await wait_idle(app, pilot)
        assert "file problem" not in status_text(app)
        (config.root / "evals" / "default" / "eval-sets" / "broken.json").write_text('{"evaluations": [\n')
        done = app.main.iterations_done
        app.session.request(Trigger("manual"))
        await wait_idle(app, pilot, done + 1)
        line = status_text(app)  # at 80 columns: the marker is never the part left out
        assert "⚠ 1 file problem" in line, line
        shown = app.query_one("#status", StatusBar).text
        at = shown.plain.index("rows pass")
        styles = {str(span.style) for span in shown.spans if span.start <= at < span.end}
        assert styles == {"red"}, "not green while a file could not be read"


async def test_the_rescored_count_clears_when_the_next_iteration_starts(tmp_path: Path) -> None:
    target = FakeTarget()
    config = write_project(tmp_path)
    app = app_for(config, target)
    async with app.run_test(size=(150, 45)) as pilot:  # 80 columns leave the re-scored count out
        await wait_idle(app, pilot, 1)
        path = config.root / SET_FILE
        doc = json.loads(path.read_text())
        doc["evaluations"][1]["evaluationCriterias"]["exact-match-evaluator"]["expectedOutput"] = (
            doc["evaluations"][1]["inputs"]["out"])
        path.write_text(json.dumps(doc))
        app.session.request(Trigger("change", (SET_FILE,)))
        await wait_idle(app, pilot, 2)
        assert "5 re-scored, 0 run" in status_text(app)
        gate = target.block()
        await pilot.press("R")  # runs every row: the last iteration's re-scored count is history now
        await wait_until(pilot, lambda: target.waiting, "the next iteration is running")
        await settled_frame(app, pilot)
        assert "re-scored" not in status_text(app) and "running" in status_text(app)
        target.release()
        gate.set()
        await wait_idle(app, pilot, 3)
        assert "re-scored" not in status_text(app)


async def settled_frame(app: object, pilot: object) -> None:
    """A running iteration never settles: let the status line repaint for what has begun."""
    await wait_until(pilot, lambda: app.main.state.running, "the iteration began")  # type: ignore[arg-type, attr-defined]
    await pilot.pause()  # type: ignore[attr-defined]


async def test_the_demo_keeps_its_path_in_view(tmp_path: Path) -> None:
    config, target = example_project(tmp_path)
    app = app_for(config, target, show_path=True)  # what `workbench demo` asks for
    async with app.run_test(size=SMALL) as pilot:
        await wait_idle(app, pilot)
        await settled(app, pilot)
        text = Text.from_markup(app.main.sets_tree.border_subtitle or "").plain  # Textual keeps it as markup
        assert text.endswith("/grading") and len(text) <= app.main.sets_tree.size.width - 4
        assert text.startswith("…") or text == str(config.root)
