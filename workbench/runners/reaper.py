"""Targets must not outlive a workbench that was killed with SIGKILL (which no handler can catch).

Every target runs in its own process group, so nothing the kernel does on our death reaches it. A
tiny watchdog process does: workbench starts it once, on the first target, with the read end of a
pipe as its stdin, and tells it the process group of every target it starts (`+PGID`) and every
group it has finished with (`-PGID`). When workbench dies, however it dies, the kernel closes the
pipe; the watchdog reads end-of-file and kills every group still registered, grandchildren
included, then exits. A workbench that exits normally has unregistered everything, so the watchdog
just exits. It lives in its own session, so a Ctrl-C or a closed terminal never stops it first.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading

from . import strays  # noqa: F401 - marks every target started from now on (see strays.py)

# Runs with `python -I -S -c`: nothing to import but builtins, so it starts in a few milliseconds.
WATCHDOG = r"""
import os, signal
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
"""


class Reaper:
    """The parent side: start the watchdog lazily, register and unregister process groups."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._fd: int | None = None
        self._owner: int | None = None  # the pid that started the watchdog (a fork must start its own)
        self._failed = False
        self.process: subprocess.Popen[bytes] | None = None

    def _channel(self) -> int | None:
        if self._owner == os.getpid():
            return self._fd
        if self._failed or not sys.executable:
            return None
        read_end, write_end = os.pipe()
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-I", "-S", "-c", WATCHDOG], stdin=read_end, stdout=subprocess.DEVNULL,
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
        self._send(f"+{group}\n")

    def untrack(self, group: int) -> None:
        self._send(f"-{group}\n")


REAPER = Reaper()
