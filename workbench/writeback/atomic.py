"""Replace a file's bytes so that a crash or a concurrent writer can never cost the user an edit.

The new bytes go to a hidden temp file in the same folder (same filesystem, so the rename is atomic),
are fsynced, and get the old file's permission bits. Just before the rename the file is read again:
if it no longer holds the bytes the edit was made from, someone else wrote it, so the temp file is
dropped and ConcurrentChange raised; the caller re-reads and patches the new text, or gives up.
There is no portable lock on a plain file, so a writer landing in the microseconds between that
last read and the rename could still be overwritten; everything else is detected.

A workbench killed mid-write (SIGKILL, a power cut) leaves the file whole (old or new bytes) and, at
worst, its temp file; the temp name carries the writer's pid, and the next write to that file removes
temp files whose writer is gone.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path

from .errors import ConcurrentChange, WritebackError

TEMP_SUFFIX = ".workbench-tmp"


def read_bytes(path: Path, limit: int) -> bytes:
    try:
        size = path.stat().st_size
        if size > limit:
            raise WritebackError(f"{path.name} is {size / 1e6:.0f} MB; files that large are not edited")
        return path.read_bytes()
    except FileNotFoundError:
        raise WritebackError(f"{path} no longer exists; nothing written") from None
    except OSError as exc:
        raise WritebackError(f"cannot read {path}: {exc.strerror or exc}") from None


def _fsync_folder(folder: Path) -> None:
    """Make the rename itself durable (where the platform allows opening a folder)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)


def _remove_stale_temps(path: Path) -> None:
    """Temp files of earlier writes to `path` whose writing process no longer exists."""
    prefix = f".{path.name}."
    try:
        candidates = [entry for entry in path.parent.iterdir()
                      if entry.name.startswith(prefix) and entry.name.endswith(TEMP_SUFFIX)]
    except OSError:
        return
    for entry in candidates:
        pid_text = entry.name[len(prefix):].split(".", 1)[0]
        if not pid_text.isdigit() or int(pid_text) == os.getpid():
            continue
        try:
            os.kill(int(pid_text), 0)
        except ProcessLookupError:
            with contextlib.suppress(OSError):
                entry.unlink()
        except OSError:
            pass  # alive (perhaps someone else's): leave it


def replace_atomically(path: Path, data: bytes, expected: bytes, *,
                       before_rename: Callable[[], None] | None = None) -> None:
    """Make `path` hold `data`, provided it still holds `expected`; otherwise ConcurrentChange.

    `before_rename` runs after the temp file is durable and before the final check (fault-injection
    tests use it to play the concurrent writer).
    """
    folder = path.parent
    _remove_stale_temps(path)
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
        fd, temp_name = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}.", suffix=TEMP_SUFFIX, dir=folder)
    except OSError as exc:
        raise WritebackError(f"cannot write in {folder}: {exc.strerror or exc}") from None
    temp = Path(temp_name)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, mode)
        if before_rename is not None:
            before_rename()
        try:
            current = path.read_bytes()
        except FileNotFoundError:
            raise ConcurrentChange(f"{path.name} was deleted while writing; nothing written") from None
        if current != expected:
            raise ConcurrentChange(f"{path.name} changed on disk while writing; its new content was kept")
        os.replace(temp, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            temp.unlink()
        if isinstance(exc, OSError):
            raise WritebackError(f"cannot write {path}: {exc.strerror or exc}; the file is unchanged") from None
        raise
    _fsync_folder(folder)
