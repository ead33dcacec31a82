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
Shared libraries loaded with
`ctypes` count as reads (a name without a folder only when found in `LD_LIBRARY_PATH`; the loader's own
search of the system folders is not followed).

Another program the target starts (`subprocess`, `os.system`, `os.exec*`, `os.posix_spawn*`, `pty.spawn`,
and `multiprocessing`'s spawn and forkserver, which start a fresh interpreter through
`_posixsubprocess.fork_exec`, wrapped here since it raises no audit event) reads what the hook can't see:
the child writes the unseen marker naming the program, and stops. With `trust_subprocesses` (`[cache]
trust_subprocesses`, given on the child's command line) it records the program's executable as a read
instead (a bare name resolved along PATH as the OS would, every earlier PATH candidate too, so a program
that appears earlier on PATH counts) and trusts `[cache] inputs` to name what the program reads. A program
that is not found is not started: the places it was looked for count as reads (it may appear there).
`os.fork` is the same program and keeps the hook.

Left out: workbench's own files and temp folder, `/proc`, `/sys` and `/dev` (not `/dev/shm`), files
opened only for writing. Not seen at all: files a C extension opens itself rather than through Python (a
Rust tokenizer's file, an SQLite `ATTACH`), programs a C extension starts itself, `os.stat` and
`os.path.exists` checks, and a path opened relative to a folder descriptor (`dir_fd`) is recorded as if
relative to the cwd. Past `MAX_PATHS` paths (or `MAX_BYTES` written), or when a read can't be recorded,
the child writes the unbounded marker and stops: the reads are then unknown.

Workbench side (`ReadsFile`): reads those records incrementally, dedupes them, and ends the list with
`UNBOUNDED` when the child said the list is incomplete, then `UNSEEN + why` when it said it can't be known.
"""

from __future__ import annotations

import os
import sys

UNBOUNDED = "\x00unbounded"  # the last element of a reads list that is incomplete: "unknown, never reuse"
UNSEEN = "\x00unseen:"  # + why: ends a reads list whose reads can't be known at all (== rescoring.reads.UNSEEN_READS)
MAX_PATHS = 20_000
MAX_BYTES = 8 * 2**20
MAX_REASON = 500  # bytes of an unseen marker's reason
_MARKER = b"unbounded\x00"  # a record that is not an absolute path
_UNSEEN = b"unseen:"  # a record that is not an absolute path: + the reason + NUL
_PSEUDO = ("/proc/", "/sys/", "/dev/")

# -- child side ----------------------------------------------------------------------------------------

_state: dict[str, object] = {}
_seen: set[str] = set()


def install(reads_path: str, own_files: tuple[str, ...] = (), trust_subprocesses: bool = False) -> None:
    """Record this process's reads into `reads_path` (which workbench created) from now on; programs it
    starts make its reads unseen unless `trust_subprocesses`."""
    _state["skip_exact"] = frozenset(os.path.abspath(p) for p in own_files)
    _state["skip_prefix"] = os.path.dirname(os.path.abspath(reads_path)) + os.sep
    _state["trust"] = bool(trust_subprocesses)
    _open(reads_path)
    if not hasattr(sys, "addaudithook"):  # Python < 3.8
        unseen(f"python {sys.version_info[0]}.{sys.version_info[1]} has no audit hooks")
        return
    _wrap_fork_exec()
    sys.addaudithook(_hook)
    record_loaded_modules()


def unseen(reason: str) -> None:
    """What this process reads can't be known from here on: say why (once) and record nothing more."""
    if _state.get("unseen") or "fd" not in _state:
        return
    _state.update(unseen=True, full=True)
    data = os.fsencode(reason).replace(b"\x00", b"?")[:MAX_REASON]
    try:  # noqa: SIM105
        _write(_UNSEEN + data + b"\x00")
    except Exception:  # an audit hook that raises would fail the target's own call
        pass


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
    _state.update(fd=fd, path=reads_path, ident=(stat.st_dev, stat.st_ino), count=0, size=0, full=False,
                  unseen=False)


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


def _text(value: object) -> str:
    """A path-like audit argument as str (bytes decoded as the OS does, never compared as bytes: `-bb`)."""
    if not isinstance(value, (str, bytes, os.PathLike)):
        raise TypeError("expected str, bytes or os.PathLike object, not " + type(value).__name__)  # as os.fspath
    path = os.fspath(value)
    return os.fsdecode(path) if isinstance(path, bytes) else path


def _exec_path(env: object) -> list[str]:
    """The PATH folders a program started with environment `env` (None: ours) is looked up in, as
    `os.get_exec_path` gives them (without its `warnings` import: the hook imports nothing)."""
    found: object = None
    if env is None:
        found = os.environ.get("PATH")
    elif hasattr(env, "items"):
        for key, value in env.items():
            if (isinstance(key, str) and key == "PATH") or (isinstance(key, bytes) and key == b"PATH"):
                found = value
                break
    text = _text(found) if found is not None else os.defpath
    return text.split(os.pathsep)


def _candidates(program: object, cwd: object, env: object, *, cwd_too: bool = False) -> list[str]:
    """Where `program` is looked for, in order: itself when it names a folder (relative to `cwd`), else
    every PATH folder (and the cwd first when `cwd_too`: `os.posix_spawn` vs `posix_spawnp` look alike)."""
    name = _text(program)
    base = os.path.join(os.getcwd(), _text(cwd)) if cwd is not None else os.getcwd()
    if os.sep in name:
        return [os.path.join(base, name)]
    folders = [os.path.join(base, folder, name) for folder in _exec_path(env)]
    return [os.path.join(base, name), *folders] if cwd_too else folders


def _started(candidates: list[str]) -> None:
    """The target starts the first executable of `candidates`: unseen, unless trusted (then it and the
    places looked at before it are reads); none found: nothing runs, the places looked at are reads."""
    found = next((path for path in candidates if os.path.isfile(path) and os.access(path, os.X_OK)), None)
    if found is not None and not _state.get("trust"):
        unseen(f"it started another program ({os.path.normpath(found)})")
        return
    for path in candidates[:candidates.index(found) + 1] if found is not None else candidates:
        _record(os.path.normpath(path))


def _on_popen(args: tuple[object, ...]) -> None:  # subprocess.Popen: executable, args, cwd, env
    executable, _argv, cwd, env = args
    _started(_candidates(executable, cwd, env))


def _on_system(args: tuple[object, ...]) -> None:  # os.system: command (run by the shell)
    _started(["/bin/sh"])


def _on_exec(args: tuple[object, ...]) -> None:  # os.exec: path, args, env
    _started([os.path.join(os.getcwd(), _text(args[0]))])  # the path as given (execvp raises one per PATH entry)


def _on_posix_spawn(args: tuple[object, ...]) -> None:  # os.posix_spawn(p): path, argv, env
    _started(_candidates(args[0], None, None, cwd_too=True))  # posix_spawnp searches our own PATH


def _on_spawn(args: tuple[object, ...]) -> None:  # os.spawn (Windows): mode, path, args, env
    _started(_candidates(args[1], None, None))


def _on_fork_exec(args: tuple[object, ...]) -> None:
    """`_posixsubprocess.fork_exec(args, executable_list, close_fds, pass_fds, cwd, ...)`: subprocess's
    (already seen by its event) and multiprocessing's spawn and forkserver starts (no event at all)."""
    if len(args) > 4 and isinstance(args[1], (list, tuple)):
        cwd = args[4]
        base = os.path.join(os.getcwd(), _text(cwd)) if cwd is not None else os.getcwd()
        _started([os.path.join(base, _text(path)) for path in args[1]])


def _wrap_fork_exec() -> None:
    """Have `_posixsubprocess.fork_exec` tell us what it starts (it raises no audit event)."""
    try:
        import _posixsubprocess
    except ImportError:  # not POSIX, or not CPython
        return
    original = getattr(_posixsubprocess, "fork_exec", None)
    if original is None or getattr(original, "_workbench_reads", False):
        return

    def fork_exec(*args: object, **kwargs: object) -> object:
        try:
            _on_fork_exec(args)
        except Exception:
            _give_up()
        return original(*args, **kwargs)

    fork_exec._workbench_reads = True  # type: ignore[attr-defined]
    # typeshed spells out fork_exec's 23 positional parameters; the wrapper passes whatever it is given on
    _posixsubprocess.fork_exec = fork_exec  # type: ignore[assignment]


def _on_dlopen(args: tuple[object, ...]) -> None:  # ctypes.dlopen: name
    if not args or args[0] is None:
        return  # the program itself
    name = _text(args[0])
    if os.sep in name:
        _record(name)
        return
    for folder in os.environ.get("LD_LIBRARY_PATH", "").split(os.pathsep):
        path = os.path.join(folder or ".", name)
        if folder and os.path.exists(path):
            _record(path)
            return


_HANDLERS = {"open": _on_open, "os.listdir": _on_listing, "os.scandir": _on_listing, "import": _on_import,
             "sqlite3.connect": _on_sqlite, "ctypes.dlopen": _on_dlopen, "subprocess.Popen": _on_popen,
             "os.system": _on_system, "os.exec": _on_exec, "os.posix_spawn": _on_posix_spawn, "os.spawn": _on_spawn}


def _record(given: object) -> None:
    if isinstance(given, int) or _state.get("full") or "fd" not in _state:
        return
    path = _text(given)
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
        self._unseen: str | None = None  # why the child said its reads can't be known
        self._cached: tuple[str, ...] = ()
        self._stats_view: dict[str, tuple[int, ...]] | None = {}  # None: new stats since the last `stats()`

    def paths(self) -> tuple[str, ...]:
        """Every path recorded so far, in order, then UNBOUNDED when the list is incomplete and UNSEEN + why
        when the reads can't be known."""
        if self._fd < 0:
            return self._cached
        new = False
        while not self._unbounded and self._unseen is None:
            chunk = os.pread(self._fd, 1 << 20, self._offset)
            if not chunk:
                break
            self._offset += len(chunk)
            new = self._add(self._pending + chunk) or new
        if new:
            self._cached = (*self._paths, *((UNBOUNDED,) if self._unbounded else ()),
                            *((UNSEEN + self._unseen,) if self._unseen is not None else ()))
        return self._cached

    def _add(self, data: bytes) -> bool:
        *records, self._pending = data.split(b"\x00")
        for record in records:
            if record.startswith(_UNSEEN):
                self._unseen = record[len(_UNSEEN):].decode("utf-8", "replace") or "no reason given"
                break
            if not record.startswith(b"/"):
                self._unbounded = True
                break
            raw, _, stamp = record.rpartition(b"\x01")  # a path may hold \x01 itself: the stamp never does
            path = os.fsdecode(raw or record)
            self._paths.setdefault(path)
            if stamp and stamp != b"-" and path not in self._stats:
                try:  # no contextlib: this module is loaded into the target too
                    self._stats[path] = tuple(int(part) for part in stamp.split(b","))
                    self._stats_view = None
                except ValueError:
                    pass
        if len(self._paths) > MAX_PATHS or self._offset > MAX_BYTES + (1 << 20):
            self._unbounded = True
        return True

    def stats(self) -> dict[str, tuple[int, ...]]:
        """Each recorded file's stat when it was first opened (call `paths` first to read new records). The
        same map while nothing new is recorded, so the rows one worker serves share it (and the answers
        `rescoring/reads.py` gives for it): callers never change it."""
        if self._stats_view is None:
            self._stats_view = dict(self._stats)
        return self._stats_view

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
    """Several reads lists as one (a warm parent's and its row's, a replay's handler calls): deduped, then
    UNBOUNDED if any had it, then the first UNSEEN marker if any had one."""
    paths: dict[str, None] = {}
    unbounded = False
    unseen: str | None = None
    for reads in lists:
        for path in reads:
            if path == UNBOUNDED:
                unbounded = True
            elif path.startswith(UNSEEN):
                unseen = unseen or path
            else:
                paths.setdefault(path)
    if len(paths) > MAX_PATHS:
        unbounded = True
        paths = dict.fromkeys(list(paths)[:MAX_PATHS])
    return (*paths, *((UNBOUNDED,) if unbounded else ()), *((unseen,) if unseen else ()))


def unseen_reads(reason: str) -> tuple[str, ...]:
    """The reads of a process whose reads can't be known at all."""
    return (UNSEEN + reason,)
