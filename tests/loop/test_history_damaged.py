"""Issue 12, point 15: a damaged history is a HistoryError that names the file and says how to start
afresh — never a traceback — and the TUI and `run` keep working without it."""

from __future__ import annotations

import contextlib
import random
import sqlite3
from pathlib import Path

import pytest
from helpers.cli import cli_env, invoke_workbench
from helpers.project import COMMAND_CONFIG, make_project, row
from helpers.tui import FakeTarget, app_for, grading_rows, shown_rows, wait_idle, write_project

from workbench.config import load_config
from workbench.events import Trigger
from workbench.history import DB_NAME, HistoryError, HistoryStore
from workbench.model import Verdict
from workbench.session import Session


def _history_path(root: Path) -> Path:
    return root / ".workbench" / DB_NAME


async def _record_two_iterations(root: Path) -> None:
    session = Session(load_config(root), runner_factory=FakeTarget().factory)
    try:
        for _ in range(2):
            await session.iterate_now(Trigger("start"))
    finally:
        await session.aclose()


def _flip_in_schema(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[data.find(b"CREATE TABLE iterations") + 15] = 0xFF  # the stored schema is no longer UTF-8
    path.write_bytes(data)


def _paqs(path: Path) -> None:
    with sqlite3.connect(path) as db:
        db.execute("UPDATE results SET verdict = 'PAQS'")


def _number_as_text(path: Path) -> None:
    with sqlite3.connect(path) as db:
        db.execute("UPDATE iterations SET passed = 'many' WHERE number = 1")


DAMAGES = {"schema byte": _flip_in_schema, "verdict PAQS": _paqs, "count as text": _number_as_text}


@pytest.fixture
async def recorded(tmp_path: Path) -> Path:
    write_project(tmp_path, {"grading": grading_rows()})
    await _record_two_iterations(tmp_path)
    return tmp_path


def _read_everything(path: Path) -> None:
    with HistoryStore(path) as store:
        for info in store.iterations():
            store.iteration(info.number)
            for result in store.results(info.number):
                store.find_result(result.key, info.number)
        store.pass_counts()
        store.latest_number()


@pytest.mark.parametrize("damage", list(DAMAGES))
def test_a_damaged_history_is_a_history_error_naming_the_file_and_the_way_out(recorded: Path, damage: str) -> None:
    path = _history_path(recorded)
    DAMAGES[damage](path)
    with pytest.raises(HistoryError) as caught:
        _read_everything(path)
    message = str(caught.value)
    assert str(path) in message and "damaged" in message
    assert "move it aside" in message and f"mv {path}*" in message


def test_random_byte_flips_end_in_a_history_error_or_a_readable_history(recorded: Path) -> None:
    path = _history_path(recorded)
    good = path.read_bytes()
    rnd = random.Random(12)
    for _ in range(40):
        data = bytearray(good)
        for _ in range(rnd.randrange(1, 4)):
            data[rnd.randrange(len(data))] ^= 1 << rnd.randrange(8)
        path.write_bytes(data)
        for suffix in ("-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        with contextlib.suppress(HistoryError):  # anything else (UnicodeDecodeError, TypeError...) fails the test
            _read_everything(path)


def test_the_history_and_accept_commands_say_what_is_wrong_without_a_traceback(tmp_path: Path) -> None:
    root = make_project(tmp_path, sets={"s": [row("a", {"output": {"x": 1}}, {"x": 2})]}, config=COMMAND_CONFIG)
    invoke_workbench("run", str(root), env=cli_env())
    _paqs(_history_path(root))
    for args in (["history", str(root), "1"], ["accept", str(root), "--set", "s", "--row", "a", "--iteration", "1"]):
        proc = invoke_workbench(*args, env=cli_env())
        assert proc.returncode != 0, proc.stdout
        assert "Traceback" not in proc.stderr, proc.stderr
        assert "is damaged" in proc.stderr and "move it aside" in proc.stderr
    _flip_in_schema(_history_path(root))
    proc = invoke_workbench("history", str(root), env=cli_env())
    assert proc.returncode != 0 and "Traceback" not in proc.stderr and "is damaged" in proc.stderr


def test_run_works_and_reports_when_history_is_damaged(tmp_path: Path) -> None:
    root = make_project(tmp_path, sets={"s": [row("a", {"output": {"x": 1}}, {"x": 1})]}, config=COMMAND_CONFIG)
    invoke_workbench("run", str(root), env=cli_env())
    _flip_in_schema(_history_path(root))
    proc = invoke_workbench("run", str(root), env=cli_env())
    assert proc.returncode == 0, proc.stdout + proc.stderr  # the row passes; history is only a record
    assert "PASS" in proc.stdout and "Traceback" not in proc.stderr
    assert "is damaged" in proc.stderr


@pytest.mark.parametrize("damage", list(DAMAGES))
async def test_the_tui_opens_and_runs_without_a_damaged_history(recorded: Path, damage: str) -> None:
    DAMAGES[damage](_history_path(recorded))
    app = app_for(load_config(recorded), FakeTarget(), record=True)
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_idle(app, pilot)
        assert app.is_running
        assert shown_rows(app)  # the rows ran and are shown
        verdicts = {r.verdict for r in app.session.last_report.results}
        assert verdicts <= {Verdict.PASS, Verdict.FAIL}


def test_a_tui_that_crashed_never_exits_0(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Textual shows a crash's traceback and returns from run() with return_code 1; the CLI exits with it."""
    import workbench.tui.app as tui_app
    from workbench.cli.tui_launch import launch_tui

    class CrashedApp:
        return_code = 1

        def run(self) -> None:
            pass

    monkeypatch.setattr(tui_app, "make_app", lambda *args, **kwargs: CrashedApp())
    monkeypatch.setattr("workbench.cli.tui_launch.on_a_terminal", lambda: True)
    with pytest.raises(SystemExit) as exited:
        launch_tui(write_project(tmp_path))
    assert exited.value.code == 1
