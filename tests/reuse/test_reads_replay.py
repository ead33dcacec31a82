"""Issue 20, cases 4 and 11 for scripted replays (attack #3 and #11): a live handler's reads are the replay
row's reads (merged across its handler calls), so a file outside the project that a handler read changing
reruns the case; and a case stopped by a live handler that timed out, crashed, gave no answer, could not
be loaded or raised failed as a *run*: it runs again instead of being re-scored as a FAIL.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from helpers.replays import call, case, replay_project, say
from helpers.rescoring import run_reuse

import workbench
from workbench.config import load_config
from workbench.dialects.base import RowRun
from workbench.dialects.replays import ReplaysDialect
from workbench.project import load_project
from workbench.runners import RunOutcome
from workbench.runners.read_audit import UNSEEN

HANDLERS = '''\
import json, os, sys

def read(arguments):
    with open(arguments["path"]) as handle:
        return json.load(handle)

def once_crashes(arguments):
    """Dies without answering until the flag (outside the project) exists: a cold cache, a flaky service."""
    if not os.path.exists(arguments["flag"]):
        os._exit(9)
    return {"found": True}

def hangs(arguments):
    import threading
    threading.Event().wait()

def raises(arguments):
    raise ValueError("the payment provider is down")

def exits(arguments):
    os._exit(0)
'''
TOOLS = [{"name": name, "description": name, "inputSchema": {"type": "object"}, "approval": "never",
          "handler": f"handlers:{name}"} for name in ("read", "once_crashes", "hangs", "raises", "exits")]


def project(tmp_path: Path, cases: dict[str, Any], timeout: float = 30) -> Path:
    return replay_project(tmp_path / "project", cases, tools=TOOLS, files={"handlers.py": HANDLERS},
                          config=f"[runner]\ntimeout = {timeout}\n")


def execute(root: Path, name: str) -> RunOutcome:
    """One case run by its dialect, as the engine runs it."""
    config = load_config(root)
    loaded = load_project(root, config)
    [eval_set] = [s for s in loaded.sets if s.dialect == "replays"]
    [row] = [r for r in eval_set.rows if r.id == name]

    def no_runner() -> Any:
        raise AssertionError("a replay never asks for the runner")

    return asyncio.run(ReplaysDialect().execute(RowRun(eval_set, row, config, lambda _line: None, no_runner)))


def data_file(tmp_path: Path, name: str, value: Any) -> Path:
    path = tmp_path / "outside" / name
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(value))
    return path


# -- the handler's reads are the row's --------------------------------------------------------------------

def test_every_live_handler_calls_reads_are_the_rows_reads(tmp_path: Path) -> None:
    first, second = data_file(tmp_path, "stock.json", {"a": 1}), data_file(tmp_path, "price.json", {"b": 2})
    root = project(tmp_path, {"two": case(call("read", {"path": str(first)}, live=True),
                                          call("read", {"path": str(second)}, live=True),
                                          say("done"), status="completed")})
    outcome = execute(root, "two")
    assert outcome.output["status"] == "completed", outcome.output
    for path in (first, second):
        assert str(path) in outcome.reads
        assert str(path) in outcome.read_stats
    assert str(root / "handlers.py") in outcome.reads
    package = str(Path(workbench.__file__).parent)
    assert not [path for path in outcome.reads if path.startswith((package, "\x00"))]
    assert len(outcome.reads) == len(set(outcome.reads))
    assert ReplaysDialect().run_error(outcome) is None


def test_a_handler_that_starts_a_program_makes_the_rows_reads_unseen(tmp_path: Path) -> None:
    handlers = HANDLERS + '''
def runs_cat(arguments):
    import subprocess
    return {"v": subprocess.run(["cat", arguments["path"]], capture_output=True, text=True).stdout}
'''
    root = replay_project(tmp_path / "project",
                          {"cat": case(call("runs_cat", {"path": str(data_file(tmp_path, "x.json", 1))}, live=True),
                                       say("done"), status="completed")},
                          tools=[{"name": "runs_cat", "inputSchema": {"type": "object"}, "approval": "never",
                                  "handler": "handlers:runs_cat"}], files={"handlers.py": handlers})
    outcome = execute(root, "cat")
    assert outcome.output["status"] == "completed", outcome.output
    assert outcome.reads[-1].startswith(UNSEEN + "it started another program (")


def test_run_reuse_reruns_a_replay_whose_handler_read_a_changed_file(tmp_path: Path) -> None:
    stock = data_file(tmp_path, "stock.json", {"found": True})
    root = project(tmp_path, {"case": case(call("read", {"path": str(stock)}, live=True), say("done"),
                                           status="completed")})
    assert run_reuse(root)[0] == [("PASS", False)]
    assert run_reuse(root)[0] == [("PASS", True)]  # nothing changed: re-scored
    stock.unlink()  # the handler now raises FileNotFoundError: a fresh run's case fails
    verdicts, why = run_reuse(root)
    assert verdicts == [("FAIL", False)]
    assert "a file it read changed" in why["case"]


# -- a failed live handler is a failed run ---------------------------------------------------------------

@pytest.mark.parametrize(("tool", "says"), [("hangs", "timed out after 1s"), ("raises", "raised ValueError"),
                                            ("exits", "gave no answer")])
def test_a_case_stopped_by_a_failing_live_handler_is_never_rescored(tmp_path: Path, tool: str, says: str) -> None:
    root = project(tmp_path, {"case": case(call(tool, live=True), say("done"), status="completed")},
                   timeout=1 if tool == "hangs" else 30)  # it hangs forever: any timeout ends it
    outcome = execute(root, "case")
    assert outcome.output["status"] == "failed" and says in outcome.output["failure"]
    why = ReplaysDialect().run_error(outcome)
    assert why is not None and why.startswith("its live handler failed: ") and says in why


def test_a_case_that_fails_without_a_live_handler_failing_is_a_verdict_not_a_failed_run(tmp_path: Path) -> None:
    root = project(tmp_path, {"unknown": case(call("no_such_tool", result={}), say("done"), status="completed"),
                              "no-result": case(call("read"), status="completed")})
    for name in ("unknown", "no-result"):
        outcome = execute(root, name)
        assert outcome.output["status"] == "failed"
        assert ReplaysDialect().run_error(outcome) is None


def test_run_reuse_reruns_a_replay_whose_live_handler_crashed(tmp_path: Path) -> None:
    flag = tmp_path / "outside" / "warm"
    flag.parent.mkdir()
    root = project(tmp_path, {"case": case(call("once_crashes", {"flag": str(flag)}, live=True), say("done"),
                                           status="completed")})
    assert run_reuse(root)[0] == [("FAIL", False)]  # the handler died without answering
    flag.write_text("")  # os.path.exists is no read: only the failed run's record can make it run again
    verdicts, why = run_reuse(root)
    assert verdicts == [("PASS", False)]
    assert "its live handler failed" in why["case"]
