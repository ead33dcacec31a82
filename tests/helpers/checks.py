"""Checks made from outside the code under test: did a folder change, is a process still running, and a
wait for something to come true that fails the test instead of hanging."""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest


def tree_digest(folder: Path) -> dict[str, str]:
    """{relative path: sha256} of every file under `folder`, plus its directories (to catch new ones)."""
    out: dict[str, str] = {}
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder).as_posix()
        out[rel] = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "<dir>"
    return out


def process_alive(pid: int) -> bool:
    """True while `pid` runs. A killed process nobody has reaped yet (a zombie) counts as gone: in a
    container whose init does not reap, `os.kill(pid, 0)` keeps succeeding for it."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True  # no /proc (macOS): os.kill said it exists
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def survivors(pids: Iterable[int], grace_s: float = 10.0) -> list[int]:
    """The pids still running after a grace period for SIGKILLed processes to be torn down (a hang guard:
    it returns as soon as they are all gone)."""
    deadline = time.monotonic() + grace_s
    alive = [pid for pid in pids if process_alive(pid)]
    while alive and time.monotonic() < deadline:
        time.sleep(0.05)
        alive = [pid for pid in alive if process_alive(pid)]
    return alive


def wait_until(condition: Callable[[], bool], what: str, seconds: float = 60.0, *, every: float = 0.02) -> None:
    """Poll `condition` every `every` s until it holds; after `seconds` fail the test naming `what` (a hang
    guard, never a timing assertion)."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {seconds:g}s waiting for {what}")
        time.sleep(every)
