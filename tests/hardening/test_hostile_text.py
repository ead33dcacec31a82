"""Row names, outputs, logs and file names written by someone else (or by a model) are shown, never obeyed:
no terminal escape reaches the terminal, no Rich/Textual markup is interpreted, and JUnit stays valid XML."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from helpers.cli import cli_env, invoke_workbench
from helpers.hardening import Lines, assert_polite
from helpers.project import COMMAND_CONFIG, EXACT, make_project, row
from helpers.tui import (
    FakeTarget,
    Notices,
    app_for,
    screen_text,
    settle,
    shown_rows,
    static_text,
    tree_lines,
    wait_idle,
)

from workbench.config import load_config
from workbench.tui.app import make_app
from workbench.tui.log_pane import RunLog

pytestmark = pytest.mark.hardening

ESC = "\x1b"
MARKUP = "[bold red]loud[/] [@click=app.quit]quit[/] [link=http://x]l[/]"
TERMINAL = "\x1b[2J\x1b]0;pwned\x07\x1b[31mred\x1b[0m\x9b1m\r\x08"
HOSTILE = f"{MARKUP} {TERMINAL}"
FILE_NAME = "[@click=app.quit]set\x1b[31m"  # a legal file name on Linux
FILE_MARKUP = "[bold red]loud [@click=app.quit]q"  # no "/": that would make folders


def hostile_rows() -> list[dict]:
    return [
        {"id": "hostile", "name": HOSTILE, "inputs": {"out": {"answer": HOSTILE}, "q": MARKUP},
         "evaluationCriterias": {EXACT: {"expectedOutput": {"answer": f"[i]{TERMINAL}[/i]"}}}},
        {"id": "calm", "name": "calm", "inputs": {"out": {"answer": "ok"}},
         "evaluationCriterias": {EXACT: {"expectedOutput": {"answer": "ok"}}}},
    ]


# -- the text report and the CLI ------------------------------------------------------------------------


def command_project(root: Path) -> Path:
    rows = [row(HOSTILE, {"output": {"answer": HOSTILE}, "stderr": HOSTILE}, {"answer": MARKUP}, id="hostile"),
            row("calm", {"output": {"a": 1}}, {"a": 1})]
    make_project(root, sets={FILE_NAME: rows, "broken" + TERMINAL: "{not json"}, config=COMMAND_CONFIG)
    return root


def test_the_text_report_prints_no_escape_byte_and_shows_markup_literally(tmp_path):
    root = command_project(tmp_path)
    proc = invoke_workbench("run", str(root), env=cli_env())
    assert_polite(proc)
    assert ESC not in proc.stdout and ESC not in proc.stderr
    assert "\x9b" not in proc.stdout and "\x07" not in proc.stdout and "\x08" not in proc.stdout
    assert MARKUP in proc.stdout  # literally, as written
    assert "\\x1b[31m" in proc.stdout  # the escape made visible
    assert "[@click=app.quit]set\\x1b[31m.json" in proc.stdout  # the set's file name, in its result lines
    assert "problem: evals/default/eval-sets/broken\\x1b[2J" in proc.stdout


@pytest.mark.process("a live watch loop's stdout, read line by line")
def test_watch_plain_prints_no_escape_byte(tmp_path):
    """One iteration of `watch --plain --verbose`, stopped by SIGTERM once it has printed its line."""
    root = command_project(tmp_path)
    proc = subprocess.Popen([sys.executable, "-m", "workbench", "watch", str(root), "--plain", "--verbose"],
                            env=cli_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            encoding="utf-8", errors="replace")
    try:
        lines = Lines(proc.stdout)
        lines.expect("rows pass")
    finally:
        proc.send_signal(signal.SIGTERM)
        _rest, err = proc.communicate(timeout=30)
    out = "".join(lines.seen)
    assert ESC not in out and ESC not in err
    assert MARKUP in out


def test_json_and_junit_carry_the_exact_text_and_stay_valid(tmp_path):
    root = command_project(tmp_path)
    junit = tmp_path / "junit.xml"
    proc = invoke_workbench("run", str(root), "--json", "--junit", str(junit), env=cli_env())
    assert_polite(proc)
    doc = json.loads(proc.stdout)
    result = next(r for r in doc["results"] if r["row_id"] == "hostile")
    assert result["row_name"] == HOSTILE and result["actual"] == {"answer": HOSTILE}  # data stays exact
    tree = ET.parse(junit)  # well-formed, whatever the names held
    names = [case.get("name") for case in tree.iter("testcase")]
    assert any(MARKUP in (name or "") for name in names)
    assert all(ESC not in (name or "") for name in names)
    suites = [suite.get("name") for suite in tree.iter("testsuite")]
    assert any("[@click=app.quit]set" in (name or "") for name in suites)


def test_a_file_name_that_is_not_utf8_is_shown_escaped(tmp_path):
    root = make_project(tmp_path, sets={"fine": [row("calm", {"output": 1}, {"result": 1})]}, config=COMMAND_CONFIG)
    sets_dir = root / "evals" / "default" / "eval-sets"
    bad_name = bytes(sets_dir) + b"/caf\xe9\xff\x1b.json"
    with open(bad_name, "wb") as handle:
        handle.write(json.dumps({"evaluatorRefs": [EXACT],
                                 "evaluations": [row("in odd file", {"output": 2}, {"result": 2})]}).encode())
    junit = tmp_path / "junit.xml"
    proc = invoke_workbench("run", str(root), "--junit", str(junit), env=cli_env())
    assert_polite(proc)
    assert proc.returncode == 0, proc.stdout
    assert ESC not in proc.stdout and "in odd file" in proc.stdout
    ET.parse(junit)
    history = invoke_workbench("history", str(root), env=cli_env())
    assert_polite(history)
    assert history.returncode == 0


# -- the TUI ------------------------------------------------------------------------------------------------


async def test_the_tui_paints_hostile_names_outputs_logs_and_file_names_literally(tmp_path: Path) -> None:
    config = load_config(make_project(tmp_path, sets={FILE_NAME: {"version": "1.0", "evaluatorRefs": [EXACT],
                                                                "evaluations": hostile_rows()},
                                                      "broken" + FILE_MARKUP: "{oops"},
                                      config={"kind": "command", "command": ["{python}", "-c", "pass"]}))
    target = FakeTarget(logs={"hostile": [f"log {HOSTILE}"]})
    app = app_for(config, target)
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_idle(app, pilot)
        await settle(pilot)
        assert app.is_running  # [@click=app.quit] did nothing
        label = shown_rows(app)["hostile"]
        assert MARKUP in label and ESC not in label
        lines = tree_lines(app)
        assert any("[@click=app.quit]set\\x1b[31m.json" in line for line in lines)
        assert any(f"broken{FILE_MARKUP}.json" in line for line in lines)
        assert MARKUP in static_text(app, "#detail-title")
        actual = static_text(app, "#detail-actual")
        assert MARKUP in actual and ESC not in actual
        expected = static_text(app, "#detail-expected")
        assert "[i]" in expected and ESC not in expected
        log_lines = app.query_one("#run-log", RunLog).lines
        assert any(MARKUP in line and ESC not in line for line in log_lines)
        painted = screen_text(app)
        assert "[bold red]loud[/]" in painted and "[@click=app.quit]" in painted
        assert ESC not in painted and "\x07" not in painted and "\x9b" not in painted
        await pilot.press("3")  # the log tab
        await settle(pilot)
        painted = screen_text(app)
        assert ESC not in painted


async def test_a_notice_with_escapes_in_it_is_shown_escaped(tmp_path: Path) -> None:
    """Notices quote paths; a project whose folder name holds escapes must not inject them."""
    root = tmp_path / f"proj{TERMINAL.replace(chr(0x9b), '').replace('/', '')}"
    make_project(root, sets={"s": hostile_rows()}, config={"kind": "command", "command": ["{python}", "-c", "pass"]})
    (root / ".workbench").write_text("a file where the state folder should be")
    config = load_config(root)
    app = make_app(config, watch=False, record=True, runner_factory=FakeTarget().factory)
    notices = Notices()
    async with app.run_test(size=(160, 50), message_hook=notices) as pilot:
        await wait_idle(app, pilot)
        await settle(pilot)
        painted = screen_text(app)
        assert "history is off" in painted.replace("\n", " ") or any(
            "history is off" in n for n in notices)
        assert ESC not in painted and "\x07" not in painted
        for notice in notices:
            assert ESC not in notice
