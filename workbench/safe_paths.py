"""Walking, creating, clearing and writing inside a folder without following a link out of it.

`Path.resolve()` of a folder and a `startswith` check can't keep writes inside: the folder itself may
be a link (`ln -s ~/notes .workbench/replays`), and whatever the check saw can be swapped for a link
before the write. So these helpers walk one name at a time from a descriptor of the starting folder
(`os.open(name, O_DIRECTORY | O_NOFOLLOW, dir_fd=...)`), create folders and files relative to the
descriptor they just opened (`os.mkdir(name, dir_fd=...)`, `O_CREAT | O_EXCL | O_NOFOLLOW`) and clear
a tree with `shutil.rmtree(name, dir_fd=...)`, which never follows a link either. A link on the way is
refused with `UnsafePath`, an `OSError` whose message names the link and where it points.

`outside_reason` is the read-only check for a path a settings file names (a baseline): `None` when it
is inside the project, reached without a link and without `..`.

Workbench's state (`.workbench/` and everything in it) is this user's only: its folders are made 0700 and
its files 0600 whatever the umask (`private=True`, `real_folder`, `private_file`, `open_private`), and a
looser folder or file left by an older version is tightened when it is next used. The state holds what the
targets printed, snapshots of the project's files and the judge's answers: nothing another local user
should read.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import stat
from collections.abc import Sequence
from pathlib import Path

from .regular_files import special_kind

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
FOLDER_FLAGS = os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC
NEW_FILE_MODE = 0o644
PRIVATE_FOLDER_MODE = 0o700  # a folder of workbench's state: this user's only
PRIVATE_FILE_MODE = 0o600  # a file of workbench's state


class UnsafePath(OSError):
    """A path workbench will not follow or write: a link, or something that is not what it should be."""

    def __init__(self, message: str) -> None:
        super().__init__(errno.ELOOP, message)

    def __str__(self) -> str:
        return self.strerror or ""


def link_target(parent_fd: int, name: str) -> str:
    """Where the link `name` points, for a message ("?" when it can't be read)."""
    try:
        return os.readlink(name, dir_fd=parent_fd)
    except OSError:
        return "?"


def _kind(mode: int) -> str:
    special = special_kind(mode)
    return "a file" if stat.S_ISREG(mode) else special[1] if special else "not a folder"


def _lstat_at(parent_fd: int, name: str) -> os.stat_result | None:
    try:
        return os.stat(name, dir_fd=parent_fd, follow_symlinks=False)
    except FileNotFoundError:
        return None


def _not_a(wanted: str, parent_fd: int, name: str, info: os.stat_result, shown: str) -> UnsafePath:
    """The refusal for `info` standing at `name` where a `wanted` ("folder", "file") should be."""
    if stat.S_ISLNK(info.st_mode):
        return UnsafePath(f"{shown} is a link to {link_target(parent_fd, name)}; workbench does not follow links "
                          f"in its own folders (it would write or delete outside them): remove the link "
                          f"(rm {shown}) and run again")
    what = "a folder" if stat.S_ISDIR(info.st_mode) else _kind(info.st_mode)
    return UnsafePath(f"{shown} is {what}, not a {wanted}; workbench does not use it: move it away and run again")


def _check_name(name: str) -> None:
    if not name or name in (".", "..") or "/" in name or "\x00" in name:
        raise UnsafePath(f"{name!r} is not a single file or folder name")


def tighten(fd: int, mode: int) -> bool:
    """Take from the file or folder open at `fd` every permission bit `mode` does not grant (a state folder
    an older version made 0755 becomes 0700); whether it took any. Nothing changes when it is not this
    user's or can't be changed (a filesystem without modes): the bits were never workbench's to set there."""
    fchmod = getattr(os, "fchmod", None)  # not on Windows before Python 3.13: no POSIX modes to set there
    try:
        info = os.fstat(fd)
        current = stat.S_IMODE(info.st_mode)
        if fchmod is None or not current & ~mode or info.st_uid != os.geteuid():
            return False
        fchmod(fd, current & mode)
    except OSError:
        return False
    return True


def _tighten_tree(folder_fd: int) -> None:
    """Every folder (0700) and file (0600) under `folder_fd`, never through a link: the state folder an
    older version left readable, made this user's only on its first use by this one."""
    for _, folders, files, fd in os.fwalk(".", dir_fd=folder_fd, follow_symlinks=False):
        for name, mode in [*((name, PRIVATE_FOLDER_MODE) for name in folders),
                           *((name, PRIVATE_FILE_MODE) for name in files)]:
            try:
                entry = os.open(name, os.O_RDONLY | _NONBLOCK | _NOFOLLOW | _CLOEXEC, dir_fd=fd)
            except OSError:
                continue  # a link, a socket, gone: nothing of workbench's to tighten
            try:
                kind = os.fstat(entry).st_mode
                if stat.S_ISDIR(kind) or stat.S_ISREG(kind):
                    tighten(entry, mode)
            finally:
                os.close(entry)


def open_folder_at(parent_fd: int, name: str, shown: str, *, create: bool, private: bool = False) -> int:
    """A descriptor on the folder `name` in `parent_fd`, never through a link; created (when `create`)
    only after what is there was checked. FileNotFoundError when it is missing and not created.
    `private`: a folder of workbench's state, made (or tightened to) 0700."""
    _check_name(name)
    for _ in range(2):
        try:
            fd = os.open(name, FOLDER_FLAGS, dir_fd=parent_fd)
        except FileNotFoundError:
            if not create:
                raise
        except OSError as exc:
            if exc.errno not in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
                raise
            info = _lstat_at(parent_fd, name)
            if info is None or stat.S_ISDIR(info.st_mode):
                raise
            raise _not_a("folder", parent_fd, name, info, shown) from None
        else:
            if private and tighten(fd, PRIVATE_FOLDER_MODE):
                _tighten_tree(fd)  # left open by an older version: what is inside was made under it
            return fd
        with contextlib.suppress(FileExistsError):  # made meanwhile (another row, or a link): checked when opened
            os.mkdir(name, PRIVATE_FOLDER_MODE if private else 0o777, dir_fd=parent_fd)
    raise FileNotFoundError(errno.ENOENT, f"{shown} vanished while it was created")


def open_folder(root: Path, parts: Sequence[str], *, create: bool, private: bool = False) -> int:
    """A descriptor on `root/parts[0]/parts[1]/...`, walking one name at a time without following a
    link (`root` itself is the user's and is opened as given; with `private`, every folder of `parts` is
    made or tightened to 0700). The caller closes it."""
    fd = os.open(root, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
    shown = root
    try:
        for part in parts:
            shown = shown / part
            next_fd = open_folder_at(fd, part, str(shown), create=create, private=private)
            os.close(fd)
            fd = next_fd
    except BaseException:
        os.close(fd)
        raise
    return fd


def remove_tree_at(parent_fd: int, name: str, shown: str) -> None:
    """Remove the folder `name` of `parent_fd` and everything in it, deleting links inside as links
    (never what they point to); nothing when it is absent. UnsafePath when `name` itself is a link or
    not a folder: that is not workbench's to delete."""
    _check_name(name)
    info = _lstat_at(parent_fd, name)
    if info is None:
        return
    if not stat.S_ISDIR(info.st_mode):
        raise _not_a("folder", parent_fd, name, info, shown)
    shutil.rmtree(name, dir_fd=parent_fd)  # checks again on the descriptor it opens: a link swapped in is refused


def write_file_at(folder_fd: int, name: str, data: bytes, shown: str, *, mode: int = NEW_FILE_MODE) -> None:
    """Make `name` in `folder_fd` a new file holding `data`. A file already there is unlinked first and
    a new one created (O_EXCL | O_NOFOLLOW), so a second hard link to someone's file left at that name
    never carries the write there; a link or a folder there is refused (UnsafePath)."""
    _check_name(name)
    info = _lstat_at(folder_fd, name)
    if info is not None:
        if stat.S_ISDIR(info.st_mode) or stat.S_ISLNK(info.st_mode):
            raise _not_a("file", folder_fd, name, info, shown)
        os.unlink(name, dir_fd=folder_fd)  # a file (maybe a hard link), a FIFO...: only the name goes
    fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, mode, dir_fd=folder_fd)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)


def open_private(path: Path | str, flags: int, *, create: bool = True) -> int:
    """`os.open(path, flags)` for a file of workbench's state: created 0600 (when `create`), an existing one
    tightened to 0600, never through a link at its last name (its folder comes from `real_folder`); a link,
    a FIFO or a folder there is refused (UnsafePath)."""
    extra = os.O_CREAT if create else 0
    try:
        fd = os.open(path, flags | extra | _NONBLOCK | _NOFOLLOW | _CLOEXEC, PRIVATE_FILE_MODE)
    except OSError as exc:
        if exc.errno not in (errno.ELOOP, errno.EISDIR, errno.ENXIO, errno.EMLINK):
            raise
        folder = os.open(os.path.dirname(os.path.abspath(path)), FOLDER_FLAGS)
        try:
            info = _lstat_at(folder, os.path.basename(path))
            if info is None:
                raise
            raise _not_a("file", folder, os.path.basename(path), info, str(path)) from None
        finally:
            os.close(folder)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UnsafePath(f"{path} is {_kind(info.st_mode)}, not a file; workbench does not use it: move it "
                             "away and run again")
        tighten(fd, PRIVATE_FILE_MODE)  # O_NONBLOCK (a FIFO never blocks the open) means nothing to a file
    except BaseException:
        os.close(fd)
        raise
    return fd


def private_file(path: Path | str, *, create: bool = True) -> None:
    """Make the state file `path` 0600 (created empty when missing and `create`; nothing when it is missing
    and not). A SQLite database is made so before it is opened: SQLite creates one 0644 and gives its
    -wal/-shm/-journal files the database's mode."""
    try:
        os.close(open_private(path, os.O_RDONLY, create=create))
    except FileNotFoundError:
        if create:
            raise


SQLITE_SIDECARS = ("-wal", "-shm", "-journal")


def private_database(path: Path) -> None:
    """Before SQLite opens the database at `path`: it and the sidecars an older version left are 0600,
    its folder a state folder (`real_folder`)."""
    real_folder(path.parent)
    private_file(path)
    for suffix in SQLITE_SIDECARS:
        private_file(f"{path}{suffix}", create=False)


def outside_reason(root: Path, path: Path) -> str | None:
    """Why `path` is not a place inside the project at `root` (absolute elsewhere, `..`, or reached
    through a link, the file itself included); None when it is inside."""
    relative: Path | None = None
    for base in (root, Path(os.path.abspath(root)), Path(os.path.realpath(root))):
        try:
            relative = path.relative_to(base)
            root = base
            break
        except ValueError:
            continue
    if relative is None:
        return "is outside the project"
    if ".." in relative.parts:
        return "leads out of the project ('..')"
    if not relative.parts:
        return "is the project folder itself, not a file in it"
    current = root
    for part in relative.parts:
        current = current / part
        try:
            info = current.lstat()
        except FileNotFoundError:
            return None  # created when written, by a walk that starts inside
        except OSError as exc:
            return f"can't be checked ({current}: {exc.strerror or exc})"
        if stat.S_ISLNK(info.st_mode):
            try:
                target = os.readlink(current)
            except OSError:
                target = "?"
            return f"goes through a link ({current} -> {target})"
    return None


__all__ = ["PRIVATE_FILE_MODE", "PRIVATE_FOLDER_MODE", "UnsafePath", "link_target", "open_folder", "open_folder_at",
           "open_private", "outside_reason", "private_database", "private_file", "real_folder", "remove_tree_at",
           "tighten", "write_file_at"]


def real_folder(folder: Path, state_name: str = ".workbench") -> Path:
    """`folder`, made if missing. Inside a project's state folder (`.workbench`, `.workbench/locks`) every
    name from the project root down is checked to be a real folder, not a link: workbench's own files
    are written only inside the project, so `ln -s ~/notes .workbench` is an UnsafePath naming the link,
    never followed. Those folders, `.workbench` itself included, are made or tightened to 0700. Other
    folders (a test's history file elsewhere) are simply made."""
    parts = folder.parts
    if state_name not in parts:
        folder.mkdir(parents=True, exist_ok=True)
        return folder
    at = len(parts) - 1 - parts[::-1].index(state_name)
    os.close(open_folder(Path(*parts[:at]), parts[at:], create=True, private=True))
    return folder
