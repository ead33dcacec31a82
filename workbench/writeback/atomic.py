"""Replace a file's bytes so that a crash or a concurrent writer can never cost the user an edit.
The one atomic file writer: the eval-set write-backs use `replace_atomically`, the baseline
`write_atomically`.

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
NEW_FILE_MODE = 0o644  # a file workbench creates: readable by all, like one written by an editor


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


def _durable_temp(path: Path, data: bytes, mode: int) -> Path:
    """A hidden temp file beside `path` holding `data`, fsynced, with permission bits `mode`.
    Raises OSError, leaving no temp file behind."""
    fd, temp_name = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}.", suffix=TEMP_SUFFIX, dir=path.parent)
    temp = Path(temp_name)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, mode)
    except BaseException:
        with contextlib.suppress(OSError):
            temp.unlink()
        raise
    return temp


def write_atomically(path: Path, data: bytes, *, new_mode: int = NEW_FILE_MODE) -> None:
    """Make `path` hold `data`, whole or not at all, whatever it held before (or create it with
    `new_mode`). For workbench's own files (the baseline), where no one else's edit can be lost.
    Raises OSError when it can't; the old file and no temp file are left."""
    _remove_stale_temps(path)
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        mode = new_mode
    temp = _durable_temp(path, data, mode)
    try:
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            temp.unlink()
        raise
    _fsync_folder(path.parent)


def replace_atomically(path: Path, data: bytes, expected: bytes, *,
                       before_rename: Callable[[], None] | None = None) -> None:
    """Make `path` hold `data`, provided it still holds `expected`; otherwise ConcurrentChange.

    `before_rename` runs after the temp file is durable and before the final check (fault-injection
    tests use it to play the concurrent writer).
    """
    folder = path.parent
    _remove_stale_temps(path)
    try:
        temp = _durable_temp(path, data, stat.S_IMODE(path.stat().st_mode))
    except OSError as exc:
        raise WritebackError(f"cannot write in {folder}: {exc.strerror or exc}") from None
    try:
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
