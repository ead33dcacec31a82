"""Targets must not outlive a workbench that was killed with SIGKILL (which no handler can catch).

Every target runs in its own process group, so nothing the kernel does on our death reaches it. A
tiny watchdog process does: workbench starts it once, on the first target, with the read end of a
pipe as its stdin, and tells it the process group of every target it starts (`+PGID`) and every
group it has finished with (`-PGID`). When workbench dies, however it dies, the kernel closes the
pipe; the watchdog reads end-of-file and kills every group still registered, grandchildren
included, and every process still carrying this workbench's mark (strays.py: daemons a target moved
into their own session), then exits. A workbench that exits normally has unregistered everything and
swept its strays, so the watchdog finds nothing to kill. It lives in its own session, so a Ctrl-C or a
closed terminal never stops it first.

The parent side also remembers the groups it registered, so that the sweep at the end of an iteration
(`sweep_escaped`) can tell workbench's own processes (a worker kept for the next iteration) from the
ones that escaped them.
"""

from __future__ import annotations

import collections
import contextlib
import os
import subprocess
import sys
import threading

from . import strays  # marks every target started from now on (see strays.py)

# Runs with `python -I -S -c CODE MARK`: nothing to import but builtins, so it starts in a few milliseconds.
WATCHDOG = r"""
import os, signal, sys
groups = set()
pending = b""
while True:
    try:
        chunk = os.read(0, 65536)
    except InterruptedError:
        continue
    except OSError:
        break
    if not chunk:
        break
    pending += chunk
    *lines, pending = pending.split(b"\n")
    for line in lines:
        try:
            number = int(line[1:])
        except ValueError:
            continue
        if line[:1] == b"+":
            groups.add(number)
        elif line[:1] == b"-":
            groups.discard(number)
for group in groups:
    try:
        os.killpg(group, signal.SIGKILL)
    except OSError:
        pass
needle = ("WORKBENCH_RUN_MARK=" + sys.argv[1]).encode() if len(sys.argv) > 1 else None
for _ in range(3 if needle and os.path.isdir("/proc/self") else 0):
    marked = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open("/proc/" + name + "/environ", "rb") as handle:
                if needle in handle.read().split(b"\0"):
                    marked.append(int(name))
        except OSError:
            pass
    for pid in marked:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    if not marked:
        break
"""


class Reaper:
    """The parent side: start the watchdog lazily, register and unregister process groups."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._fd: int | None = None
        self._owner: int | None = None  # the pid that started the watchdog (a fork must start its own)
        self._failed = False
        self._groups: collections.Counter[int] = collections.Counter()  # registered and not yet finished
        self._groups_pid = os.getpid()  # a forked child starts with none of its parent's
        self.process: subprocess.Popen[bytes] | None = None

    def _channel(self) -> int | None:
        if self._owner == os.getpid():
            return self._fd
        if self._failed or not sys.executable:
            return None
        read_end, write_end = os.pipe()
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-I", "-S", "-c", WATCHDOG, strays.MARK], stdin=read_end, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL, start_new_session=True, close_fds=True)
        except OSError:
            os.close(write_end)
            self._failed = True  # targets still get every other protection; only this one is lost
            return None
        finally:
            os.close(read_end)
        self._fd, self._owner = write_end, os.getpid()
        return write_end

    def _send(self, line: str) -> None:
        with self._lock:
            fd = self._channel()
            if fd is None:
                return
            try:
                os.write(fd, line.encode("ascii"))
            except OSError:  # the watchdog is gone (someone killed it): carry on without it
                with contextlib.suppress(OSError):
                    os.close(fd)
                self._fd, self._failed = None, True

    def track(self, group: int) -> None:
        """Kill process group `group` if workbench dies before calling `untrack(group)`."""
        with self._lock:
            self._own_groups()[group] += 1
        self._send(f"+{group}\n")

    def untrack(self, group: int) -> None:
        with self._lock:
            groups = self._own_groups()
            groups[group] -= 1
            if groups[group] <= 0:
                del groups[group]
        self._send(f"-{group}\n")

    def live_groups(self) -> set[int]:
        """The process groups workbench started and has not finished with (in this process)."""
        with self._lock:
            return set(self._own_groups())

    def _own_groups(self) -> collections.Counter[int]:
        if self._groups_pid != os.getpid():
            self._groups, self._groups_pid = collections.Counter(), os.getpid()
        return self._groups

    def watchdog_pid(self) -> int | None:
        return self.process.pid if self.process is not None and self._owner == os.getpid() else None


REAPER = Reaper()


def sweep_escaped() -> list[int] | None:
    """Kill this workbench's strays that are outside every process group it still runs: what a target
    moved into a session of its own (a double fork, `setsid`) ends with the iteration, while a worker
    kept for the next iteration keeps its processes. The pids that could not be stopped ([] when none);
    None where strays can't be found (no /proc)."""
    watchdog = REAPER.watchdog_pid()
    return strays.stop_strays([watchdog] if watchdog else [], spare_groups=REAPER.live_groups())
