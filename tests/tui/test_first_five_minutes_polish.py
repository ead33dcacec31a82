"""Issue 38 point 9, the TUI's small inconsistencies, each at 80x24 and 160x48: the status line and the sets
pane say "file problem" alike; `● watching` stays at 80 columns (the line gives way by its rule instead);
the footer shows whole bindings only (no `A Accept al▏`), the ones left out still in help; the log tab is as
tall as its lines, so a one-line log leaves the room to the sets and the detail; paths are broken after a `/`
or cut at their start, never inside a name."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.tui import (
    Notices,
    app_for,
    example_project,
    screen_text,
    settle,
    settled,
    static_text,
    status_text,
    wait_idle,
    wait_until,
)

from workbench.events import Trigger
from workbench.tui.footer import FittedFooter
from workbench.tui.help_screen import HelpScreen
from workbench.tui.panes import LOG_MIN
from workbench.tui.path_text import fold_paths, path_lines, path_tail

SIZES = [(80, 24), (160, 48)]
IDS = ["80x24", "160x48"]
LONG = "/var/folders/q7/k2x9w0b51dl4_r7n3h0000gn/T/workbench-demo-du1f31wz/grading/grade.py"


def footer_line(app: object) -> str:
    return screen_text(app).splitlines()[-1]  # type: ignore[arg-type]


@pytest.mark.parametrize("size", SIZES, ids=IDS)
async def test_a_broken_file_is_one_file_problem_on_the_status_line_and_in_the_sets_pane(
        tmp_path: Path, size: tuple[int, int]) -> None:
    config, target = example_project(tmp_path)
    (config.root / "evals" / "default" / "eval-sets" / "broken.json").write_text('{"evaluations": [\n')
    app = app_for(config, target, watch=True)
    async with app.run_test(size=size) as pilot:
        await wait_idle(app, pilot)
        await settled(app, pilot)
        shown = screen_text(app)
        assert "⚠ 1 file problem" in status_text(app), status_text(app)
        assert "▼ ⚠ 1 file problem" in shown, shown  # the sets pane's first line: the same words
        assert "broken.json:" in shown, "the file's name whole on its line, the message after it"
        assert "file error" not in shown
        assert "● watching" in status_text(app), "the loop is live: the word says so at any width"


@pytest.mark.parametrize("size", SIZES, ids=IDS)
async def test_watching_stays_on_the_status_line_while_rows_run(tmp_path: Path, size: tuple[int, int]) -> None:
    """At 80 columns `● watching` was shortened to `●` once `◐ running` joined the line: now the parts the
    rule ranks lower give way (`workbench ·` first of those shown here) and the counts stay."""
    config, target = example_project(tmp_path)
    app = app_for(config, target, watch=True)
    async with app.run_test(size=size) as pilot:
        await wait_idle(app, pilot)
        gate = target.block()
        app.session.request(Trigger("manual"))
        await wait_until(pilot, lambda: bool(target.waiting), "a row is running")
        await wait_until(pilot, lambda: "◐ running" in status_text(app), "the line says rows run")
        line = status_text(app)
        assert "● watching" in line and "4/5 rows pass" in line, line
        if size == (160, 48):
            assert line.startswith(" workbench · grading"), line
        gate.set()
        target.release()
        await wait_idle(app, pilot, 2)


@pytest.mark.parametrize("size", SIZES, ids=IDS)
async def test_the_footer_shows_whole_bindings_only(tmp_path: Path, size: tuple[int, int]) -> None:
    config, target = example_project(tmp_path)
    app = app_for(config, target)
    async with app.run_test(size=size) as pilot:
        await wait_idle(app, pilot)
        await settle(pilot)
        footer = app.main.query_one(FittedFooter)
        line = footer_line(app)
        labels = [f"{key.key_display} {key.description}" for key in footer.shown]
        assert labels[0] == "? Help" and labels[1] == "q Quit" and labels[-1] == "^p palette", labels
        for label in labels:
            assert label in line, (label, line)  # every key it shows, whole
        assert len(line.rstrip()) <= size[0]
        shown = {key.description for key in footer.shown}
        if size == (80, 24):
            assert "Accept all" not in line and "Accept al" not in line, line  # left out, not cut
            assert {"Re-run", "Next fail", "Accept", "Failures"} <= shown, shown
        else:
            assert {"Accept all", "New row", "Filter", "Pause", "Edit"} <= shown, shown
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        keys = dict(app.screen.rows)
        assert keys["A"].startswith("walk every failing row") and keys["e"].startswith("open the row's eval-set")


async def test_the_footer_lays_itself_out_again_when_the_terminal_grows(tmp_path: Path) -> None:
    config, target = example_project(tmp_path)
    app = app_for(config, target)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_idle(app, pilot)
        await settle(pilot)
        assert "Edit" not in footer_line(app)
        await pilot.resize_terminal(160, 48)
        await wait_until(pilot, lambda: "e Edit" in footer_line(app), "the footer found room for every key")


@pytest.mark.parametrize("size", SIZES, ids=IDS)
async def test_the_log_tab_is_as_tall_as_its_lines(tmp_path: Path, size: tuple[int, int]) -> None:
    config, target = example_project(tmp_path)
    target.logs["8b5e1f7a-3c2d-4e6f-8a9b-1c2d3e4f5a01"] = [f"graded line {n}" for n in range(40)]
    app = app_for(config, target)
    async with app.run_test(size=size) as pilot:
        await wait_idle(app, pilot)
        await settled(app, pilot)
        bottom = app.main.query_one("#bottom")
        room = size[1] - 2
        # the failing row's log is one header line: the tab stays small, the sets and the detail get the rest
        assert app.main.run_log.line_count <= 2
        assert bottom.outer_size.height == LOG_MIN, bottom.outer_size
        assert app.main.query_one("#main").outer_size.height == room - LOG_MIN
        await pilot.press("2")  # the history: its table keeps two fifths of the room
        await settle(pilot)
        assert bottom.outer_size.height == max(8, round(room * 0.4))
        await pilot.press("1")
        await settle(pilot)
        assert bottom.outer_size.height == LOG_MIN
        await pilot.press("home", "down")  # the first row writes 40 lines: the tab grows, up to two fifths
        await wait_until(pilot, lambda: app.main.run_log.line_count > 40, "the first row's log is shown")
        await settle(pilot)
        assert bottom.outer_size.height == max(8, round(room * 0.4))


def test_paths_are_cut_at_their_start_and_broken_after_a_slash() -> None:
    assert path_tail("evals/default/eval-sets/grading.json", 80) == "evals/default/eval-sets/grading.json"
    assert path_tail("evals/default/eval-sets/grading.json", 20) == "…/grading.json"
    assert path_tail("evals/default/eval-sets/grading.json", 28) == "…/eval-sets/grading.json"
    assert path_tail("a-very-long-file-name.json", 10) == "…name.json"
    lines = path_lines(LONG, 30)
    assert "".join(lines) == LONG and all(len(line) <= 30 for line in lines), lines
    assert all(line.endswith("/") for line in lines[:-1]) and lines[-1] == "grading/grade.py", lines
    folded = fold_paths(f"fix the comparison in\n{LONG}\nand save.", 40)
    assert folded.replace("/\n", "/") == f"fix the comparison in\n{LONG}\nand save."
    assert all(len(line) <= 40 for line in folded.splitlines())


@pytest.mark.parametrize("size", SIZES, ids=IDS)
async def test_a_long_path_in_a_notice_breaks_after_a_slash(tmp_path: Path, size: tuple[int, int]) -> None:
    """The demo's welcome names grade.py in a temporary folder; macOS's are long (`/var/folders/…`)."""
    config, target = example_project(tmp_path)
    notices = Notices()
    welcome = f"One row fails on purpose: fix the comparison in\n{LONG}\nand save."
    app = app_for(config, target, welcome=welcome)
    async with app.run_test(size=size, message_hook=notices) as pilot:
        await wait_idle(app, pilot)
        await settle(pilot)
        shown = next(notice for notice in notices if "grade.py" in notice)
        width = app.toast_width
        assert all(len(line) <= width for line in shown.splitlines()), shown
        assert shown.replace("/\n", "/") == welcome
        assert width >= 20 and (size[0] < 100) == (width < len(LONG)), width  # at 80 columns it is broken


@pytest.mark.parametrize("size", SIZES, ids=IDS)
async def test_the_detail_breaks_a_long_file_path_after_a_slash(tmp_path: Path, size: tuple[int, int]) -> None:
    config, target = example_project(tmp_path)
    name = "a-broken-eval-set-file-whose-name-goes-on-and-on.json"
    (config.root / "evals" / "default" / "eval-sets" / name).write_text('{"evaluations": [\n')
    app = app_for(config, target)
    async with app.run_test(size=size) as pilot:
        await wait_idle(app, pilot)
        await settled(app, pilot)
        tree = app.main.sets_tree
        problem = tree.root.children[0].children[0]
        tree.move_cursor(problem)  # the problem's own line: the detail shows it
        await settle(pilot)
        width = app.main.detail.scrollable_content_region.width
        title = static_text(app, "#detail-title").splitlines()
        assert title[0] == "File problem", title
        path = [line for line in title[1:] if line.strip()][: len(title)]
        path = path[: next(index for index, line in enumerate(path) if not line.endswith("/")) + 1]
        assert all(len(line) <= width for line in path), (path, width)
        assert all(line.endswith("/") for line in path[:-1]), path
        assert path[-1].endswith(".json") and (name in path[-1] or path[-1].startswith("…")), path
        full = f"evals/default/eval-sets/{name}"
        assert all(line.lstrip("…") in full for line in path) and full.endswith(path[-1].lstrip("…")), path
        assert path[-1] in screen_text(app), "the file's line whole on the screen"
