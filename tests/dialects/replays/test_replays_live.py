"""`"live": true` steps: the tool's real handler runs in a child process with the runner's timeout, and
is killed with its process group when it hangs or the iteration is cancelled — nothing left running."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

from helpers.checks import process_alive
from helpers.hardening import kill_all, survivors
from helpers.replays import TOOLS, call, case, decide, replay, replay_project, say

from workbench.config import load_config
from workbench.engine import Engine
from workbench.events import Trigger
from workbench.model import Verdict

HANG_TOOLS = [*TOOLS, {"name": "hang", "inputSchema": {}, "handler": "shop:hang"},
              {"name": "broken", "inputSchema": {}, "handler": "shop:broken"},
              {"name": "missing", "inputSchema": {}, "handler": "nowhere:thing"},
              {"name": "handless", "inputSchema": {}}]


def test_a_live_call_runs_the_handler_and_uses_what_it_returns(tmp_path: Path) -> None:
    root = replay_project(tmp_path, {"live": case(
        call("lookup_order", {"orderId": "A-1001"}, live=True),
        call("issue_refund", {"orderId": "A-1001"}, live=True), decide(True),
        say("Refunded."), status="completed")})
    result = replay(root)["live"]
    assert result.verdict is Verdict.PASS, result.detail
    calls = [e for e in result.trace if e["type"] == "tool_call"]
    scratch = root / ".workbench" / "replays" / "live"
    assert calls[0]["output"] == {"orderId": "A-1001", "total": 39.0, "cwd": str(scratch.resolve())}
    assert calls[0]["live"] is True
    assert calls[1]["output"] == {"orderId": "A-1001", "status": "refunded", "live": True}
    assert "looking up A-1001" in result.log  # the handler's stderr is the row's log


def test_handler_faults_fail_the_case_naming_the_handler(tmp_path: Path) -> None:
    root = replay_project(tmp_path, {
        "raises": case(call("broken", live=True)),
        "cannot-import": case(call("missing", live=True)),
        "no-handler": case(call("handless", live=True)),
    }, tools=HANG_TOOLS)
    results = replay(root)
    assert all(r.verdict is Verdict.FAIL for r in results.values())
    assert "the handler shop:broken raised ValueError: the payment provider is down" in results["raises"].detail
    assert "could not load nowhere:thing" in results["cannot-import"].detail
    assert "ModuleNotFoundError" in results["cannot-import"].detail
    assert 'handless has no "handler" in tools.json, so a live step cannot run it' in results["no-handler"].detail


def _pids(pidfile: Path) -> list[int]:
    return [int(word) for word in pidfile.read_text().split()] if pidfile.exists() else []


def test_a_hanging_handler_times_out_and_leaves_no_process_behind(tmp_path: Path) -> None:
    pidfile = tmp_path / "pids.txt"
    root = replay_project(tmp_path / "p", {"hangs": case(call("hang", {"pidfile": str(pidfile)}, live=True),
                                                         say("never"))},
                          tools=HANG_TOOLS, config="[runner]\ntimeout = 5\n")  # time to start on a loaded machine
    try:
        result = replay(root)["hangs"]
        pids = _pids(pidfile)
        assert len(pids) == 2  # the handler and the child it started
        assert result.verdict is Verdict.FAIL
        assert "the handler shop:hang timed out after 5s; the process group was killed" in result.detail
        assert survivors(pids) == []
    finally:
        kill_all(_pids(pidfile))


def test_cancelling_the_iteration_kills_a_running_handler(tmp_path: Path) -> None:
    pidfile = tmp_path / "pids.txt"
    root = replay_project(tmp_path / "p", {"hangs": case(call("hang", {"pidfile": str(pidfile)}, live=True))},
                          tools=HANG_TOOLS, config="[runner]\ntimeout = 600\n")

    async def scenario() -> None:
        task = asyncio.ensure_future(Engine(load_config(root)).run_iteration(Trigger("run")))
        for _ in range(1200):  # a 60 s hang guard
            if len(_pids(pidfile)) == 2:
                break
            await asyncio.sleep(0.05)
        assert all(process_alive(pid) for pid in _pids(pidfile))
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    try:
        asyncio.run(scenario())
        assert survivors(_pids(pidfile)) == []
    finally:
        kill_all(_pids(pidfile))
