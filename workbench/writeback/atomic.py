"""Replace a file's bytes so that a crash or a concurrent writer can never cost the user an edit.
The one atomic file writer: the eval-set write-backs use `replace_atomically`, the baseline
`write_atomically`.

The new bytes go to a hidden temp file in the same folder (same filesystem, so the rename is atomic),
are fsynced, and get the old file's owner, group and permission bits. Just before the rename the file
is read again: if it no longer holds the bytes the edit was made from, someone else wrote it, so the
temp file is dropped and ConcurrentChange raised; the caller re-reads and patches the new text, or
gives up. Workbench's own writers also take turns through a lock (`lock.py`), so only a writer that
is not workbench (an editor) saving in the moment between that last read and the rename could still
be overwritten.

A rename gives the path a new file, so what can't be carried over is refused instead of lost: a
file with several hard links (the other links would keep the old content) and a file whose owner or
group this user can't give to the new file (it would silently become this user's) are not rewritten.

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

from ..regular_files import UnreadableFile, read_regular_file
from ..safe_paths import PRIVATE_FILE_MODE
from .errors import ConcurrentChange, WritebackError

TEMP_SUFFIX = ".workbench-tmp"
NEW_FILE_MODE = 0o644  # a file workbench creates: readable by all, like one written by an editor


def read_bytes(path: Path, limit: int) -> bytes:
    """The file's bytes, when it is a regular file of at most `limit` bytes; else WritebackError."""
    try:
        size = path.stat().st_size
        if size > limit:
            raise WritebackError(f"{path.name} is {size / 1e6:.0f} MB; files that large are not edited")
        return read_regular_file(path, limit)
    except FileNotFoundError:
        raise WritebackError(f"{path} no longer exists; nothing written") from None
    except OSError as exc:
        raise WritebackError(f"cannot read {path}: {exc.strerror or exc}") from None


def _owner_problem(info: os.stat_result) -> str | None:
    """Why a new file can't get `info`'s owner and group (None when it can)."""
    if os.geteuid() == 0:
        return None
    if info.st_uid != os.geteuid():
        return f"it is owned by another user (uid {info.st_uid}), and rewriting it would make it yours"
    if info.st_gid != os.getegid() and info.st_gid not in os.getgroups():
        return f"its group (gid {info.st_gid}) is not one of yours, and rewriting it would change its group"
    return None


def check_replaceable(path: Path, display: str) -> os.stat_result:
    """WritebackError (nothing written) when rewriting `path` would lose what a rename can't carry over:
    its other hard links, or an owner or group this user can't give to the new file."""
    try:
        info = path.stat()
    except FileNotFoundError:
        raise WritebackError(f"{path} no longer exists; nothing written") from None
    except OSError as exc:
        raise WritebackError(f"cannot read {path}: {exc.strerror or exc}") from None
    if info.st_nlink > 1:
        raise WritebackError(
            f"{display} has {info.st_nlink} hard links; writing it replaces the file, which would leave the other "
            "links holding the old content, so workbench does not write it. Edit it by hand, or make it a file of "
            "its own first (cp FILE FILE.copy && mv FILE.copy FILE)")
    problem = _owner_problem(info)
    if problem:
        raise WritebackError(f"{display}: {problem}; nothing written. Run workbench as its owner to write it")
    return info


def _keep_owner(temp: Path, info: os.stat_result) -> None:
    """Give the temp file the original's owner and group (before its mode: chown may clear setuid bits)."""
    current = temp.stat()
    if (current.st_uid, current.st_gid) != (info.st_uid, info.st_gid):
        os.chown(temp, info.st_uid, info.st_gid)


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


def _durable_temp(path: Path, data: bytes, mode: int, owner: os.stat_result | None = None) -> Path:
    """A hidden temp file beside `path` holding `data`, fsynced, with permission bits `mode` (and the
    owner and group of `owner`, when given). Raises OSError, leaving no temp file behind."""
    fd, temp_name = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}.", suffix=TEMP_SUFFIX, dir=path.parent)
    temp = Path(temp_name)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if owner is not None:
            _keep_owner(temp, owner)
        os.chmod(temp, mode)
    except BaseException:
        with contextlib.suppress(OSError):
            temp.unlink()
        raise
    return temp


def write_atomically(path: Path, data: bytes, *, new_mode: int = NEW_FILE_MODE, private: bool = False) -> None:
    """Make `path` hold `data`, whole or not at all, whatever it held before (or create it with
    `new_mode`). For workbench's own files (the baseline), where no one else's edit can be lost.
    `private`: a file of workbench's state (`.workbench/`), 0600 whatever mode the old one had.
    Raises OSError when it can't; the old file and no temp file are left."""
    _remove_stale_temps(path)
    owner: os.stat_result | None = None
    try:
        info = path.stat()
    except FileNotFoundError:
        mode = PRIVATE_FILE_MODE if private else new_mode
    else:
        mode = PRIVATE_FILE_MODE if private else stat.S_IMODE(info.st_mode)
        owner = info if _owner_problem(info) is None else None  # keep the owner where this user can
    temp = _durable_temp(path, data, mode, owner)
    try:
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            temp.unlink()
        raise
    _fsync_folder(path.parent)


def create_atomically(path: Path, data: bytes, *, mode: int = NEW_FILE_MODE) -> None:
    """Create `path` holding `data`, whole or not at all, never replacing a file (not even one that appeared
    meanwhile): FileExistsError when the name is taken. Raises OSError when it can't; no temp file is left."""
    _remove_stale_temps(path)
    temp = _durable_temp(path, data, mode)
    try:
        os.link(temp, path)  # fails if the name exists: never overwrites
    finally:
        with contextlib.suppress(OSError):
            temp.unlink()
    _fsync_folder(path.parent)


def replace_atomically(path: Path, data: bytes, expected: bytes, *,
                       before_rename: Callable[[], None] | None = None) -> None:
    """Make `path` hold `data`, provided it still holds `expected`; otherwise ConcurrentChange.

    `before_rename` runs after the temp file is durable and before the final check (fault-injection
    tests use it to play the concurrent writer).
    """
    folder = path.parent
    _remove_stale_temps(path)
    info = check_replaceable(path, path.name)
    try:
        temp = _durable_temp(path, data, stat.S_IMODE(info.st_mode), info)
    except OSError as exc:
        raise WritebackError(f"cannot write in {folder}: {exc.strerror or exc}") from None
    try:
        if before_rename is not None:
            before_rename()
        try:
            current = read_regular_file(path, max(len(expected), 1) * 2 + 2**20)
        except FileNotFoundError:
            raise ConcurrentChange(f"{path.name} was deleted while writing; nothing written") from None
        except UnreadableFile:  # replaced by something that is not a file, or grew past any likely edit
            raise ConcurrentChange(f"{path.name} changed on disk while writing; its new content was kept") from None
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


def create_new(path: Path, data: bytes, *, mode: int = NEW_FILE_MODE) -> bool:
    """Write `data` to `path` only if nothing is there (O_EXCL: no race with another writer), creating
    its folders. False when the file exists: starter files (`workbench init`) never overwrite."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    except FileExistsError:
        return False
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    return True
