"""What of the project folder is shipped to a Ray cluster, packed as the zip Ray unpacks as the working
directory of every task and actor. No Ray here: `shipping.py` uploads the bytes.

Never shipped, whatever the settings say:
- secrets: `.appilotsrc`, `.env` and `.env.*` (at any depth);
- workbench's state, version control, virtualenvs (any folder holding `pyvenv.cfg`), `node_modules/`
  and tools' caches (`ALWAYS_LEFT_OUT`);
- anything that is not a regular file or a folder: FIFOs (opening one blocks until someone writes),
  sockets, devices, and links to them;
- links that lead outside the project (they are not followed; a link inside it is shipped as what it
  points to, a link looping back to a folder above it is left out).

Left out unless the runner's command names the file: what the project's `.gitignore` files ignore
(gitignore rules, by `pathspec`, nested `.gitignore`s and `.git/info/exclude` included; a `.gitignore`
outside the project, or git's global excludes, are not read), `[watch] ignore` and `[cluster]
ship_ignore` (gitignore-style patterns relative to the project root).

The walk never follows a link it hasn't checked, opens files without blocking and checks on the opened
descriptor that it is a regular file, so a file swapped for a FIFO or a link between the walk and the
read is skipped, not obeyed.
"""

from __future__ import annotations

import errno
import hashlib
import io
import os
import stat
import zipfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pathspec

from ..config import STATE_DIR, Config
from ..regular_files import read_regular_file

SECRETS = (".appilotsrc", ".env", ".env.*")
ALWAYS_LEFT_OUT = (
    *SECRETS, f"/{STATE_DIR}/", ".git/", ".hg/", ".svn/", ".jj/", ".venv/", "venv/", "node_modules/", "__pycache__/",
    ".tox/", ".nox/", ".mypy_cache/", ".pytest_cache/", ".ruff_cache/", ".hypothesis/", "*.pyc",
)
_IGNORE_FILE_LIMIT = 1 << 20  # a .gitignore larger than this is not one
_STAMP = (1980, 1, 1, 0, 0, 0)  # every entry's time in the zip: the same files give the same bytes


class PackingError(Exception):
    """The project can't be packed (a file can't be read, the folder is too large); the message names it."""


@dataclass(frozen=True, slots=True)
class Entry:
    """One path of the package: a file read from `source`, or an empty folder."""

    rel: str  # posix, relative to the project root: where the workers find it
    source: str  # what is read (a link's real target for a link inside the project)
    mode: int
    size: int
    folder: bool = False


@dataclass(slots=True)
class _Ignores:
    """The gitignore rules in force at one folder: the fixed ones and each `.gitignore` above it."""

    always: pathspec.PathSpec  # never shipped
    settings: pathspec.PathSpec  # [watch] ignore and [cluster] ship_ignore: no .gitignore brings them back
    git: list[tuple[str, pathspec.PathSpec]] = field(default_factory=list)  # (folder prefix, its rules)

    def always_out(self, rel: str, folder: bool) -> bool:
        return self.always.match_file(rel + "/" if folder else rel)

    def user_out(self, rel: str, folder: bool) -> bool:
        path = rel + "/" if folder else rel
        if self.settings.match_file(path):
            return True
        verdict = False
        for prefix, spec in self.git:  # .git/info/exclude, then each .gitignore down to the deepest: the last word wins
            if path.startswith(prefix):
                result = spec.check_file(path[len(prefix):]).include
                if result is not None:
                    verdict = result
        return verdict


def _spec(lines: Iterable[str]) -> pathspec.PathSpec:
    return pathspec.GitIgnoreSpec.from_lines(list(lines))


def _read_ignore_file(path: str) -> list[str] | None:
    try:
        return read_regular_file(path, _IGNORE_FILE_LIMIT).decode("utf-8", errors="replace").splitlines()
    except OSError:  # none there, a FIFO, too large: no rules from it
        return None


def named_paths(config: Config) -> set[str]:
    """Project-relative files the runner's command names (`dist/agent.py`): shipped even when ignored."""
    root = os.path.realpath(config.root)
    named: set[str] = set()
    for arg in [*(config.runner.command or []), *(config.runner.uip or [])]:
        if not arg or "{" in arg or arg.startswith("-"):
            continue
        path = os.path.realpath(os.path.join(root, arg))
        if path.startswith(root + os.sep) and os.path.isfile(path):
            named.add(Path(os.path.relpath(path, root)).as_posix())
    return named


class _Walk:
    def __init__(self, config: Config, *, with_secrets: bool = False) -> None:
        self.root = os.path.realpath(config.root)
        self.named = named_paths(config)
        exclude = _read_ignore_file(os.path.join(self.root, ".git", "info", "exclude")) or []
        always = [pattern for pattern in ALWAYS_LEFT_OUT if not (with_secrets and pattern in SECRETS)]
        self.ignores = _Ignores(_spec(always), _spec([*config.watch.ignore, *config.cluster.ship_ignore]),
                                [("", _spec(exclude))])
        self.entries: list[Entry] = []

    def inside(self, real: str) -> bool:
        return real == self.root or real.startswith(self.root + os.sep)

    def named_below(self, rel: str) -> bool:
        prefix = rel + "/"
        return any(name.startswith(prefix) for name in self.named)

    def folder(self, path: str, rel: str, ancestors: frozenset[str], named_only: bool) -> tuple[int, bool]:
        """Add the folder's entries: how many were added, and whether the folder holds nothing at all."""
        lines = _read_ignore_file(os.path.join(path, ".gitignore"))
        pushed = lines is not None
        if pushed:
            self.ignores.git.append((rel + "/" if rel else "", _spec(lines or [])))
        try:
            try:
                with os.scandir(path) as listing:
                    children = sorted(listing, key=lambda child: child.name)
            except OSError as exc:
                raise PackingError(f"cannot list {path}: {exc.strerror or exc}") from None
            added = sum(self.child(child, f"{rel}/{child.name}" if rel else child.name, ancestors, named_only)
                        for child in children)
        finally:
            if pushed:
                self.ignores.git.pop()
        return added, not children

    def child(self, child: os.DirEntry[str], rel: str, ancestors: frozenset[str], named_only: bool) -> int:
        try:
            info = child.stat(follow_symlinks=False)
            source = child.path
            if stat.S_ISLNK(info.st_mode):
                source = os.path.realpath(child.path)
                if not self.inside(source):
                    return 0  # never followed out of the project
                info = os.stat(source)
        except OSError:  # gone since it was listed, or a dangling link
            return 0
        folder = stat.S_ISDIR(info.st_mode)
        if not folder and not stat.S_ISREG(info.st_mode):
            return 0  # a FIFO, socket or device (or a link to one)
        if self.ignores.always_out(rel, folder) or (folder and _is_virtualenv(source)):
            return 0
        user_out = named_only or self.ignores.user_out(rel, folder)
        if folder:
            real = os.path.realpath(source)
            if real in ancestors:
                return 0  # a link back to a folder above: following it would never end
            if user_out and not self.named_below(rel):
                return 0
            added, empty = self.folder(source, rel, ancestors | {real}, user_out)
            if empty and not user_out:  # a folder the target may write into: it exists on the workers too
                self.entries.append(Entry(rel, source, stat.S_IMODE(info.st_mode), 0, folder=True))
                return 1
            return added
        if user_out and rel not in self.named:
            return 0
        self.entries.append(Entry(rel, source, stat.S_IMODE(info.st_mode), info.st_size))
        return 1


def _is_virtualenv(folder: str) -> bool:
    return os.path.isfile(os.path.join(folder, "pyvenv.cfg"))


def shipped_entries(config: Config, *, with_secrets: bool = False) -> list[Entry]:
    """What `pack` puts in the package for this project, in the package's order. `with_secrets`: `.env*`
    and `.appilotsrc` too, for the snapshots, which note their changes by digest (never for packing)."""
    walk = _Walk(config, with_secrets=with_secrets)
    walk.folder(walk.root, "", frozenset({walk.root}), named_only=False)
    return walk.entries


def pack(entries: list[Entry], limit: int) -> bytes:
    """The zip of `entries` (the same bytes for the same files), at most `limit` bytes of content."""
    total = sum(entry.size for entry in entries)
    if total > limit:
        biggest = ", ".join(f"{entry.rel} ({entry.size / 2**20:.1f} MiB)"
                            for entry in sorted(entries, key=lambda entry: -entry.size)[:3])
        raise PackingError(f"the project holds {total / 2**20:.1f} MiB to ship, more than the {limit / 2**20:g} MiB "
                           f"Ray takes (the largest: {biggest}); leave files out with [cluster] ship_ignore")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        for entry in entries:
            if entry.folder:
                info = zipfile.ZipInfo(entry.rel + "/", _STAMP)
                info.external_attr = (stat.S_IFDIR | entry.mode) << 16
                archive.writestr(info, b"")
                continue
            data = _read(entry, limit)
            if data is None:
                continue
            info = zipfile.ZipInfo(entry.rel, _STAMP)
            info.external_attr = (stat.S_IFREG | entry.mode) << 16
            archive.writestr(info, data)
    return buffer.getvalue()


def _read(entry: Entry, limit: int) -> bytes | None:
    """The file's bytes; None when it is no longer a regular file (gone, or swapped for a link or a FIFO)."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(entry.source, flags)
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ELOOP, errno.ENXIO, errno.ENOTDIR):
            return None
        raise PackingError(f"cannot read {entry.source}: {exc.strerror or exc}; leave it out with "
                           "[cluster] ship_ignore") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        chunks = list(_chunks(fd, limit + 1))
    except OSError as exc:
        raise PackingError(f"cannot read {entry.source}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > limit:
        raise PackingError(f"{entry.source} grew past {limit / 2**20:g} MiB while it was packed")
    return data


def _chunks(fd: int, most: int) -> Iterator[bytes]:
    read = 0
    while read < most and (chunk := os.read(fd, min(1 << 20, most - read))):
        read += len(chunk)
        yield chunk


def package_uri(data: bytes) -> str:
    """The content-addressed name Ray gives a package (`gcs://_ray_pkg_<sha1>.zip`): the cluster keeps
    one copy per content, so an unchanged project is not uploaded again."""
    return f"gcs://_ray_pkg_{hashlib.sha1(data).hexdigest()}.zip"
