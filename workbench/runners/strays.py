"""Finding the processes a target left behind outside its process group, so "stopped" is said only when true.

Every target runs in its own process group, and stopping one kills that group. A process that calls
`setsid` (a daemon, `setsid sleep 600 &`) leaves the group, and killing the group no longer reaches it.
To find such processes, workbench puts a token unique to this workbench process in its environment
(`WORKBENCH_RUN_MARK`) at import, before any target starts; every target and everything they start
inherit it, whatever groups or sessions they move to. After a stop, the processes still carrying the
token are the strays: they are killed too, and any that survive are named.

Where `/proc` is not there to read (macOS), strays can't be found and callers say less.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import time
from collections.abc import Iterable

MARK_ENV = "WORKBENCH_RUN_MARK"
MARK = f"{os.getpid()}-{secrets.token_hex(8)}"
os.environ[MARK_ENV] = MARK  # inherited by every target started from now on

_PROC = "/proc"
_SETTLE_S = 1.0


def _carries_mark(pid: int, needle: bytes) -> bool:
    try:
        with open(f"{_PROC}/{pid}/environ", "rb") as handle:
            return needle in handle.read().split(b"\0")
    except OSError:  # gone, or someone else's process
        return False


def _running(pid: int) -> bool:
    """Alive and not a zombie (a zombie is dead; it only waits for its parent to reap it)."""
    try:
        with open(f"{_PROC}/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[-1].split()[0] != b"Z"
    except (OSError, IndexError):
        return False


def stray_processes(exclude: Iterable[int] = ()) -> list[int] | None:
    """Running processes started (directly or not) by this workbench's targets; None where that can't be told."""
    if not os.path.isdir(f"{_PROC}/self"):
        return None
    needle = f"{MARK_ENV}={MARK}".encode()
    skip = {os.getpid(), *exclude}
    try:
        pids = [int(name) for name in os.listdir(_PROC) if name.isdigit()]
    except OSError:
        return None
    return [pid for pid in pids if pid not in skip and _carries_mark(pid, needle) and _running(pid)]


def _kill(pid: int) -> None:
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGKILL)


def stop_strays(exclude: Iterable[int] = ()) -> list[int] | None:
    """Kill the strays; the pids of those still running afterwards ([] when none), or None where strays
    can't be found at all."""
    strays = stray_processes(exclude)
    if not strays:
        return strays
    for pid in strays:
        _kill(pid)
    deadline = time.monotonic() + _SETTLE_S
    while (left := [pid for pid in strays if _running(pid)]) and time.monotonic() < deadline:
        time.sleep(0.02)
    return left
