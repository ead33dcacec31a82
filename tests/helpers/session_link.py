"""Harnesses for the session-link tests: a project whose target counts its invocations (in a file outside
the project, so counting is not an edit), optionally held at a gate until the test opens it; `workbench watch
--plain` in a fresh interpreter with its stdout read line by line; an in-process Session with its LinkServer.

Nothing here sleeps to synchronise: tests wait on lines, files and events, each with a generous deadline
that only a failing test reaches."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from helpers.cli import cli_env
from helpers.paths import PACKAGE
from helpers.project import eval_set, make_project, row
from workbench.config import load_config
from workbench.session import Session
from workbench.session_link import AgentAsk, LinkServer

WAIT_S = 60.0  # for something that should happen; reached only when a test fails

COUNTING_TARGET = """\
import json, os, sys, time

CALLS = {calls!r}
GATES = {gates!r}

inputs = json.load(sys.stdin)
with open(CALLS, "a") as handle:
    handle.write(f"{{inputs['q']}} {{os.getpid()}}\\n")
if GATES:
    gate = os.path.join(GATES, inputs["q"])
    deadline = time.monotonic() + 60  # a hang guard, not a timing window
    while not os.path.exists(gate) and time.monotonic() < deadline:
        time.sleep(0.01)
print(json.dumps({{"answer": inputs["q"].upper()}}))
"""


class Counted:
    """A project of rows `question <q>` whose target answers `q.upper()` and appends `q` to `calls`."""

    def __init__(self, tmp_path: Path, questions: str = "ab", *, gated: bool = False, name: str = "project") -> None:
        self.questions = questions
        self.calls = tmp_path / "calls.log"
        self.gates = tmp_path / "gates" if gated else None
        if self.gates is not None:
            self.gates.mkdir()
        config = {"runner": {"kind": "command", "command": ["{python}", "target.py"], "timeout": 90,
                             "concurrency": 4}}
        self.root = make_project(tmp_path / name, sets={"qa": self.rows()}, config=config)
        (self.root / "target.py").write_text(
            COUNTING_TARGET.format(calls=str(self.calls), gates=str(self.gates) if self.gates else None),
            encoding="utf-8")

    def rows(self, expected: dict[str, str] | None = None) -> list[dict[str, Any]]:
        expected = expected or {}
        return [row(f"question {q}", {"q": q}, {"answer": expected.get(q, q.upper())}) for q in self.questions]

    def expect(self, **answers: str) -> None:
        """Rewrite the eval set with other expectations (an eval-file edit: re-scored, never re-run)."""
        path = self.root / "evals/default/eval-sets/qa.json"
        path.write_text(json.dumps(eval_set(self.rows(answers))), encoding="utf-8")

    def count(self) -> int:
        return len(self.pids())

    def pids(self) -> list[int]:
        """The process ids of the target's invocations so far, in order."""
        lines = self.calls.read_text().splitlines() if self.calls.exists() else []
        return [int(line.split()[1]) for line in lines]

    def open_gate(self, q: str) -> None:
        assert self.gates is not None
        (self.gates / q).touch()

    async def until_called(self, count: int) -> None:
        """Wait until the target has been started `count` times (it writes its line first)."""
        deadline = time.monotonic() + WAIT_S
        while self.count() < count:
            assert time.monotonic() < deadline, f"the target was started {self.count()} times, not {count}"
            await asyncio.sleep(0.02)


class WatchPlain:
    """`workbench watch --plain ROOT` in a fresh interpreter, started in `cwd` as a shell there would (PWD)."""

    def __init__(self, root: Path, *args: str, cwd: Path | None = None) -> None:
        where = cwd or root
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "workbench", "watch", str(root), "--plain", *args],
            env=shell_env(where), cwd=where, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, encoding="utf-8", errors="replace", start_new_session=True)
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.seen: list[str] = []
        self.stderr: list[str] = []
        assert self.proc.stdout and self.proc.stderr
        threading.Thread(target=_pump, args=(self.proc.stdout, self.lines.put), daemon=True).start()
        threading.Thread(target=_pump, args=(self.proc.stderr, self.stderr.append), daemon=True).start()

    def expect(self, pattern: str, timeout: float = WAIT_S) -> str:
        """The next stdout line matching the regex `pattern` (blocking: call it from a thread in async tests)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                pytest.fail(f"no line matching {pattern!r} within {timeout:g}s; stdout:\n" + "\n".join(self.seen)
                            + "\nstderr:\n" + "\n".join(s for s in self.stderr if s))
            if line is None:
                pytest.fail(f"watch exited ({self.proc.wait()}) before printing {pattern!r}; stdout:\n"
                            + "\n".join(self.seen) + "\nstderr:\n" + "\n".join(s for s in self.stderr if s))
            self.seen.append(line)
            if re.search(pattern, line):
                return line

    def kill(self) -> None:
        """SIGKILL, as a crash or `kill -9` would end it (its targets' group too)."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(WAIT_S)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(WAIT_S)
            except subprocess.TimeoutExpired:
                self.kill()


def shell_env(cwd: Path) -> dict[str, str]:
    """The environment a shell in `cwd` gives a command (PWD is where it was started); `-m workbench` finds
    this checkout from any folder."""
    return cli_env(PWD=str(cwd), PYTHONPATH=str(PACKAGE.parent))


def _pump(stream: Any, sink: Callable[[str | None], None]) -> None:
    for line in stream:
        sink(line.rstrip("\n"))
    sink(None)


@contextlib.asynccontextmanager
async def linked_session(root: Path, **options: Any) -> AsyncIterator[tuple[Session, LinkServer, list[AgentAsk]]]:
    """A Session (no watcher) on `root` serving requests; what it answered is collected in the list."""
    asked: list[AgentAsk] = []
    session = Session(load_config(root))
    server = LinkServer(session, on_asked=asked.append, **options)
    try:
        assert await server.start(), "the link server did not start"
        yield session, server, asked
    finally:
        await server.aclose()
        await session.aclose()
