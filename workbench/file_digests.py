"""Content digests of files, remembered by their stat so an unchanged file is not read again.

A remembered digest is trusted only while the file's size, mtime, ctime, inode and device are the ones
it was hashed with, and only when the file was last changed well before it was hashed (git's racy-index
rule): a file written in the same timestamp tick as its hashing could change again without its mtime
moving, so it is hashed by content next time. `touch -r` can put an old mtime back but not an old
ctime, so a same-size edit disguised that way is still seen.

Only regular files are ever opened (without blocking, so a FIFO can't hang a fingerprint); links are
described by their target, special files by their type. The memory lives in
`.workbench/fingerprints.json` between processes and in the `FileDigests` object within one.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
import time
from pathlib import Path
from typing import Any

from . import jsonio
from .regular_files import UnreadableFile, open_regular, special_kind
from .safe_paths import real_folder
from .writeback.atomic import write_atomically

CACHE_FILE = "fingerprints.json"
# Timestamps closer than this to the moment of hashing make a digest "racy" (not trusted by stat next
# time). Two seconds covers the coarsest timestamps in use (FAT, SMB) and clocks a little apart (NFS).
RACY_NS = 2_000_000_000
_MAX_CACHE_BYTES = 256 * 2**20

MISSING = "missing"


def stat_key(info: os.stat_result) -> tuple[int, int, int, int, int]:
    """What must stay the same for a remembered digest to hold."""
    return (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_dev)


def changed_since(info: os.stat_result, moment_ns: int) -> bool:
    """Whether the file may have changed at or after `moment_ns` (allowing for timestamp granularity)."""
    return max(info.st_mtime_ns, info.st_ctime_ns) >= moment_ns - RACY_NS


def key_changed_since(stamp: tuple[int, int, int, int, int], moment_ns: int) -> bool:
    """`changed_since` for a file known by its `stat_key`."""
    _size, mtime_ns, ctime_ns, _inode, _device = stamp
    return max(mtime_ns, ctime_ns) >= moment_ns - RACY_NS


def _special(mode: int) -> str:
    special = special_kind(mode)
    return f"special:{special[0] if special else 'other'}"


class FileDigests:
    """Digests of files by path, with the stat cache. Not thread-safe: one iteration uses it at a time."""

    def __init__(self, state_dir: Path | None) -> None:
        self.cache_path = state_dir / CACHE_FILE if state_dir is not None else None
        self._known: dict[str, list[Any]] | None = None
        self._used: dict[str, list[Any]] = {}
        self._dirty = False
        self.hashed = 0  # files read for their content since this object was made (for benchmarks and tests)

    def _memory(self) -> dict[str, list[Any]]:
        if self._known is None:
            self._known = {}
            if self.cache_path is not None:
                try:
                    if self.cache_path.stat().st_size <= _MAX_CACHE_BYTES:
                        with open_regular(self.cache_path) as handle:
                            doc = jsonio.loads(handle.read())
                        if isinstance(doc, dict):
                            self._known = doc
                except (OSError, jsonio.JsonError):
                    pass  # a cache: without it everything is hashed once more
        return self._known

    def file(self, path: Path | str, info: os.stat_result | None = None) -> str:
        """The digest of what a program opening `path` reads (links followed): its content for a regular
        file, its listing for a folder, else what it is."""
        name = os.fspath(path)
        try:
            info = info if info is not None else os.stat(name)
        except OSError as exc:
            return MISSING if exc.errno in (errno.ENOENT, errno.ENOTDIR) else f"unreadable:{exc.errno}"
        if stat.S_ISDIR(info.st_mode):
            return self.listing(name)
        if not stat.S_ISREG(info.st_mode):
            return _special(info.st_mode)
        return self._content(name, info)

    def entry(self, path: Path) -> str:
        """The digest of a project path as it sits there (a link is its target, and the content behind it
        when that is a regular file; a link to a folder is not followed)."""
        try:
            info = os.lstat(path)
        except OSError:
            return MISSING
        if stat.S_ISLNK(info.st_mode):
            try:
                target = os.readlink(path)
            except OSError:
                return "link:?"
            try:
                behind = os.stat(path)
            except OSError:
                return f"link:{target}"
            if stat.S_ISREG(behind.st_mode):
                return f"link:{target}:{self._content(os.fspath(path), behind)}"
            return f"link:{target}:{'dir' if stat.S_ISDIR(behind.st_mode) else _special(behind.st_mode)}"
        if stat.S_ISREG(info.st_mode):
            return self._content(os.fspath(path), info)
        if stat.S_ISDIR(info.st_mode):
            return self.listing(os.fspath(path))
        return _special(info.st_mode)

    def stat_of(self, path: Path | str) -> os.stat_result | None:
        try:
            return os.stat(path)
        except OSError:
            return None

    @staticmethod
    def listing(folder: str) -> str:
        """A folder's names (what `os.listdir` gives a program), not its files' contents."""
        try:
            names = sorted(os.listdir(folder))
        except OSError as exc:
            return f"unreadable:{exc.errno}"
        digest = hashlib.sha256()
        for name in names:
            digest.update(name.encode("utf-8", "surrogateescape") + b"\0")
        return "dir:" + digest.hexdigest()

    def _content(self, name: str, info: os.stat_result) -> str:
        key = list(stat_key(info))
        known = self._memory().get(name)
        if (isinstance(known, list) and len(known) == 7 and known[:5] == key
                and isinstance(known[6], int) and not changed_since(info, known[6])):
            self._used[name] = known
            return str(known[5])
        hashed_at = time.time_ns()
        try:
            with open_regular(name) as handle:
                content = hashlib.file_digest(handle, "sha256").hexdigest()
        except UnreadableFile as exc:
            return f"unreadable:{exc.strerror}"
        except OSError as exc:
            return MISSING if exc.errno == errno.ENOENT else f"unreadable:{exc.errno}"
        self.hashed += 1
        entry = [*key, content, hashed_at]
        self._memory()[name] = entry
        self._used[name] = entry
        self._dirty = True
        return content

    def save(self) -> None:
        """Remember the digests used since the last save for the next process (what was not used is
        dropped, so the file never grows past the project)."""
        if self.cache_path is None or not self._dirty:
            return
        self._dirty = False
        try:
            real_folder(self.cache_path.parent)
            write_atomically(self.cache_path, jsonio.dumps(self._used).encode("utf-8", "surrogatepass"), private=True)
        except OSError:
            pass  # a cache: without it the next run hashes again
