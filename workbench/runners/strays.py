"""Finding the processes a target left behind outside its process group, so "stopped" is said only when true.

Every target runs in its own session and process group, and stopping one kills that group. A process
that calls `setsid` (a daemon, `setsid sleep 600 &`, a double fork) leaves the group, and killing the
group no longer reaches it. To find such processes, workbench puts a token unique to this workbench
process in its environment (`WORKBENCH_RUN_MARK`) at import, before any target starts; every target and
everything they start inherit it, whatever groups or sessions they move to. The processes carrying the
token, outside workbench's own session, are the strays. Processes in workbench's session are its own
helpers (a local Ray's), never a target's: targets always start in a new session.

Two sweeps use them: after a stop (Ctrl-C, SIGTERM) every stray is killed (`stop_strays`), and at the
end of every iteration the ones outside the process groups workbench still runs are (`reaper.sweep_escaped`:
a worker kept for the next iteration keeps its processes). Another workbench's strays carry another
token and are never touched.

Where `/proc` is not there to read (macOS), strays can't be found and callers say less.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import time
from collections.abc import Collection, Iterable
from dataclasses import dataclass

MARK_ENV = "WORKBENCH_RUN_MARK"
MARK = f"{os.getpid()}-{secrets.token_hex(8)}"
os.environ[MARK_ENV] = MARK  # inherited by every target started from now on

_PROC = "/proc"
SETTLE_S = 1.0  # how long stop_strays waits for the strays it killed to be gone
_PASSES = 3  # a stray caught mid-fork may have started a child the first look missed


@dataclass(frozen=True, slots=True)
class ProcessInfo:
    """One line of the process table (/proc/PID/stat), enough to tell a process from a later one with its pid."""

    pid: int
    ppid: int
    group: int
    session: int
    started: int  # clock ticks after boot: with the pid, names one process for good
    zombie: bool


def process_info(pid: int) -> ProcessInfo | None:
    """The process `pid` as the kernel lists it, or None when it is gone (or there is no /proc)."""
    try:
        with open(f"{_PROC}/{pid}/stat", "rb") as handle:
            fields = handle.read().rsplit(b")", 1)[1].split()
        return ProcessInfo(pid, int(fields[1]), int(fields[2]), int(fields[3]), int(fields[19]), fields[0] in b"ZX")
    except (OSError, IndexError, ValueError):
        return None


def all_pids() -> list[int] | None:
    try:
        return [int(name) for name in os.listdir(_PROC) if name.isdigit()]
    except OSError:
        return None


def _carries_mark(pid: int, needle: bytes) -> bool:
    try:
        with open(f"{_PROC}/{pid}/environ", "rb") as handle:
            return needle in handle.read().split(b"\0")
    except OSError:  # gone, or someone else's process
        return False


def _running(pid: int) -> bool:
    """Alive and not a zombie (a zombie is dead; it only waits for its parent to reap it)."""
    info = process_info(pid)
    return info is not None and not info.zombie


def stray_processes(exclude: Iterable[int] = (), spare_groups: Collection[int] = ()) -> list[int] | None:
    """Running processes started (directly or not) by this workbench's targets, outside workbench's own
    session and outside `spare_groups`; None where that can't be told."""
    if not os.path.isdir(f"{_PROC}/self"):
        return None
    pids = all_pids()
    if pids is None:
        return None
    needle = f"{MARK_ENV}={MARK}".encode()
    skip = {os.getpid(), *exclude}
    own_session = os.getsid(0)
    found: list[int] = []
    for pid in pids:
        if pid in skip:
            continue
        info = process_info(pid)  # the cheap test first: most processes fail it without reading their environment
        if info is None or info.zombie or info.session == own_session or info.group in spare_groups:
            continue
        if _carries_mark(pid, needle):
            found.append(pid)
    return found


def kill(pid: int) -> None:
    """SIGKILL `pid`; one that is gone already (or not ours to kill) is no error: callers check what is left."""
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGKILL)


def stop_strays(exclude: Iterable[int] = (), spare_groups: Collection[int] = ()) -> list[int] | None:
    """Kill the strays (but those in `spare_groups`); the pids of those still running afterwards ([] when
    none), or None where strays can't be found at all."""
    exclude = set(exclude)
    killed: list[int] = []
    for _ in range(_PASSES):
        strays = stray_processes(exclude, spare_groups)
        if strays is None:
            return None
        strays = [pid for pid in strays if pid not in killed]
        if not strays:
            break
        for pid in strays:
            kill(pid)
        killed += strays
    deadline = time.monotonic() + SETTLE_S
    while (left := [pid for pid in killed if _running(pid)]) and time.monotonic() < deadline:
        time.sleep(0.02)
    return left


def descendants(root: int) -> list[ProcessInfo]:
    """Every running process below `root` in the process tree (children, theirs, ...), as listed now."""
    pids = all_pids() or []
    table = [info for info in map(process_info, pids) if info is not None and not info.zombie]
    below: dict[int, list[ProcessInfo]] = {}
    for info in table:
        below.setdefault(info.ppid, []).append(info)
    found: list[ProcessInfo] = []
    frontier = [root]
    while frontier:
        children = below.get(frontier.pop(), [])
        found += children
        frontier += [child.pid for child in children]
    return found


def kill_if_same(processes: Iterable[ProcessInfo], settle_s: float = SETTLE_S) -> list[int]:
    """SIGKILL each process that is still the one listed (same pid and start time, so never a newcomer
    that reused the pid); the pids still running after `settle_s`."""
    alive = [info for info in processes if _same(info)]
    for info in alive:
        kill(info.pid)
    deadline = time.monotonic() + settle_s
    while (left := [info for info in alive if _same(info)]) and time.monotonic() < deadline:
        time.sleep(0.02)
    return [info.pid for info in left]


def _same(info: ProcessInfo) -> bool:
    now = process_info(info.pid)
    return now is not None and not now.zombie and now.started == info.started


def unmarked_environ() -> dict[str, str]:
    """This process's environment without the mark, for a process workbench starts that is not a target
    (the user's editor): neither it nor a daemon it leaves behind (a GUI editor's server) is a stray."""
    return {key: value for key, value in os.environ.items() if key != MARK_ENV}
