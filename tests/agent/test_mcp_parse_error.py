"""`workbench mcp` answers a line that is not a JSON-RPC message as the spec asks — `-32700` Parse error for
one that is not JSON, `-32600` Invalid Request for JSON that is no message, id null — and keeps serving (issue
32). Raw lines on the real command's stdin: this is the process boundary, which the SDK's client never crosses
with a malformed line."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from helpers.agent import copy_example, server_command

WAIT_S = 60.0  # a hang guard, reached only when a test fails
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}}
PARSE_ERROR = {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}}
INVALID_REQUEST = {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "Invalid Request"}}


class RawServer:
    """`workbench mcp` with its stdin and stdout as plain pipes: lines in, answers out (each with a deadline)."""

    def __init__(self, root: Path) -> None:
        command, args, env = server_command(root)
        self.proc = subprocess.Popen([command, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, env={**os.environ, **env}, cwd=root)
        self.lines: queue.Queue[bytes] = queue.Queue()
        assert self.proc.stdout is not None
        threading.Thread(target=self._pump, args=(self.proc.stdout,), daemon=True).start()

    def _pump(self, stream: Any) -> None:
        for line in stream:
            self.lines.put(line)
        self.lines.put(b"")

    def send(self, line: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line)
        self.proc.stdin.flush()

    def answer(self) -> dict[str, Any]:
        line = self.lines.get(timeout=WAIT_S)
        assert line, f"the server exited ({self.proc.wait(WAIT_S)}) instead of answering"
        doc = json.loads(line)
        assert isinstance(doc, dict)
        return doc


@contextmanager
def raw_server(root: Path) -> Iterator[RawServer]:
    server = RawServer(root)
    try:
        yield server
    finally:
        assert server.proc.stdin is not None
        server.proc.stdin.close()  # the client closing stdin is the normal end
        try:
            server.proc.wait(WAIT_S)
        except subprocess.TimeoutExpired:
            server.proc.kill()
            server.proc.wait(WAIT_S)


@pytest.mark.process("raw lines on the real `workbench mcp` process's stdin: the SDK's stdio transport is the boundary")
def test_a_malformed_line_gets_a_parse_error_and_the_server_keeps_serving(tmp_path: Path) -> None:
    root = copy_example("grading", tmp_path)
    with raw_server(root) as server:
        server.send(b"{this is not json\n")  # before the handshake, too
        assert server.answer() == PARSE_ERROR
        server.send(json.dumps(INITIALIZE).encode() + b"\n")
        assert server.answer()["id"] == 1
        server.send(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
        for bad in (b'{"jsonrpc": "2.0", "id": 7, "method": \n', b"\xff\xfe garbage\n", b"[1, 2\n"):
            server.send(bad)
            assert server.answer() == PARSE_ERROR, bad
        server.send(b'{"valid": "json", "but": "no message"}\n')
        assert server.answer() == INVALID_REQUEST
        server.send(b"\n")  # a blank line is no message: nothing answers it (the next answer is the next request's)
        server.send(b'{"jsonrpc": "2.0", "id": 2, "method": "tools/list"}\n')
        listed = server.answer()
        assert listed["id"] == 2 and "run" in {tool["name"] for tool in listed["result"]["tools"]}
        server.send(b'{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "history", '
                    b'"arguments": {}}}\n')
        status = server.answer()
        assert status["id"] == 3 and "error" not in status and status["result"]["isError"] is False
    assert server.proc.returncode == 0
