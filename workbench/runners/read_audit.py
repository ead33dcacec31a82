"""Which files a Python target read: an audit hook in the child, and workbench's reader of what it wrote.

Why: re-scoring a recorded run is safe only when everything that went into it is unchanged, and a Python
target can read files outside the project (a data folder, a module on PYTHONPATH, a symlinked folder).
The children workbench controls (the warm parent and its forks, `kind = "python"` workers, Python
`kind = "worker"` targets started through `script_main.py`) call `install` before any target code runs.

Child side (`install`, `redirect`): runs under the *target's* interpreter, loaded by file path, so it
imports nothing but `os` and `sys`. A `sys.addaudithook` hook records the absolute path (made absolute
against the cwd of the moment, never symlink-resolved: a path through a symlinked folder stays as the
target wrote it) of every file opened for reading (`open`, also `io.open_code`, which imports use; a
`__pycache__/*.pyc` is recorded as the source file it caches), every extension module loaded, every
folder listed (`os.listdir`, `os.scandir`, so `glob` and `os.walk` too) and every SQLite database
opened, plus the files of the modules already imported when the hook went in. Each new path is
written at once, before the file is opened, as one `os.write` of `path + NUL` to a file in workbench's
temp folder (named on the child's command line, never in its environment), so a reply the target sends
afterwards can't overtake it. Threads share the hook; a fork inherits it and the file; `os.chdir` is
seen by the next absolute path. The file descriptor is checked before every write (the target may
close it and reuse the number), and reopened by name rather than written to someone else's file.
Left out: workbench's own files and temp folder, `/proc`, `/sys` and `/dev` (not `/dev/shm`), files
opened only for writing. Not seen at all: what programs the target starts read (they have no hook),
files a C extension opens itself rather than through Python (a Rust tokenizer's file), `os.stat` and
`os.path.exists` checks, and a path opened relative to a folder descriptor (`dir_fd`) is recorded as if
relative to the cwd. Past `MAX_PATHS` paths (or `MAX_BYTES` written), or when a read can't be recorded,
the child writes the marker and stops: the reads are then unknown.

Workbench side (`ReadsFile`): reads those records incrementally, dedupes them, and ends the list with
`UNBOUNDED` when the child said the list is incomplete.
"""

from __future__ import annotations

import os
import sys

UNBOUNDED = "\x00unbounded"  # the last element of a reads list that is incomplete: "unknown, never reuse"
MAX_PATHS = 20_000
MAX_BYTES = 8 * 2**20
_MARKER = b"unbounded\x00"  # a record that is not an absolute path
_PSEUDO = ("/proc/", "/sys/", "/dev/")

# -- child side ----------------------------------------------------------------------------------------

_state: dict[str, object] = {}
_seen: set[str] = set()


def install(reads_path: str, own_files: tuple[str, ...] = ()) -> None:
    """Record this process's reads into `reads_path` (which workbench created) from now on."""
    _state["skip_exact"] = frozenset(os.path.abspath(p) for p in own_files)
    _state["skip_prefix"] = os.path.dirname(os.path.abspath(reads_path)) + os.sep
    _open(reads_path)
    sys.addaudithook(_hook)
    record_loaded_modules()


def redirect(reads_path: str) -> None:
    """A forked child's reads go to its own file from here on (the parent's were recorded already)."""
    fd = _state.get("fd")
    if isinstance(fd, int):
        try:  # noqa: SIM105 - contextlib is an import the target's start-up need not pay for
            os.close(fd)
        except OSError:
            pass
    _seen.clear()
    _open(reads_path)


def _open(reads_path: str) -> None:
    fd = os.open(reads_path, os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC)
    stat = os.fstat(fd)
    _state.update(fd=fd, path=reads_path, ident=(stat.st_dev, stat.st_ino), count=0, size=0, full=False)


def record_loaded_modules() -> None:
    """The files of modules imported before the hook was installed (the parent's preloaded ones too)."""
    for module in list(sys.modules.values()):
        try:
            spec = getattr(module, "__spec__", None)
            if spec is not None:
                origin = spec.origin if spec.has_location else None
            else:
                origin = getattr(module, "__file__", None)
            if isinstance(origin, str):
                _record(origin)
        except Exception:  # a module object with odd attributes: its file is unknown, not an error
            continue


def _hook(event: str, args: tuple[object, ...]) -> None:
    handler = _HANDLERS.get(event)
    if handler is not None:
        try:
            handler(args)
        except Exception:  # a read that could not be recorded: the list is incomplete from here on
            _give_up()


def _give_up() -> None:
    if not _state.get("full") and "fd" in _state:
        _state["full"] = True
        try:  # noqa: SIM105
            _write(_MARKER)
        except Exception:  # an audit hook that raises would fail the target's own call
            pass


def _on_open(args: tuple[object, ...]) -> None:
    path, mode, flags = args
    if isinstance(mode, str):
        if "+" not in mode and ("w" in mode or "a" in mode or "x" in mode):
            return
    elif isinstance(flags, int) and flags & os.O_ACCMODE == os.O_WRONLY:  # os.open: flags, no mode
        return
    _record(path)


def _on_listing(args: tuple[object, ...]) -> None:
    path = args[0] if args else None
    if isinstance(path, int):  # a folder listed through a descriptor (os.fwalk)
        path = os.readlink(f"/proc/self/fd/{path}")
    _record("." if path is None else path)


def _on_import(args: tuple[object, ...]) -> None:
    if len(args) > 1 and args[1] is not None:  # (name, filename, ...) when an extension module loads
        _record(args[1])


def _on_sqlite(args: tuple[object, ...]) -> None:
    database = os.fsdecode(args[0]) if args and isinstance(args[0], (str, bytes, os.PathLike)) else ""
    if database.startswith("file:"):  # a URI: file:path?mode=ro
        database = database[5:].split("?", 1)[0]
    if database not in ("", ":memory:"):
        _record(database)


_HANDLERS = {"open": _on_open, "os.listdir": _on_listing, "os.scandir": _on_listing, "import": _on_import,
             "sqlite3.connect": _on_sqlite}


def _record(path: object) -> None:
    if isinstance(path, int) or _state.get("full") or "fd" not in _state:
        return
    path = os.fspath(path)  # type: ignore[arg-type]
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    if not path:
        return
    path = os.path.abspath(path)
    if path in _seen:
        return
    _seen.add(path)
    if path.endswith(".pyc"):
        folder, name = os.path.split(path)
        if os.path.basename(folder) == "__pycache__":  # a cache of the source next to it: record the source
            path = os.path.join(os.path.dirname(folder), name.split(".", 1)[0] + ".py")
            if path in _seen:
                return
            _seen.add(path)
    if path in _state["skip_exact"] or path.startswith(_state["skip_prefix"]):  # type: ignore[operator, arg-type]
        return
    if path.startswith(_PSEUDO) and not path.startswith("/dev/shm/"):  # devices, not data (shm files are)
        return
    data = os.fsencode(path) + _stamp(path) + b"\x00"
    count, size = int(_state["count"]) + 1, int(_state["size"]) + len(data)  # type: ignore[call-overload]
    if count > MAX_PATHS or size > MAX_BYTES:
        _give_up()
        return
    _state.update(count=count, size=size)
    _write(data)


def _stamp(path: str) -> bytes:
    """`\\x01` + the file's stat as the target is about to open it (`\\x01-` when there is none), so
    workbench can tell a file changed after it was read from one that merely hashes the same later."""
    try:
        info = os.stat(path)
    except OSError:
        return b"\x01-"
    return b"\x01%d,%d,%d,%d,%d" % (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_dev)


def _write(data: bytes) -> None:
    """Append to our file, never to another: the target may have closed our descriptor and reused it."""
    fd = _state["fd"]
    try:
        stat = os.fstat(fd)  # type: ignore[arg-type]
        same = (stat.st_dev, stat.st_ino) == _state["ident"]
    except OSError:
        same = False
    if not same:
        fd = os.open(str(_state["path"]), os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC)  # no O_CREAT
        stat = os.fstat(fd)
        if (stat.st_dev, stat.st_ino) != _state["ident"]:
            os.close(fd)
            _state["full"] = True  # our file is gone: nothing more can be reported
            return
        _state["fd"] = fd
    os.write(fd, data)  # type: ignore[arg-type]


# -- workbench side ------------------------------------------------------------------------------------


class ReadsFile:
    """The records one child process (and its forks) appends to a file workbench created for it."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._fd = os.open(path, os.O_RDONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        self._offset = 0
        self._pending = b""
        self._paths: dict[str, None] = {}
        self._stats: dict[str, tuple[int, ...]] = {}
        self._unbounded = False
        self._cached: tuple[str, ...] = ()

    def paths(self) -> tuple[str, ...]:
        """Every path recorded so far, in order, with UNBOUNDED last when the list is incomplete."""
        if self._fd < 0:
            return self._cached
        new = False
        while not self._unbounded:
            chunk = os.pread(self._fd, 1 << 20, self._offset)
            if not chunk:
                break
            self._offset += len(chunk)
            new = self._add(self._pending + chunk) or new
        if new:
            self._cached = (*self._paths, UNBOUNDED) if self._unbounded else tuple(self._paths)
        return self._cached

    def _add(self, data: bytes) -> bool:
        *records, self._pending = data.split(b"\x00")
        for record in records:
            if not record.startswith(b"/"):
                self._unbounded = True
                break
            raw, _, stamp = record.rpartition(b"\x01")  # a path may hold \x01 itself: the stamp never does
            path = os.fsdecode(raw or record)
            self._paths.setdefault(path)
            if stamp and stamp != b"-" and path not in self._stats:
                try:  # noqa: SIM105 - no contextlib: this module is loaded into the target too
                    self._stats[path] = tuple(int(part) for part in stamp.split(b","))
                except ValueError:
                    pass
        if len(self._paths) > MAX_PATHS or self._offset > MAX_BYTES + (1 << 20):
            self._unbounded = True
        return True

    def stats(self) -> dict[str, tuple[int, ...]]:
        """Each recorded file's stat when it was first opened (call `paths` first to read new records)."""
        return dict(self._stats)

    def close(self, *, remove: bool = True) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
        if remove:
            try:  # noqa: SIM105
                os.unlink(self.path)
            except OSError:
                pass


def merged_stats(*maps: dict[str, tuple[int, ...]]) -> dict[str, tuple[int, ...]]:
    """Several processes' read stats as one; the earliest look at a file (the first map's) wins."""
    found: dict[str, tuple[int, ...]] = {}
    for stats in maps:
        for path, key in stats.items():
            found.setdefault(path, key)
    return found


def merged(*lists: tuple[str, ...]) -> tuple[str, ...]:
    """Several reads lists as one (a warm parent's and its row's): deduped, UNBOUNDED last if any had it."""
    paths: dict[str, None] = {}
    unbounded = False
    for reads in lists:
        for path in reads:
            if path == UNBOUNDED:
                unbounded = True
            else:
                paths.setdefault(path)
    if len(paths) > MAX_PATHS:
        unbounded = True
        paths = dict.fromkeys(list(paths)[:MAX_PATHS])
    return (*paths, UNBOUNDED) if unbounded else tuple(paths)
