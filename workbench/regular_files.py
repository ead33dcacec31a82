"""Reading a file workbench did not write, without trusting what sits at its path.

A path can name a FIFO (reading blocks until someone writes, maybe forever), a device (`/dev/zero`
never ends) or a file that grows while it is read. So the file is opened without blocking, checked to
be a regular file on the opened descriptor (no race between the check and the read), and read only up
to a size limit. The refusals are `OSError`s whose `strerror` says what is wrong, so callers that
already report "cannot read X: <strerror>" need no change.
"""

from __future__ import annotations

import errno
import io
import os
import stat
from pathlib import Path

_CHUNK = 1 << 20


class UnreadableFile(OSError):
    """The path is not a regular file, or is larger than workbench reads."""


# What a path that is neither a regular file nor a folder is: (a tag for fingerprints, words for errors).
_SPECIAL_KINDS = ((stat.S_ISFIFO, "fifo", "a named pipe (FIFO)"), (stat.S_ISSOCK, "socket", "a socket"),
                  (stat.S_ISCHR, "device", "a device"), (stat.S_ISBLK, "device", "a device"))


def special_kind(mode: int) -> tuple[str, str] | None:
    """(tag, words) of a FIFO, socket or device; None for anything else (a file, a folder, a link)."""
    return next(((tag, words) for test, tag, words in _SPECIAL_KINDS if test(mode)), None)


def _kind(mode: int) -> str:
    special = special_kind(mode)
    return "a folder" if stat.S_ISDIR(mode) else special[1] if special else "not a regular file"


def _too_large(limit: int) -> UnreadableFile:
    return UnreadableFile(errno.EFBIG, f"larger than {limit / 2**20:g} MiB, which is more than workbench reads")


def _open_regular(path: Path | str, follow_links: bool = True) -> tuple[int, os.stat_result]:
    """A descriptor on the regular file at `path`, opened without blocking, and its stat."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | (0 if follow_links else os.O_NOFOLLOW)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ENXIO:  # a socket, or a FIFO on some systems
            raise UnreadableFile(errno.ENXIO, "not a regular file (a socket or a pipe); not read") from None
        if exc.errno == errno.ELOOP and not follow_links:
            raise UnreadableFile(errno.ELOOP, "a symbolic link; not followed, not read") from None
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UnreadableFile(errno.EINVAL, f"{_kind(info.st_mode)}, not a regular file; not read")
    except BaseException:
        os.close(fd)
        raise
    return fd, info


def open_regular(path: Path | str) -> io.BufferedReader:
    """`open(path, "rb")`, refusing (UnreadableFile) anything but a regular file, without blocking on a FIFO."""
    fd, _ = _open_regular(path)
    return os.fdopen(fd, "rb")


def read_regular_file(path: Path | str, limit: int, *, follow_links: bool = True) -> bytes:
    """The bytes of the regular file at `path` (symlinks followed unless `follow_links` is False: then a link
    there is refused), at most `limit` of them.

    Raises FileNotFoundError when there is nothing there, UnreadableFile when it is not a regular file
    or holds more than `limit` bytes, and other OSErrors as `open` does."""
    fd, info = _open_regular(path, follow_links)
    try:
        if info.st_size > limit:
            raise _too_large(limit)
        chunks: list[bytes] = []
        size = 0
        while True:
            chunk = os.read(fd, min(_CHUNK, limit + 1 - size))
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:  # it grew while being read
                raise _too_large(limit)
    finally:
        os.close(fd)


def read_regular_text(path: Path | str, limit: int) -> str:
    """`read_regular_file` decoded as UTF-8 (UnicodeDecodeError when it is not)."""
    return read_regular_file(path, limit).decode("utf-8")
