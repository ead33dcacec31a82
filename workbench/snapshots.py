"""What the project's files were at each recorded iteration, so `workbench compare` can show the code diff
beside the rows it flipped.

Each recorded iteration stores the files that changed since the previous recorded one (the first stores
them all): a row `(iteration, path, sha256, size)` per change in the history database (`sha256` NULL: the
file went away), and each content once, zlib-compressed, as `.workbench/files/<sha256>.z`. A file's state at
iteration N is its newest change at or before N. Retention drops the changes of pruned iterations except
the newest of each path (the base later iterations are diffed against) and the blobs nothing names any
more; `[history] keep_files_mb` bounds the blobs (the content of older versions goes first, then the oldest
current ones: compare then says the content was not kept).

Which files: what would be shipped to a Ray cluster (`cluster/package.py`: nothing `.gitignore`d, no state,
virtualenvs, `node_modules`, FIFOs or devices) and `.env*`/`.appilotsrc`, less the eval files, the folders
holding them and the baseline file, and never through a link: a path reached through a symlink is left out,
and a file is read with O_NOFOLLOW and O_NONBLOCK and checked to be a regular file on its descriptor. A file
larger than `MAX_FILE_BYTES`, and a secret-looking one (`secret_files.py`: `.env*`, `secrets.*`, `*.pem`,
`id_rsa*`, `.npmrc`... and `[history] secret_files`), is noted as changed by its digest, its content never
kept; compare never shows the content of a file that looks like a secret now, whatever was stored before,
and a store's first recording drops such contents an older version kept.
"""

from __future__ import annotations

import contextlib
import difflib
import hashlib
import os
import sqlite3
import stat
import zlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from . import jsonio
from .config import Config
from .file_digests import FileDigests
from .model import Project
from .safe_paths import PRIVATE_FILE_MODE, open_folder, tighten
from .secret_files import SecretFiles

SCHEMA = """
CREATE TABLE IF NOT EXISTS file_snapshots (iteration INTEGER PRIMARY KEY, notes TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS file_changes (
    iteration INTEGER NOT NULL,
    path      TEXT NOT NULL,
    sha256    TEXT,
    size      INTEGER NOT NULL,
    PRIMARY KEY (path, iteration)
);
CREATE INDEX IF NOT EXISTS file_changes_by_iteration ON file_changes (iteration);
CREATE TABLE IF NOT EXISTS file_blobs (sha256 TEXT PRIMARY KEY, stored INTEGER NOT NULL, first INTEGER NOT NULL);
"""

BLOB_FOLDER = "files"
DIGEST_CACHE = "snapshot-digests.json"
MAX_FILE_BYTES = 1 << 20  # a file larger than this is noted as changed, its content not kept
_FOLD = 2**63 - 1


@dataclass(frozen=True, slots=True)
class Seen:
    """One file as the scan found it."""

    sha256: str
    size: int
    source: str
    secret: bool = False  # looks like a secret: noted by its digest, its content never kept


@dataclass(slots=True)
class Scan:
    """The files of the project that are snapshotted, as they are now, and what was left out and why."""

    files: dict[str, Seen] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class FileState:
    """A file at one iteration: its digest and size, and whether its content is kept."""

    sha256: str
    size: int


def _excluded_folders(project: Project) -> list[str]:
    """The folders holding the project's eval files (`evals/`, `evals/default/eval-sets/`): what compare
    shows is the code, not the rows (their changes show as the rows' flips). Never the project root."""
    folders = {PurePosixPath(rel).parent.as_posix() for rel in project.eval_files}
    folders.discard(".")
    return sorted(folders)


def scan(config: Config, project: Project, digests: FileDigests) -> Scan:
    """The project's snapshotted files now (digests by stat, so an unchanged file is not read again)."""
    from .cluster.package import PackingError, shipped_entries  # not needed to read history

    result = Scan()
    secrets = secret_files_of(config)
    try:
        entries = shipped_entries(config, with_secrets=True)
    except PackingError as exc:
        result.notes.append(f"files not snapshotted: {exc}")
        return result
    root = os.path.realpath(config.root)
    skip_files = {*project.eval_files, PurePosixPath(config.baseline.path).as_posix()}  # rows and verdicts, not code
    skip_folders = [folder + "/" for folder in _excluded_folders(project)]
    for entry in entries:
        if entry.folder or entry.rel in skip_files or any(entry.rel.startswith(f) for f in skip_folders):
            continue
        if entry.source != os.path.join(root, *entry.rel.split("/")):
            continue  # reached through a link: never followed
        try:
            info = os.lstat(entry.source)
        except OSError:
            continue
        if not stat.S_ISREG(info.st_mode):
            continue
        digest = digests.file(entry.source, info)
        if len(digest) != 64:  # unreadable, gone: nothing to keep
            continue
        result.files[entry.rel] = Seen(digest, info.st_size, entry.source, entry.rel in secrets)
    return result


def secret_files_of(config: Config | None) -> SecretFiles:
    """The project's secret-looking files: the built-in list and its `[history] secret_files`."""
    return SecretFiles(config.history.secret_files if config is not None else ())


def read_file(path: str, limit: int) -> bytes | None:
    """The bytes of the regular file at `path` without following a link or blocking on a FIFO; None when
    it is not (any more) a regular file of at most `limit` bytes."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            return None
        chunks: list[bytes] = []
        size = 0
        while chunk := os.read(fd, min(1 << 20, limit + 1 - size)):
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:
                return None
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


class SnapshotStore:
    """The blobs folder and the snapshot tables of one history database (the caller holds its lock)."""

    def __init__(self, state_dir: Path, keep_bytes: int, config: Config | None = None) -> None:
        self.state_dir = state_dir
        self.keep_bytes = keep_bytes
        self.config = config
        self.digests = FileDigests(None)
        self.digests.cache_path = state_dir / DIGEST_CACHE
        self.secrets = secret_files_of(config)
        self._doomed: list[str] = []
        self._secrets_dropped = False

    @classmethod
    def of(cls, config: Config) -> SnapshotStore:
        return cls(config.state_dir, int(config.history.keep_files_mb * 2**20), config)

    # -- writing ---------------------------------------------------------------------------------

    def scan(self, project: Project | None) -> Scan | None:
        """The project's files now (outside any transaction: the slow part); None without a project."""
        if self.config is None or project is None:
            return None
        return scan(self.config, project, self.digests)

    def _folder(self) -> int:
        return open_folder(self.state_dir.parent, [self.state_dir.name, BLOB_FOLDER], create=True, private=True)

    def record(self, db: sqlite3.Connection, number: int, now: Scan) -> None:
        """Inside the iteration's transaction: its changes against the newest recorded state, their content."""
        before = state_at(db, _FOLD)
        notes = list(now.notes)
        changes: list[tuple[int, str, str | None, int]] = []
        blobs: list[tuple[str, bytes]] = []
        for rel, seen in now.files.items():
            old = before.get(rel)
            if old is not None and old.sha256 == seen.sha256:
                continue
            sha, size = seen.sha256, seen.size
            if seen.secret:
                pass  # its digest only: compare says it changed, its contents are never written
            elif size > MAX_FILE_BYTES:
                notes.append(f"{rel}: larger than {MAX_FILE_BYTES // 2**20} MiB, its content is not kept")
            elif self.keep_bytes > 0:
                data = read_file(seen.source, MAX_FILE_BYTES)
                if data is None:
                    continue  # swapped for a link or a FIFO, or gone, since the scan
                sha, size = hashlib.sha256(data).hexdigest(), len(data)
                if old is not None and old.sha256 == sha:
                    continue
                blobs.append((sha, data))
            changes.append((number, rel, sha, size))
        for rel in before.keys() - now.files.keys():
            if not now.notes:  # a scan that failed saw nothing: that is not every file gone
                changes.append((number, rel, None, 0))
        db.executemany("INSERT OR REPLACE INTO file_changes VALUES (?,?,?,?)", changes)
        if blobs:
            folder = self._folder()
            try:
                for sha, data in blobs:
                    if db.execute("SELECT 1 FROM file_blobs WHERE sha256 = ?", (sha,)).fetchone():
                        continue
                    packed = zlib.compress(data, 6)
                    _write_blob(folder, sha, packed)
                    db.execute("INSERT INTO file_blobs VALUES (?,?,?)", (sha, len(packed), number))
            finally:
                os.close(folder)
        db.execute("INSERT OR REPLACE INTO file_snapshots VALUES (?,?)", (number, jsonio.dumps(notes)))
        if not self._secrets_dropped:
            self._drop_secret_contents(db)
        self._bound(db)

    def _drop_secret_contents(self, db: sqlite3.Connection) -> None:
        """Once per store: drop the kept contents of files that look like secrets now (stored by an older
        version, or before a pattern was added), unless a file that does not also has that content."""
        self._secrets_dropped = True
        secret: set[str] = set()
        other: set[str] = set()
        for path, sha in db.execute("SELECT DISTINCT c.path, c.sha256 FROM file_changes c "
                                    "JOIN file_blobs b ON b.sha256 = c.sha256"):
            (secret if str(path) in self.secrets else other).add(str(sha))
        self._drop(db, sorted(secret - other))

    def prune(self, db: sqlite3.Connection, cutoff: int) -> None:
        """Inside the transaction that drops iterations <= `cutoff`: their changes but those the oldest kept
        iteration's files still are (the base it is diffed against), and the blobs no change names any more."""
        db.execute("DELETE FROM file_snapshots WHERE iteration <= ?", (cutoff,))
        # A change at or before the cutoff is kept only while it is still its file's state at the oldest
        # iteration kept (cutoff + 1: numbers follow each other).
        db.execute("DELETE FROM file_changes AS c WHERE c.iteration <= ?1 AND EXISTS (SELECT 1 FROM file_changes g "
                   "WHERE g.path = c.path AND g.iteration > c.iteration AND g.iteration <= ?1 + 1)", (cutoff,))
        db.execute("DELETE FROM file_changes WHERE iteration <= ? AND sha256 IS NULL", (cutoff,))
        orphans = [sha for (sha,) in db.execute(
            "SELECT sha256 FROM file_blobs b WHERE NOT EXISTS "
            "(SELECT 1 FROM file_changes c WHERE c.sha256 = b.sha256)")]
        self._drop(db, orphans)
        # Blob files the database never came to name (their transaction failed): listed while this one holds
        # the write lock, so no other process is between writing a blob and naming it.
        known = {sha for (sha,) in db.execute("SELECT sha256 FROM file_blobs")}
        with contextlib.suppress(OSError), os.scandir(self.state_dir / BLOB_FOLDER) as listing:
            self._doomed += [entry.name[:-2] for entry in listing
                             if entry.name.endswith(".z") and entry.name[:-2] not in known]

    def _bound(self, db: sqlite3.Connection) -> None:
        """Drop blobs past `keep_bytes`: versions no file has any more first (oldest first), then the oldest."""
        (total,) = db.execute("SELECT COALESCE(SUM(stored), 0) FROM file_blobs").fetchone()
        if total <= self.keep_bytes:
            return
        current = {state.sha256 for state in state_at(db, _FOLD).values()}
        rows = db.execute("SELECT sha256, stored, first FROM file_blobs ORDER BY first, sha256").fetchall()
        rows.sort(key=lambda row: (row[0] in current, row[2]))
        drop: list[str] = []
        for sha, stored, _ in rows:
            if total <= self.keep_bytes:
                break
            drop.append(sha)
            total -= stored
        self._drop(db, drop)

    def _drop(self, db: sqlite3.Connection, shas: list[str]) -> None:
        db.executemany("DELETE FROM file_blobs WHERE sha256 = ?", ((sha,) for sha in shas))
        self._doomed.extend(shas)

    def committed(self, db: sqlite3.Connection) -> None:
        """After the transaction ended: remove the blobs it dropped (only those the database no longer
        names, so a rolled-back drop removes nothing), remember the digests."""
        doomed = [sha for sha in self._doomed
                  if db.execute("SELECT 1 FROM file_blobs WHERE sha256 = ?", (sha,)).fetchone() is None]
        self._doomed = []
        if doomed:
            try:
                folder = self._folder()
            except OSError:
                return
            try:
                for sha in doomed:
                    with contextlib.suppress(OSError):
                        os.unlink(f"{sha}.z", dir_fd=folder)
            finally:
                os.close(folder)
        self.digests.save()

    # -- reading ---------------------------------------------------------------------------------

    def content(self, sha: str) -> bytes | None:
        """A kept content by its digest (checked against it); None when it is not kept."""
        if len(sha) != 64 or not all(c in "0123456789abcdef" for c in sha):
            return None
        try:
            folder = open_folder(self.state_dir, [BLOB_FOLDER], create=False)
        except OSError:
            return None
        try:
            fd = os.open(f"{sha}.z", os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0), dir_fd=folder)
        except OSError:
            return None
        finally:
            os.close(folder)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return None
            with os.fdopen(fd, "rb", closefd=False) as handle:
                packed = handle.read(MAX_FILE_BYTES * 2)
            inflate = zlib.decompressobj()
            data = inflate.decompress(packed, MAX_FILE_BYTES + 1)
        except (OSError, zlib.error):
            return None
        finally:
            os.close(fd)
        return data if hashlib.sha256(data).hexdigest() == sha else None

    def stored_bytes(self) -> int:
        """What the blobs take on disk (for `history` and the benchmark)."""
        total = 0
        try:
            with os.scandir(self.state_dir / BLOB_FOLDER) as listing:
                for entry in listing:
                    if entry.is_file(follow_symlinks=False):
                        total += entry.stat(follow_symlinks=False).st_size
        except OSError:
            return 0
        return total


def _write_blob(folder: int, sha: str, packed: bytes) -> None:
    """`<sha>.z` in the blobs folder, written whole under a temporary name first (never through a link)."""
    temp = f".{sha}.{os.getpid()}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(temp, flags, PRIVATE_FILE_MODE, dir_fd=folder)
    try:
        tighten(fd, PRIVATE_FILE_MODE)  # a temp file left by a crash keeps its mode through O_TRUNC
        view = memoryview(packed)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)
    os.replace(temp, f"{sha}.z", src_dir_fd=folder, dst_dir_fd=folder)


def state_at(db: sqlite3.Connection, number: int) -> dict[str, FileState]:
    """Every snapshotted file as it was at iteration `number` (its newest change at or before it)."""
    rows = db.execute("SELECT path, sha256, size FROM file_changes c WHERE iteration = (SELECT MAX(iteration) "
                      "FROM file_changes g WHERE g.path = c.path AND g.iteration <= ?)", (number,)).fetchall()
    return {str(path): FileState(str(sha), int(size)) for path, sha, size in rows if isinstance(sha, str)}


def snapshot_notes(db: sqlite3.Connection, number: int) -> list[str] | None:
    """What the snapshot of iteration `number` left out; None when it recorded none (before snapshots were
    kept, or pruned)."""
    row = db.execute("SELECT notes FROM file_snapshots WHERE iteration = ?", (number,)).fetchone()
    if row is None:
        return None
    try:
        notes = jsonio.loads(row[0])
    except jsonio.JsonError:
        return []
    return [str(note) for note in notes] if isinstance(notes, list) else []


# -- the code diff between two states ----------------------------------------------------------------

MAX_DIFF_LINES = 400


@dataclass(slots=True)
class FileDiff:
    """One file changed between two iterations: `+added −removed` and the unified diff, when both sides'
    contents are kept and are text; else `note` says why there is no diff."""

    path: str
    status: str  # "changed", "added", "removed"
    added: int = 0
    removed: int = 0
    diff: str = ""
    note: str = ""
    secret: bool = False  # looks like a secret: its contents are never kept, so never shown

    @property
    def summary(self) -> str:
        if self.secret:
            return f"{self.path} {self.status} (contents not kept)"
        if self.note and not self.diff:
            return f"{self.path} ({self.status}; {self.note})"
        return f"{self.path} +{self.added} −{self.removed}"

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "status": self.status, "added": self.added, "removed": self.removed,
                "diff": self.diff, "note": self.note or None, "contents_kept": not self.secret}


def _text(data: bytes | None) -> str | None:
    if data is None or b"\0" in data[:8192]:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def file_diffs(store: SnapshotStore, before: dict[str, FileState], after: dict[str, FileState]) -> list[FileDiff]:
    """The files that differ between two states, in path order, each with its diff."""
    diffs: list[FileDiff] = []
    for path in sorted(before.keys() | after.keys()):
        old, new = before.get(path), after.get(path)
        if old is not None and new is not None and old.sha256 == new.sha256:
            continue
        status = "added" if old is None else "removed" if new is None else "changed"
        diffs.append(_diff_one(store, path, status, old, new))
    return diffs


def _side(store: SnapshotStore, state: FileState | None) -> tuple[list[str] | None, str]:
    """A side's lines (empty when the file is absent), or None and why."""
    if state is None:
        return [], ""
    if state.size > MAX_FILE_BYTES:
        return None, f"larger than {MAX_FILE_BYTES // 2**20} MiB, content not kept"
    data = store.content(state.sha256)
    if data is None:
        return None, "content not kept ([history] keep_files_mb)"
    text = _text(data)
    if text is None:
        return None, "binary"
    return text.splitlines(keepends=True), ""


SECRET_NOTE = "contents not kept: it looks like a secret (see [history] secret_files)"


def _diff_one(store: SnapshotStore, path: str, status: str, old: FileState | None, new: FileState | None) -> FileDiff:
    if path in store.secrets:
        return FileDiff(path, status, note=SECRET_NOTE, secret=True)
    result = FileDiff(path, status)
    before, why_before = _side(store, old)
    after, why_after = _side(store, new)
    if before is None or after is None:
        result.note = why_before or why_after
        return result
    lines = list(difflib.unified_diff(before, after, f"a/{path}", f"b/{path}", n=3))
    result.added = sum(1 for line in lines if line.startswith("+") and not line.startswith("+++"))
    result.removed = sum(1 for line in lines if line.startswith("-") and not line.startswith("---"))
    shown = [line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines]
    if len(shown) > MAX_DIFF_LINES:
        shown = [*shown[:MAX_DIFF_LINES], f"… {len(shown) - MAX_DIFF_LINES} more diff lines\n"]
    result.diff = "".join(shown)
    return result


def changed_paths(db: sqlite3.Connection, after: int) -> Iterable[str]:
    """The paths recorded as changed at iteration `after` (for the history list)."""
    return [str(path) for (path,) in db.execute("SELECT path FROM file_changes WHERE iteration = ? ORDER BY path",
                                                 (after,))]


__all__ = ["FileDiff", "FileState", "Scan", "SnapshotStore", "file_diffs", "read_file", "scan", "snapshot_notes",
           "state_at"]
