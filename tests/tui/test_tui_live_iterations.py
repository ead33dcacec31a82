"""Live iterations in the TUI: panes update as rows finish, keys answer mid-run, big sets load, quitting
stops targets, and hostile names and outputs are shown literally."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers import tui
from helpers.checks import process_alive
from helpers.project import COMMAND_CONFIG, row
from helpers.tui import (
    PASS,
    SIZE,
    FakeTarget,
    app_for,
    press_and_wait,
    screen_text,
    selected_id,
    settle,
    shown_rows,
    static_text,
    status_text,
    tree_lines,
    wait_idle,
    wait_until,
    write_project,
)
from textual.widgets import TabbedContent

from workbench.tui.app import make_app
from workbench.tui.log_pane import RunLog


def many_rows(count: int) -> list[dict[str, Any]]:
    return [{"id": f"r{i:05d}", "name": f"row {i:05d}", "inputs": {"out": PASS},
             "evaluationCriterias": {"exact-match-evaluator": {"expectedOutput": PASS}}} for i in range(count)]


async def test_a_live_iteration_updates_the_panes_as_rows_finish(tmp_path: Path) -> None:
    target = FakeTarget(logs={"alpha": ["alpha says hello"], "charlie": ["charlie is thinking"]})
    gate = target.block("charlie", "delta", "echo")
    app = app_for(write_project(tmp_path), target)
    async with app.run_test(size=SIZE) as pilot:
        # alpha and bravo finish; charlie, delta and echo are still running
        await wait_until(pilot, lambda: target.waiting == {"charlie", "delta", "echo"}, "three rows are running")
        await wait_until(pilot, lambda: "running 2/5 rows" in status_text(app), "the status shows progress")
        await wait_until(pilot, lambda: shown_rows(app)["bravo"].startswith("✘"), "bravo's verdict shows")
        rows = shown_rows(app)
        assert rows["alpha"].startswith("✔") and rows["bravo"].startswith("✘")
        assert all(rows[name].startswith("◐") for name in ("charlie", "delta", "echo"))
        assert "1/5" in app.main.sets_tree.root.children[0].label.plain  # the set's pass count so far
        assert selected_id(app) == "alpha"
        await wait_until(pilot, lambda: "✔ PASS" in static_text(app, "#detail-meta"), "alpha's detail shows")
        log = app.query_one("#run-log", RunLog)
        assert "alpha says hello" in log.lines
        await pilot.press("j", "j")  # a running row: its log streams before it finishes
        assert selected_id(app) == "charlie"
        assert "running" in static_text(app, "#detail-title")
        assert "charlie is thinking" in log.lines
        gate.set()
        await wait_idle(app, pilot)
        rows = shown_rows(app)
        assert [label[0] for label in rows.values()] == ["✔", "✘", "✔", "✘", "✔"]
        status = status_text(app)
        assert "running" not in status and "3/5 rows pass" in status
        assert "✔ PASS" in static_text(app, "#detail-meta")  # charlie's detail caught up
        assert "charlie is thinking" in log.lines  # and its log is kept


async def test_a_key_is_answered_while_a_thousand_rows_run(tmp_path: Path) -> None:
    target = FakeTarget()
    gate = target.block("r00999")  # the last row holds the iteration open
    app = app_for(write_project(tmp_path, {"big": many_rows(1000)}), target)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.state.running and len(shown_rows(app)) == 1000, "the iteration started")
        await settle(pilot)
        await pilot.press("j", "2")
        assert app.state.running and app.state.done_rows < 1000  # answered mid-iteration
        assert selected_id(app) == "r00001"
        assert app.query_one("#bottom", TabbedContent).active == "history"
        gate.set()
        await wait_idle(app, pilot)
        assert "1000/1000 rows pass" in status_text(app)
        assert sum(label.startswith("✔") for label in shown_rows(app).values()) == 1000


@pytest.mark.slow
async def test_ten_thousand_rows_load_and_show(tmp_path: Path) -> None:
    app = app_for(write_project(tmp_path, {"huge": many_rows(10_000)}))
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(app, pilot, timeout=180)  # a hang guard only: a busy shared machine is slow here
        rows = shown_rows(app)
        assert len(rows) == 10_000
        assert sum(label.startswith("✔") for label in rows.values()) == 10_000
        assert "10000/10000" in app.main.sets_tree.root.children[0].label.plain
        assert "10000/10000 rows pass" in status_text(app)
        await pilot.press("end")
        assert selected_id(app) == "r09999"
        assert "row 09999" in static_text(app, "#detail-title")


@pytest.mark.parametrize("key", ["q", "ctrl+c"])
async def test_q_or_ctrl_c_quits_and_leaves_no_target_running(tmp_path: Path, key: str) -> None:
    """Ctrl-C quits as `q` does (Textual's own ctrl+c only says how to quit: a user's reflex must work)."""
    pidfile = tmp_path / "pids"
    config = write_project(tmp_path / "project", {"hang": [row("hangs", {"hang": str(pidfile)}, PASS)]},
                           config=COMMAND_CONFIG)
    app = make_app(config, watch=False, record=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: pidfile.exists() and len(pidfile.read_text().split()) == 2,
                         "the target and its child started")
        pids = [int(pid) for pid in pidfile.read_text().split()]
        assert all(process_alive(pid) for pid in pids)
        await pilot.press(key)
        assert app.closing.is_set(), f"{key} did not quit"
    assert app.return_code == 0
    assert not [pid for pid in pids if process_alive(pid)]


HOSTILE = "[bold red]x[/] \x1b[31mred\x1b[0m"


async def test_markup_and_escape_codes_in_names_outputs_and_logs_are_shown_literally(tmp_path: Path) -> None:
    rows = [{"id": "hostile", "name": HOSTILE, "inputs": {"out": {"grade": HOSTILE}},
             "evaluationCriterias": {"exact-match-evaluator": {"expectedOutput": {"grade": "[i]PASS[/i]"}}}}]
    target = FakeTarget(logs={"hostile": [f"log {HOSTILE}"]})
    app = app_for(write_project(tmp_path, {"hostile": rows}), target)
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(app, pilot)
        await settle(pilot)
        label = shown_rows(app)["hostile"]
        assert "[bold red]x[/] \\x1b[31mred\\x1b[0m" in label and "\x1b" not in label
        assert "[bold red]x[/]" in static_text(app, "#detail-title")
        actual = static_text(app, "#detail-actual")
        assert "[bold red]x[/]" in actual and "\x1b" not in actual
        assert "[i]PASS[/i]" in static_text(app, "#detail-expected")
        assert "log [bold red]x[/] \\x1b[31mred\\x1b[0m" in app.query_one("#run-log", RunLog).lines
        painted = screen_text(app)
        assert "[bold red]x[/]" in painted and "[i]PASS[/i]" in painted
        assert "\x1b" not in painted
        await pilot.press("y")
        assert json.loads(app.clipboard) == {"grade": HOSTILE}  # the copy is the real value


async def test_a_broken_file_is_listed_as_a_problem_until_it_is_fixed(tmp_path: Path) -> None:
    broken = '{"version": "1.0", "evaluatorRefs": ["exact-match-evaluator"], "evaluations": [,]}'
    config = write_project(tmp_path, {"grading": many_rows(2), "extra": broken})
    app = app_for(config)
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(app, pilot)
        lines = tree_lines(app)
        assert lines[0].startswith("⚠ 1 file problem")
        assert lines[1].startswith("evals/default/eval-sets/extra.json: ") and "JSON" in lines[1]
        assert list(shown_rows(app)) == ["r00000", "r00001"]  # the good set still runs
        await pilot.press("home", "down")
        assert "extra.json" in static_text(app, "#detail-title")
        (config.root / "evals" / "default" / "eval-sets" / "extra.json").write_text(
            json.dumps({"version": "1.0", "evaluatorRefs": ["exact-match-evaluator"],
                        "evaluations": [row("fixed", {"out": PASS}, PASS)]}))
        await press_and_wait(app, pilot, "R")
        assert not any("file problem" in line for line in tree_lines(app))
        assert "fixed" in shown_rows(app)


async def test_an_error_row_shows_its_error_and_counts_as_a_failure(tmp_path: Path) -> None:
    target = FakeTarget(errors={"charlie": "the target exited with 3\nstderr (last lines):\nboom"})
    app = app_for(write_project(tmp_path), target)
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(app, pilot)
        await tui.to_first_row(app, pilot)  # the app opens on the first failing row
        assert shown_rows(app)["charlie"].startswith("!")
        await pilot.press("n", "n")  # bravo, then charlie: an ERROR is a failure to jump to
        assert selected_id(app) == "charlie"
        assert "ERROR" in static_text(app, "#detail-meta")
        explanation = static_text(app, "#detail-explanation")
        assert explanation.startswith("Error") and "exited with 3" in explanation and "boom" in explanation
