"""Workbench's own writers take turns on an eval set: a lock file per set under `.workbench/locks/`.

Two write-backs at once (two `workbench accept` runs, the TUI and a CLI, a bulk accept) would otherwise
both read the file, both patch it and both rename their version into place: the re-read just before
the rename can't close that window, because reading and comparing a large file takes milliseconds.
With the lock, the second writer starts only after the first has renamed, reads the new bytes and
patches them, so no edit is lost. Editors don't take the lock; their saves are still caught by
`replace_atomically`'s final re-read.

The lock is `fcntl.flock` on the lock file, so it is released when its holder exits, however it exits
(a stale lock file is harmless). The holder writes its pid into the file so a writer that gives up
can say who held it. Where `.workbench/` can't be written (a read-only checkout), writes go ahead
unlocked, protected by the re-read alone.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import threading
import time
from collections.abc import Iterator
from contextvars import ContextVar
from pathlib import Path

from ..config import STATE_DIR
from ..safe_paths import open_private, real_folder
from .errors import WritebackError

try:
    import fcntl
except ImportError:  # Windows: no flock; the re-read before the rename is the only protection there
    fcntl = None  # type: ignore[assignment]

LOCKS_DIR = "locks"
WAIT_S = 30.0  # a write holds the lock for milliseconds to a few seconds (a large set)
_POLL_S = 0.02

# Set while a write runs on behalf of a front end that may close meanwhile (the TUI's write workers): a
# wait for another writer's lock ends as soon as the event is set, instead of holding the exit up.
_GIVE_UP: ContextVar[threading.Event | None] = ContextVar("workbench_lock_give_up", default=None)


@contextlib.contextmanager
def waits_end_on(event: threading.Event) -> Iterator[None]:
    """Writes in this block (this thread or task) stop waiting for a lock once `event` is set: refused,
    nothing written."""
    token = _GIVE_UP.set(event)
    try:
        yield
    finally:
        _GIVE_UP.reset(token)


def lock_path(root: Path, target: Path) -> Path:
    """The lock file for eval set `target` (its real path) of the project at `root`."""
    try:
        relative = target.relative_to(root).as_posix()
    except ValueError:
        relative = str(target)
    digest = hashlib.sha256(relative.encode("utf-8", errors="surrogatepass")).hexdigest()[:12]
    return root / STATE_DIR / LOCKS_DIR / f"{target.name}.{digest}.lock"


def _holder(fd: int) -> str:
    """Who holds the lock, as the holder wrote it: "pid 123", or "" when it can't be told."""
    with contextlib.suppress(OSError, ValueError):
        text = os.pread(fd, 32, 0).decode("ascii").strip()
        if text.isdigit():
            return f"pid {int(text)}"
    return ""


def _open(path: Path) -> int | None:
    try:
        real_folder(path.parent)
        return open_private(path, os.O_RDWR)
    except OSError as exc:
        if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            return None  # no lock where workbench may not write its own state
        raise WritebackError(f"cannot create the write lock {path}: {exc.strerror or exc}; nothing written") from None


def _take(fd: int, path: Path, display: str, wait_s: float) -> None:
    """Take the flock on `fd`, waiting up to `wait_s` (or until this write is told to give up)."""
    give_up = _GIVE_UP.get()
    deadline = time.monotonic() + wait_s
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise WritebackError(f"{_who(fd)} has been writing {display} for more than {wait_s:g}s; nothing "
                                     f"was written. Try again when it has finished (its lock: {path})") from None
            if give_up is None:
                time.sleep(_POLL_S)
            elif give_up.wait(_POLL_S):
                raise WritebackError(f"stopped waiting for {_who(fd)} to finish writing {display}: workbench is "
                                     "closing; nothing was written") from None


def _who(fd: int) -> str:
    holder = _holder(fd)
    return f"another workbench ({holder})" if holder else "another workbench"


@contextlib.contextmanager
def writing_lock(root: Path, target: Path, display: str, *, wait_s: float = WAIT_S) -> Iterator[None]:
    """Hold the write lock of eval set `target` for the block; wait up to `wait_s` for another writer.

    Raises WritebackError (nothing written) when the other writer keeps it longer than that."""
    if fcntl is None:
        yield
        return
    path = lock_path(root, target)
    fd = _open(path)
    if fd is None:
        yield
        return
    try:
        _take(fd, path, display, wait_s)
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
        yield
    finally:
        os.close(fd)  # releases the flock
