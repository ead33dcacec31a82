"""Every key of the workbench TUI, driven with Pilot against a fake target (see helpers/tui.py)."""

from __future__ import annotations

import contextlib
import json
import shlex
import sys
from pathlib import Path

import pytest
from helpers.tui import (
    FAIL,
    PASS,
    SIZE,
    FakeTarget,
    app_for,
    press_and_wait,
    selected_id,
    settle,
    shown_rows,
    static_text,
    status_text,
    to_first_row,
    two_evaluator_project,
    wait_idle,
    write_project,
)
from textual.app import App
from textual.widgets import Input, TabbedContent

from workbench.tui.help_screen import HelpScreen

ALL = ["alpha", "bravo", "charlie", "delta", "echo"]


async def test_j_k_and_arrows_move_between_rows_and_the_detail_follows(tmp_path: Path) -> None:
    app = app_for(write_project(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(app, pilot)
        await settle(pilot)
        await to_first_row(app, pilot)  # the app opens on the first failing row
        assert selected_id(app) == "alpha"
        assert "alpha" in static_text(app, "#detail-title")
        seen = []
        for key in ("j", "j", "down", "k", "up"):
            await pilot.press(key)
            seen.append(selected_id(app))
        assert seen == ["bravo", "charlie", "delta", "charlie", "bravo"]
        assert "bravo" in static_text(app, "#detail-title")
        assert app.main.detail.row is not None and app.main.detail.row[1].id == "bravo"


async def test_enter_focuses_the_detail_and_escape_returns_to_the_rows(tmp_path: Path) -> None:
    app = app_for(write_project(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(app, pilot)
        await settle(pilot)
        await to_first_row(app, pilot)  # the app opens on the first failing row
        assert app.focused is app.main.sets_tree
        await pilot.press("j", "enter")
        assert app.focused is app.main.detail
        assert app.main.detail.row is not None and app.main.detail.row[1].id == "bravo"
        await pilot.press("escape")
        assert app.focused is app.main.sets_tree
        assert selected_id(app) == "bravo"


async def test_r_reruns_only_the_selected_row(tmp_path: Path) -> None:
    target = FakeTarget()
    app = app_for(write_project(tmp_path), target)
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(app, pilot)
        await settle(pilot)
        await to_first_row(app, pilot)  # the app opens on the first failing row
        assert target.calls == ALL
        target.outputs.update(bravo=PASS, delta=PASS)  # the "fix" reaches both rows' outputs...
        await pilot.press("j")
        await press_and_wait(app, pilot, "r")
        assert target.calls[len(ALL):] == ["bravo"]  # ...but only the selected row ran
        rows = shown_rows(app)
        assert rows["bravo"].startswith("✔") and rows["delta"].startswith("✘")
        assert "re-run: 1/1 rows pass" in status_text(app)  # what the re-run found...
        assert "4/5 rows pass · 4/5 results" in status_text(app)  # ...and the totals stay: delta still fails


async def test_r_on_a_set_reruns_that_set_only(tmp_path: Path) -> None:
    target = FakeTarget()
    config = write_project(tmp_path, {"first": [{"id": "a", "name": "a", "inputs": {"out": PASS},
                                                 "evaluationCriterias": {"exact-match-evaluator": {
                                                     "expectedOutput": PASS}}}],
                                      "second": [{"id": "b", "name": "b", "inputs": {"out": PASS},
                                                  "evaluationCriterias": {}}]})
    app = app_for(config, target)
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(app, pilot)
        await settle(pilot)
        await to_first_row(app, pilot)  # the app opens on the first failing row
        await pilot.press("k")  # from the first row up to its set
        assert app.main.sets_tree.selected_row is None and app.main.sets_tree.selected_set == ("default", "first.json")
        await press_and_wait(app, pilot, "r")
        assert sorted(target.calls) == ["a", "a", "b"]


async def test_capital_r_reruns_every_row(tmp_path: Path) -> None:
    target = FakeTarget()
    app = app_for(write_project(tmp_path), target)
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(app, pilot)
        target.outputs.update(bravo=PASS, delta=PASS)
        await press_and_wait(app, pilot, "R")
        assert sorted(target.calls[len(ALL):]) == ALL
        assert all(label.startswith("✔") for label in shown_rows(app).values())
        assert "5/5 rows pass" in status_text(app)


async def test_f_shows_failures_only_until_every_shown_row_passes(tmp_path: Path) -> None:
    target = FakeTarget()
    app = app_for(write_project(tmp_path), target)
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(app, pilot)
        await pilot.press("f")
        assert list(shown_rows(app)) == ["bravo", "delta"]
        assert "[failures only]" in status_text(app)
        target.outputs["bravo"] = PASS  # one fixed, one still failing: the filter stays on
        await press_and_wait(app, pilot, "R")
        assert app.main.sets_tree.failures_only
        assert list(shown_rows(app)) == ["delta"]
        target.outputs["delta"] = PASS  # every shown row passes: it turns itself off
        await press_and_wait(app, pilot, "R")
        assert not app.main.sets_tree.failures_only
        assert list(shown_rows(app)) == ALL
        assert "[failures only]" not in status_text(app)


async def test_f_toggles_back_and_refuses_when_nothing_fails(tmp_path: Path) -> None:
    target = FakeTarget(outputs={"bravo": PASS, "delta": PASS})
    app = app_for(write_project(tmp_path), target)
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(app, pilot)
        await pilot.press("f")
        assert not app.main.sets_tree.failures_only and list(shown_rows(app)) == ALL
        target.outputs.clear()
        await press_and_wait(app, pilot, "R")
        await pilot.press("f")
        assert list(shown_rows(app)) == ["bravo", "delta"]
        await pilot.press("f")
        assert list(shown_rows(app)) == ALL


async def test_n_and_capital_n_jump_between_failures_and_wrap(tmp_path: Path) -> None:
    app = app_for(write_project(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(app, pilot)
        await settle(pilot)
        await to_first_row(app, pilot)  # the app opens on the first failing row
        seen = []
        for key in ("n", "n", "n", "N", "N"):
            await pilot.press(key)
            seen.append(selected_id(app))
        assert seen == ["bravo", "delta", "bravo", "delta", "bravo"]
        assert "✘ FAIL" in static_text(app, "#detail-meta")


async def test_slash_filters_rows_by_name_and_escape_clears(tmp_path: Path) -> None:
    app = app_for(write_project(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(app, pilot)
        box = app.query_one("#filter", Input)
        assert not box.display
        await pilot.press("slash")
        assert box.display and box.has_focus
        await pilot.press("H", "a")  # case-insensitive
        assert list(shown_rows(app)) == ["alpha", "charlie"]
        assert "[filter: Ha]" in status_text(app)
        await pilot.press("escape")
        assert list(shown_rows(app)) == ALL
        assert not box.display and app.focused is app.main.sets_tree
        assert "[filter:" not in status_text(app)


async def test_slash_then_enter_keeps_the_filter_and_returns_to_the_rows(tmp_path: Path) -> None:
    app = app_for(write_project(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(app, pilot)
        await pilot.press("slash", "e", "l", "t", "enter")
        await settle(pilot)
        assert list(shown_rows(app)) == ["delta"]
        assert app.focused is app.main.sets_tree and selected_id(app) == "delta"
        await pilot.press("slash", "escape")
        assert list(shown_rows(app)) == ALL


async def test_e_opens_the_editor_at_the_row(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = write_project(tmp_path / "project")
    record = tmp_path / "argv.json"
    script = tmp_path / "editor.py"
    script.write_text("import json, sys\nopen(sys.argv[1], 'w').write(json.dumps(sys.argv[2:]))\n")
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", shlex.join([sys.executable, str(script), str(record)]))
    monkeypatch.setattr(App, "suspend", lambda self: contextlib.nullcontext())
    set_file = config.root / "evals" / "default" / "eval-sets" / "grading.json"
    line = set_file.read_text().splitlines().index('      "id": "delta",') + 1
    app = app_for(config)
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(app, pilot)
        await to_first_row(app, pilot)  # the app opens on the first failing row
        await pilot.press("n", "n")
        assert selected_id(app) == "delta"
        await pilot.press("e")
        assert json.loads(record.read_text()) == [f"+{line}", str(set_file)]
        assert line > 1


async def test_e_without_a_row_opens_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    record = tmp_path / "ran"
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", shlex.join([sys.executable, "-c", f"open({str(record)!r}, 'w')"]))
    monkeypatch.setattr(App, "suspend", lambda self: contextlib.nullcontext())
    app = app_for(write_project(tmp_path / "project"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(app, pilot)
        await settle(pilot)
        await to_first_row(app, pilot)  # the app opens on the first failing row
        await pilot.press("k", "e")
        assert app.main.sets_tree.selected_row is None
        assert not record.exists()


async def test_y_copies_the_actual_output(tmp_path: Path) -> None:
    app = app_for(write_project(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(app, pilot)
        await to_first_row(app, pilot)  # the app opens on the first failing row
        await pilot.press("n", "y")
        assert selected_id(app) == "bravo"
        assert json.loads(app.clipboard) == FAIL
        await pilot.press("k", "y")
        assert json.loads(app.clipboard) == PASS  # alpha's


async def test_question_mark_and_f1_list_every_binding(tmp_path: Path) -> None:
    app = app_for(write_project(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(app, pilot)
        for key in ("question_mark", "f1"):
            await pilot.press(key)
            assert isinstance(app.screen, HelpScreen)
            text = app.screen.plain_text
            first_of_key = {binding.key: binding for binding in reversed(app.main.BINDINGS)}  # type: ignore[union-attr]
            for binding in first_of_key.values():  # a key bound twice (w: pause / resume) is listed once
                assert (binding.tooltip or binding.description) in text, binding
            for shown in ("/", "?", "f1", "R", "N", "j k", "Enter", "Esc"):
                assert shown in text
            assert "slash" not in text and "question_mark" not in text
            await pilot.press("escape")
            assert not isinstance(app.screen, HelpScreen)


async def test_q_in_the_help_closes_the_help_not_the_app(tmp_path: Path) -> None:
    app = app_for(write_project(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(app, pilot)
        await pilot.press("question_mark", "q")
        assert not isinstance(app.screen, HelpScreen)
        assert app.is_running


async def test_1_2_3_switch_the_bottom_tabs(tmp_path: Path) -> None:
    app = app_for(write_project(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(app, pilot)
        tabs = app.query_one("#bottom", TabbedContent)
        assert tabs.active == "log"
        seen = []
        for key in ("2", "3", "1"):
            await pilot.press(key)
            seen.append(tabs.active)
        assert seen == ["history", "evaluators", "log"]


async def test_left_and_right_switch_the_evaluator_in_the_detail(tmp_path: Path) -> None:
    app = app_for(two_evaluator_project(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(app, pilot)
        await settle(pilot)
        assert shown_rows(app)["merit"].startswith("✘")  # one evaluator passes, the other fails
        await pilot.press("enter")
        assert app.focused is app.main.detail
        # the row opens on its failing evaluator (issue 22 point 2)
        meta = static_text(app, "#detail-meta")
        assert app.main.detail.current_ref == "detail" and "✘ FAIL" in meta and "detail" in meta
        assert "band" in static_text(app, "#detail-explanation")
        await pilot.press("right")  # wraps around
        assert app.main.detail.current_ref == "grade" and "✔ PASS" in static_text(app, "#detail-meta")
        await pilot.press("left")
        assert app.main.detail.current_ref == "detail"
