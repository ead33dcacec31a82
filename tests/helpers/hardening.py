"""Helpers shared by the hardening tests: runner configs for the misbehaving target, pid checks, deep
values, and assertions that a CLI run failed politely (a message, never a traceback)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import queue
import shutil
import subprocess
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from helpers.checks import survivors as survivors  # re-exported: the hardening tests import their pid checks here
from helpers.project import make_project
from workbench.config import Config, load_config
from workbench.engine import Engine
from workbench.events import IterationReport, Trigger
from workbench.rescoring import RowFilter
from workbench.runners.base import LogSink, Runner, RunOutcome, RunRequest

FAULTY = Path(__file__).resolve().parent.parent / "hardening" / "faulty_target.py"
RUNNER_KINDS = ("command", "worker", "python", "uip")
WAIT_S = 30.0  # a guard against hangs, never a timing assertion


def runner_table(kind: str, pidfile: Path, *, timeout: float = 20, concurrency: int = 1,
                 max_output_mb: float = 16, **extra: Any) -> dict[str, Any]:
    """The [runner] table that runs faulty_target.py as a `kind` target, logging its pids to `pidfile`."""
    table: dict[str, Any] = {"kind": kind, "timeout": timeout, "concurrency": concurrency,
                             "max_output_mb": max_output_mb, "env": {"FAULTY_PIDS": str(pidfile)}}
    if kind in ("command", "worker"):
        table["command"] = ["{python}", str(FAULTY), kind]
    elif kind == "uip":
        table["uip"] = ["{python}", str(FAULTY), "uip"]
    else:
        table["callable"] = "faulty_target:as_function"
    table.update(extra)
    return table


def faulty_project(root: Path, kind: str, rows: list[dict[str, Any]], **table: Any) -> Config:
    """A project whose one set `s` holds `rows`, run by faulty_target.py as a `kind` target."""
    pidfile = root / "pids.txt"
    make_project(root, sets={"s": rows}, config=runner_table(kind, pidfile, **table),
                 files={"Workflow.json": "{}\n", "faulty_target.py": FAULTY.read_text(encoding="utf-8")})
    return load_config(root)


def run_iteration(config: Config, selection: RowFilter | None = None) -> IterationReport:
    return asyncio.run(Engine(config).run_iteration(Trigger("run"), selection))


def recorded_pids(root: Path) -> list[int]:
    path = root / "pids.txt"
    return [int(word) for word in path.read_text().split()] if path.exists() else []


def kill_all(pids: Sequence[int]) -> None:
    """Clean up after a failed test, so a leak doesn't outlive it either."""
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, 9)


def assert_polite(proc: subprocess.CompletedProcess[str]) -> None:
    """The CLI may fail, but with a message: no Python traceback on either stream."""
    for stream in (proc.stdout, proc.stderr):
        assert "Traceback (most recent call last)" not in stream, stream[-3000:]
        assert "RecursionError" not in stream, stream[-3000:]


def deep(levels: int, leaf: Any = "bottom") -> Any:
    """A value nested `levels` deep, alternating objects and arrays."""
    value = leaf
    for level in range(levels):
        value = {"k": value} if level % 2 else [value]
    return value


def deep_text(levels: int, leaf: str = '"bottom"') -> str:
    """The JSON text of `deep(levels)`, built without recursion."""
    opens = "".join('{"k":' if level % 2 else "[" for level in reversed(range(levels)))
    closes = "".join("}" if level % 2 else "]" for level in range(levels))
    return opens + leaf + closes


def copy_target_into(root: Path) -> None:
    shutil.copy(FAULTY, root / "faulty_target.py")


class FixedRunner(Runner):
    """An in-process runner that answers every row with `outputs[row id]` (or an error): how the tests
    feed values no real target could deliver, such as an output nested 100,000 levels deep."""

    def __init__(self, config: Config, outputs: dict[str, Any], logs: dict[str, list[str]] | None = None) -> None:
        super().__init__(config)
        self.outputs = outputs
        self.logs = logs or {}

    async def run(self, request: RunRequest, on_log: LogSink | None = None) -> RunOutcome:
        lines = self.logs.get(request.row_id, [])
        for line in lines:
            if on_log is not None:
                on_log(line)
        await asyncio.sleep(0)
        return RunOutcome(output=self.outputs.get(request.row_id), duration_ms=5.0, log="\n".join(lines))

    @classmethod
    def factory(cls, outputs: dict[str, Any], logs: dict[str, list[str]] | None = None) -> Any:
        return lambda config: cls(config, outputs, logs)


class Lines:
    """A process's stdout read line by line on a thread, so waiting for a line can time out."""

    def __init__(self, stream: Any) -> None:
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._pump, args=(stream,), daemon=True).start()

    def _pump(self, stream: Any) -> None:
        for line in iter(stream.readline, ""):
            self.lines.put(line)
        self.lines.put(None)

    def expect(self, needle: str, timeout: float = WAIT_S) -> str:
        """The next line holding `needle` (lines before it are skipped)."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            try:
                line = self.lines.get(timeout=max(remaining, 0.01))
            except queue.Empty:
                raise AssertionError(f"no line with {needle!r} within {timeout}s; saw {self.seen[-20:]}") from None
            if line is None:
                raise AssertionError(f"the process ended before printing {needle!r}; saw {self.seen[-20:]}")
            self.seen.append(line)
            if needle in line:
                return line
