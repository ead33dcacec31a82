"""No room for `.workbench/`: a read-only project, a `.workbench` that is a file, an unusable or corrupt
history database, a full disk. Each is one clear message; `run` still runs and reports, and the watch
loop and the TUI keep iterating without history."""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from helpers.checks import tree_digest
from helpers.cli import cli_env, invoke_json, invoke_workbench
from helpers.hardening import WAIT_S, FixedRunner, Lines, assert_polite
from helpers.project import COMMAND_CONFIG, make_project, row
from helpers.tui import Notices, screen_text, settle, wait_idle

import workbench.history
from workbench.cli import main as cli_main
from workbench.config import load_config
from workbench.events import IterationReport, Trigger
from workbench.history import DB_NAME, HistoryStore
from workbench.session import Session
from workbench.tui.app import make_app

pytestmark = pytest.mark.hardening

ROWS = [row("passes", {"output": {"ok": True}}, {"ok": True}), row("fails", {"output": {"ok": False}}, {"ok": True})]


def project(root: Path) -> Path:
    return make_project(root, sets={"s": ROWS}, config=COMMAND_CONFIG)


def break_state(root: Path, how: str) -> None:
    state = root / ".workbench"
    if how == ".workbench is a file":
        state.write_text("not a folder")
    elif how == "the database is a folder":
        (state / DB_NAME).mkdir(parents=True)
    elif how == "the database is garbage":
        state.mkdir()
        (state / DB_NAME).write_bytes(b"this is not an SQLite database, it was cut short by a crash" * 100)
    elif how == "the database is a dangling link":
        state.mkdir()
        (state / DB_NAME).symlink_to(root / "nowhere" / "history.sqlite3")
    else:
        raise AssertionError(how)


BROKEN = [".workbench is a file", "the database is a folder", "the database is garbage",
          "the database is a dangling link"]


@pytest.mark.parametrize("how", BROKEN)
def test_run_still_runs_and_reports_and_says_history_was_not_recorded(tmp_path, how):
    root = project(tmp_path)
    break_state(root, how)
    proc, doc = invoke_json("run", str(root))
    assert_polite(proc)
    assert proc.returncode == 1  # the verdicts decide, as always: one row fails
    assert {r["row_name"]: r["verdict"] for r in doc["results"]} == {"passes": "PASS", "fails": "FAIL"}
    assert "not recorded in history" in proc.stderr and "history" in proc.stderr
    text = invoke_workbench("run", str(root))
    assert_polite(text)
    assert "1 passed, 1 failed" in text.stdout


@pytest.mark.parametrize("how", BROKEN)
def test_history_and_accept_say_what_is_wrong(tmp_path, how):
    root = project(tmp_path)
    break_state(root, how)
    for args in (("history", str(root)), ("history", str(root), "1"), ("accept", str(root), "--set", "s",
                                                                         "--row", "fails")):
        proc = invoke_workbench(*args)
        assert_polite(proc)
        assert proc.returncode != 0 or "no history yet" in proc.stdout, (args, proc.stdout, proc.stderr)
        assert (proc.stdout + proc.stderr).strip()


@pytest.mark.process("a live watch loop, read line by line")
def test_watch_plain_keeps_iterating_without_history(tmp_path):
    root = project(tmp_path)
    break_state(root, ".workbench is a file")
    proc = subprocess.Popen([sys.executable, "-m", "workbench", "watch", str(root), "--plain"], env=cli_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        lines = Lines(proc.stdout)
        assert "1/2 rows pass" in lines.expect("rows pass")
        set_file = root / "evals" / "default" / "eval-sets" / "s.json"
        deadline = time.monotonic() + WAIT_S
        while True:  # save until the watcher, which may not have been live at the first save, sees it
            set_file.write_text(json.dumps({"version": "1.0", "evaluatorRefs": ["exact-match-evaluator"],
                                            "evaluations": ROWS[:1]}))
            try:
                assert "1/1 rows pass" in lines.expect("rows pass", timeout=3)
                break
            except AssertionError:
                assert time.monotonic() < deadline, lines.seen
    finally:
        proc.terminate()
        _out, err = proc.communicate(timeout=30)
    assert "history is off" in err and "Traceback" not in err


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders; the other cases cover it")
def test_a_read_only_project_runs_and_reports(tmp_path):
    root = project(tmp_path / "project")
    digest = tree_digest(root)
    for folder in [root, *[p for p in root.rglob("*") if p.is_dir()]]:
        folder.chmod(0o555)
    try:
        proc, doc = invoke_json("run", str(root))
    finally:
        for folder in [root, *[p for p in root.rglob("*") if p.is_dir()]]:
            folder.chmod(0o755)
    assert_polite(proc)
    assert doc["summary"] == {"total": 2, "passed": 1, "failed": 1, "errors": 0}
    assert "not recorded in history" in proc.stderr
    assert tree_digest(root) == digest


# -- a full disk, simulated --------------------------------------------------------------------------------


class FullDisk:
    """An SQLite connection on a disk that has filled up: reads work, every write fails (once `full`)."""

    full = True

    def __init__(self, real: sqlite3.Connection) -> None:
        self.real = real

    def execute(self, sql: str, *args: Any) -> Any:
        if FullDisk.full and sql.lstrip().upper().startswith(("INSERT", "DELETE", "UPDATE")):
            raise sqlite3.OperationalError("database or disk is full")
        return self.real.execute(sql, *args)

    def executemany(self, sql: str, *args: Any) -> Any:
        if FullDisk.full:
            raise sqlite3.OperationalError("database or disk is full")
        return self.real.executemany(sql, *args)

    def executescript(self, script: str) -> Any:
        return self.real.executescript(script)

    def close(self) -> None:
        self.real.close()


@pytest.fixture
def full_disk(monkeypatch: pytest.MonkeyPatch) -> None:
    real_connect = sqlite3.connect

    def connect(*args: Any, **kwargs: Any) -> FullDisk:
        return FullDisk(real_connect(*args, **kwargs))

    monkeypatch.setattr(workbench.history.sqlite3, "connect", connect)
    monkeypatch.setattr(FullDisk, "full", True)


def test_run_on_a_full_disk_reports_and_says_it_was_not_recorded(tmp_path, full_disk):
    root = project(tmp_path)
    result = CliRunner().invoke(cli_main, ["run", str(root)], catch_exceptions=False)
    assert result.exit_code == 1
    assert "1 passed, 1 failed" in result.output
    assert "not recorded in history" in result.output and "database or disk is full" in result.output
    assert "Traceback" not in result.output


async def test_the_loop_keeps_iterating_when_history_writes_fail(tmp_path, full_disk):
    root = project(tmp_path)
    notices: list[str] = []
    done: list[IterationReport] = []
    FullDisk.full = False  # room enough to open the history; then the disk fills up
    session = Session(load_config(root), on_notice=notices.append, on_iteration=lambda r, _s: done.append(r),
                      runner_factory=FixedRunner.factory({"passes": {"ok": True}, "fails": {"ok": False}}))
    FullDisk.full = True
    try:
        for _ in range(3):
            await session.iterate_now(Trigger("manual"))
    finally:
        await session.aclose()
    assert len(done) == 3 and all(len(r.results) == 2 for r in done)
    assert sum("not recorded" in n and "database or disk is full" in n for n in notices) == 3, notices


async def test_the_tui_runs_without_history_and_says_so(tmp_path: Path) -> None:
    root = project(tmp_path)
    break_state(root, "the database is garbage")
    runner = FixedRunner.factory({"passes": {"ok": True}, "fails": {"ok": False}})
    app = make_app(load_config(root), watch=False, record=True, runner_factory=runner)
    notices = Notices()
    async with app.run_test(size=(150, 45), message_hook=notices) as pilot:
        await wait_idle(app, pilot)
        await pilot.press("R")
        await wait_idle(app, pilot, 2)
        await pilot.press("2")  # the history tab
        await settle(pilot)
        painted = screen_text(app)
        assert "History is off" in painted
        assert any("history is off" in n for n in notices) or "history is off" in painted
    assert app.main.iterations_done == 2


def test_a_history_that_fills_up_mid_session_keeps_earlier_iterations(tmp_path, full_disk):
    """Recorded iterations survive a write that fails half-way: the failed one is absent, not partial."""
    root = project(tmp_path)
    config = load_config(root)
    runner = FixedRunner.factory({"passes": {"ok": True}, "fails": {"ok": False}})

    async def iterate() -> IterationReport:
        from workbench.engine import Engine

        return await Engine(config, runner).run_iteration(Trigger("manual"))

    FullDisk.full = False
    with HistoryStore.open(config) as store:
        store.record(asyncio.run(iterate()))
        second = asyncio.run(iterate())
        FullDisk.full = True  # the disk fills up
        with pytest.raises(workbench.history.HistoryError, match="database or disk is full"):
            store.record(second)
        FullDisk.full = False
        assert [info.number for info in store.iterations()] == [1]
        assert len(store.results(1)) == 2
        assert store.record(asyncio.run(iterate())) == 2
