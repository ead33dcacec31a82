"""A `run` that outlasts its wait returns a handle and `status(handle)` waits on it; progress notifications
arrive while it runs; a cancelled request stops its iteration and kills its processes; a target that
writes to stdout never reaches the protocol stream; SIGTERM stops the server and its iteration's processes
(issue 23)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from helpers.agent import mcp_session, server_command, text_of
from helpers.agent_targets import HELD, NOISY, TEE
from helpers.checks import process_alive
from helpers.project import COMMAND_CONFIG, make_project, row

pytestmark = pytest.mark.process("the MCP server on stdio, started as a coding agent starts it")


def held_project(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "held"
    hold = tmp_path / "release"
    make_project(root, sets={"slow": [row("quick one", {"n": 1}, {"echo": {"n": 1}}),
                                      row("held", {"hold": str(hold)}, {"released": True}),
                                      row("quick two", {"n": 2}, {"echo": {"n": 2}})]},
                 config={"kind": "command", "command": ["{python}", "held.py"], "timeout": 120, "concurrency": 3},
                 files={"held.py": HELD})
    return root, hold


async def wait_for_file(path: Path) -> None:
    with anyio.fail_after(60):
        while not path.exists():
            await anyio.sleep(0.02)


async def test_a_long_iteration_returns_a_handle_and_status_waits_for_it(tmp_path: Path) -> None:
    root, hold = held_project(tmp_path)
    progress: list[tuple[float, float | None]] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, total))

    async with mcp_session(root) as session:
        started = await session.call_tool("run", {"wait_s": 0.5}, progress_callback=on_progress)
        digest = started.structured_content
        assert not started.is_error and digest["complete"] is False  # the held row can't have finished
        handle = digest["handle"]
        assert f'status(handle="{handle}")' in digest["next"] and "still running" in text_of(started)
        await wait_for_file(Path(f"{hold}.started"))  # the held row runs: the iteration has its rows
        waiting = await session.call_tool("status", {"handle": handle, "wait_s": 0.1})
        assert waiting.structured_content["complete"] is False
        assert waiting.structured_content["progress"]["rows_total"] == 3
        hold.write_text("go")
        finished = await session.call_tool("status", {"handle": handle, "wait_s": 60}, progress_callback=on_progress)
        digest = finished.structured_content
        assert digest["complete"] and digest["green"] and digest["rows"]["total"] == 3
        assert progress and progress[-1] == (3, 3)  # rows done / rows total, the last one when all are done
        again = await session.call_tool("status", {"handle": handle})
        assert again.is_error and "no iteration with handle" in text_of(again)


async def test_a_cancelled_run_kills_its_processes(tmp_path: Path) -> None:
    root = tmp_path / "hang"
    pidfile = tmp_path / "pids"
    make_project(root, sets={"hangs": [row("hangs", {"hang": str(pidfile)}, {"never": True})]},
                 config=COMMAND_CONFIG | {"timeout": 120})
    async with mcp_session(root) as session:
        async with anyio.create_task_group() as group:
            group.start_soon(session.call_tool, "run", {"wait_s": 100})
            await wait_for_file(pidfile)
            with anyio.fail_after(30):
                while not pidfile.read_text().strip():
                    await anyio.sleep(0.02)
            group.cancel_scope.cancel()  # the client abandons the request: notifications/cancelled
        pids = [int(pid) for pid in pidfile.read_text().split()]
        with anyio.fail_after(30):
            while any(process_alive(pid) for pid in pids):
                await anyio.sleep(0.05)
        history = await session.call_tool("history", {})  # the server still answers; nothing was recorded
        assert history.structured_content == {"iterations": []}


async def test_a_target_printing_to_stdout_leaves_the_protocol_stream_clean(tmp_path: Path) -> None:
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    root = tmp_path / "noisy"
    make_project(root, sets={"noise": [row("prints", {"n": 1}, {"echo": {"n": 1}})]},
                 config={"kind": "python", "callable": "noisy:answer", "timeout": 60}, files={"noisy.py": NOISY})
    (tmp_path / "tee.py").write_text(TEE)
    wire = tmp_path / "wire.jsonl"
    command, args, env = server_command(root)
    params = StdioServerParameters(command=sys.executable, args=[str(tmp_path / "tee.py"), str(wire), command, *args],
                                   env=env, cwd=str(root))
    with (tmp_path / "stderr.log").open("w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            result = await session.call_tool("run", {})
            assert result.structured_content["green"], text_of(result)
            assert (await session.call_tool("check", {})).structured_content["passed"]
    messages: list[dict[str, Any]] = [json.loads(line) for line in wire.read_text().splitlines()]
    assert messages and all(message.get("jsonrpc") == "2.0" for message in messages)
    assert not any(message.get("id") == 99 for message in messages)
    assert "not protocol" not in wire.read_text() and "raw bytes" not in wire.read_text()
    assert os.path.getsize(wire) > 0


def test_sigterm_stops_the_server_and_kills_a_running_iteration(tmp_path: Path) -> None:
    root = tmp_path / "hang"
    pidfile = tmp_path / "pids"
    make_project(root, sets={"hangs": [row("hangs", {"hang": str(pidfile)}, {"never": True})]},
                 config=COMMAND_CONFIG | {"timeout": 120})
    command, args, env = server_command(root)
    server = subprocess.Popen([command, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, env={**os.environ, **env}, cwd=root)
    assert server.stdin is not None and server.stdout is not None
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "run", "arguments": {"wait_s": 100}}},
    ]
    try:
        server.stdin.write(json.dumps(messages[0]).encode() + b"\n")
        server.stdin.flush()
        assert json.loads(server.stdout.readline())["id"] == 1
        for message in messages[1:]:
            server.stdin.write(json.dumps(message).encode() + b"\n")
        server.stdin.flush()
        guard = time.monotonic() + 60  # a hang guard, not a timing window
        while not (pidfile.exists() and pidfile.read_text().strip()) and time.monotonic() < guard:
            time.sleep(0.02)
        pids = [int(pid) for pid in pidfile.read_text().split()]
        server.send_signal(signal.SIGTERM)
        _, err = server.communicate(timeout=60)
    finally:
        if server.poll() is None:
            server.kill()
    assert server.returncode == 128 + signal.SIGTERM
    assert b"terminated; the server stopped and every child process with it" in err
    assert not any(process_alive(pid) for pid in pids)
