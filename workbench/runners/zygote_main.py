"""The warm parent of `[runner] preload`: a Python interpreter that has already imported what a target
script imports, and forks one child per row that runs the script as `__main__`.

This file runs under the *target's* interpreter, started as a plain script, so it imports nothing but
the standard library (workbench need not be installed there) and its siblings `script_main.py` and
`read_audit.py`, loaded by file path. It is told the script (or `-m` module) in argv, installs the read
audit, imports the standard-library and third-party modules the script imports at its top level (an
import scan: the project's own modules and the script's own code never run here), then serves fork
requests on a SOCK_SEQPACKET socket:

    workbench → here:  {"id", "argv", "argv0", "env", "cwd", "reads"} with the child's stdin, stdout,
                       stderr attached
    here → workbench:  {"ready", "preloaded", "failed"} once; {"id", "error"} when a fork fails;
                       {"id", "exit"} when that child ends (a negative number is the killing signal)
    the child → workbench:  {"id", "pid"} once it runs (after any `os.register_at_fork` hooks)

Each child starts its own session (its own process group, as a fresh process started by workbench
would), takes the row's file descriptors, environment, working directory and argv, re-seeds `random`,
records its reads in the row's file, runs the script through `script_main.py` and exits as `python
script.py` would (`finish`: exit status, atexit, flushing, KeyboardInterrupt) but without tearing down
every object, which in a fork costs more than the row.
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import importlib.util
import io
import json
import os
import random
import selectors
import signal
import socket
import sys
from typing import Any

MAX_MESSAGE = 1 << 20


def top_level_imports(source: str) -> list[str]:
    """The modules `source` imports whenever it runs as `__main__`, in order (absolute imports only,
    dotted names kept): module-level statements, and those inside top-level `try:` bodies and `finally:`,
    `with` blocks and `if __name__ == "__main__":`. Not under any other `if` (`TYPE_CHECKING`, a version
    test, `if False:`), `except`/`else` branches, loops or functions: a module imported only under a
    condition that is false must not be imported here, where its import could have side effects or hang."""
    names: dict[str, None] = {}

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    names.setdefault(alias.name)
            elif isinstance(node, ast.ImportFrom):
                if node.level == 0 and node.module:
                    names.setdefault(node.module)
            elif isinstance(node, ast.Try) or (sys.version_info >= (3, 11) and isinstance(node, ast.TryStar)):
                visit(node.body)
                visit(node.finalbody)
            elif isinstance(node, ast.With) or (isinstance(node, ast.If) and _is_main_guard(node.test)):
                visit(node.body)

    visit(ast.parse(source).body)
    return [name for name in names if name.split(".")[0] != "__future__"]


def _is_main_guard(test: ast.expr) -> bool:
    """`__name__ == "__main__"`, either way round."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    sides = (test.left, test.comparators[0])
    return (any(isinstance(side, ast.Name) and side.id == "__name__" for side in sides)
            and any(isinstance(side, ast.Constant) and side.value == "__main__" for side in sides))


def is_projects_own(name: str, project_dirs: list[str]) -> bool:
    """True when module `name` would be found in the project (its code must only run in the child)."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return True  # unknown: don't guess, leave it to the child
    if spec is None:
        return True
    locations = [spec.origin] if spec.origin and spec.has_location else []
    locations += list(spec.submodule_search_locations or [])
    if not locations:
        return False  # built-in or frozen
    for location in locations:
        real = os.path.realpath(location)
        parts = real.split(os.sep)
        if "site-packages" in parts or "dist-packages" in parts:
            continue  # installed, even when the virtualenv sits inside the project
        if any(real == d or real.startswith(d + os.sep) for d in project_dirs):
            return True
    return False


def module_source(module: str) -> str | None:
    """The file `python -m module` would run, found without importing anything (a dotted name's
    parent packages are the project's code, which must not run here)."""
    parts = module.split(".")
    for entry in sys.path:
        base = os.path.join(entry or os.getcwd(), *parts)
        for candidate in (base + ".py", os.path.join(base, "__main__.py")):
            if os.path.isfile(candidate):
                return candidate
    return None


def preload(source_path: str | None, module: str | None, project_dirs: list[str]) -> tuple[list[str], list[str]]:
    """Import what the script imports, except the project's own modules; (imported, failed)."""
    if module is not None:
        source_path = module_source(module)
    if source_path is None:
        return [], []
    with open(source_path, "rb") as handle:
        source = handle.read().decode("utf-8", errors="replace")
    try:
        names = top_level_imports(source)
    except SyntaxError:
        return [], []
    imported, failed = [], []
    for name in names:
        if name in sys.modules:
            continue
        if is_projects_own(name.split(".")[0], project_dirs):
            continue
        try:
            importlib.import_module(name)
            imported.append(name)
        except BaseException:
            failed.append(name)
    return imported, failed


def send(sock: socket.socket, message: dict[str, object]) -> None:
    sock.sendall(json.dumps(message).encode())


def rebuild_stdio(unbuffered: bool) -> None:
    """Fresh sys.std* on fds 0-2, made the way a new interpreter makes them (CPython's create_stdio):
    stdin buffered; stdout and stderr raw and write-through when unbuffered (`-u`, PYTHONUNBUFFERED), else
    buffered with stderr (and a terminal) line-buffered; newline "\\n"; the parent's encodings and errors,
    which the same environment gave it."""
    streams = []
    for fd, name, template in ((0, "<stdin>", sys.__stdin__), (1, "<stdout>", sys.__stdout__),
                               (2, "<stderr>", sys.__stderr__)):
        write = fd > 0
        raw = io.FileIO(fd, "wb" if write else "rb", closefd=False)
        raw.name = name
        buffer: io.FileIO | io.BufferedWriter | io.BufferedReader = raw
        if not (write and unbuffered):
            buffer = io.BufferedWriter(raw) if write else io.BufferedReader(raw)
        encoding = getattr(template, "encoding", None) or "utf-8"
        errors = getattr(template, "errors", None) or ("backslashreplace" if fd == 2 else "strict")
        line_buffering = not unbuffered and (fd == 2 or raw.isatty())
        text = io.TextIOWrapper(buffer, encoding, errors, "\n", line_buffering, unbuffered)
        text.mode = "w" if write else "r"  # type: ignore[misc]
        streams.append(text)
    sys.stdin, sys.stdout, sys.stderr = streams
    # typeshed marks the original streams Final; the forked child replaces them on purpose (its fds are new)
    sys.__stdin__, sys.__stdout__, sys.__stderr__ = streams  # type: ignore[misc]


def become_child(sock: socket.socket, wake_fds: tuple[int, int], request: dict[str, Any], fds: list[int],
                 script: str | None, module: str | None) -> None:
    """The forked row. Never returns (a fork must not go back to serving)."""
    try:
        _run_row(sock, wake_fds, request, fds, script, module)
    except BaseException:  # workbench's own failure before the script ran (a vanished cwd, say)
        with contextlib.suppress(BaseException):
            import traceback

            traceback.print_exc()
    os._exit(1)


def _run_row(sock: socket.socket, wake_fds: tuple[int, int], request: dict[str, Any], fds: list[int],
             script: str | None, module: str | None) -> None:
    """Take the row's session, pipes, cwd, environment and argv, then run the script and exit as
    `python script.py` would (see `finish`)."""
    os.setsid()
    send(sock, {"id": request["id"], "pid": os.getpid()})  # after os.register_at_fork hooks ran, from here
    sock.close()
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for fd in wake_fds:
        os.close(fd)
    for target, fd in zip((0, 1, 2), fds, strict=True):
        os.dup2(fd, target)
    for fd in fds:
        if fd > 2:
            os.close(fd)
    os.chdir(str(request["cwd"]))
    env = {str(k): str(v) for k, v in request["env"].items()}
    os.environ.clear()
    os.environ.update(env)
    if AUDIT is not None and request.get("reads"):
        AUDIT.redirect(str(request["reads"]))
    rebuild_stdio(bool(env.get("PYTHONUNBUFFERED")) or bool(request.get("unbuffered")))
    random.seed()
    if ORIG_ARGV:
        sys.orig_argv = list(ORIG_ARGV)
    argv = [str(part) for part in request["argv"]]
    interrupted = False
    try:
        if module is not None:
            sys.path[0] = os.getcwd()
            sys.argv = ["-m", *argv]
            SCRIPT_MAIN.run_module(module, BOTTOM)
        else:
            argv0 = str(request.get("argv0") or script)
            sys.argv = [argv0, *argv]
            SCRIPT_MAIN.run_script(SCRIPT_MAIN.script_file(argv0), BOTTOM)
        code = 0
    except SystemExit as exc:
        code = exit_status(exc)
    except BaseException as exc:
        SCRIPT_MAIN.print_uncaught(exc)
        code, interrupted = 1, isinstance(exc, KeyboardInterrupt)
    finish(code, interrupted)


def exit_status(exc: SystemExit) -> int:
    """What the interpreter exits with for `exc` (printing a non-integer message as it would)."""
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    with contextlib.suppress(Exception):
        print(code, file=sys.stderr)
    return 1


def _flush_std(report: bool = True) -> bool:
    """Flush sys.stdout and sys.stderr as the interpreter does at exit (closed or None ones skipped)."""
    ok = True
    for stream in (sys.stdout, sys.stderr):
        if stream is None or getattr(stream, "closed", False):
            continue
        try:
            stream.flush()
        except Exception as exc:
            ok = False
            if report and stream is sys.stdout:  # as PyErr_WriteUnraisable words it
                with contextlib.suppress(Exception):
                    print(f"Exception ignored in: {stream!r}\n{type(exc).__name__}: {exc}", file=sys.stderr)
    return ok


def finish(code: int, interrupted: bool) -> None:
    """Leave as the interpreter's own shutdown would, without its teardown of every object (which, in a
    fork, would copy the parent's memory page by page: it costs more than the row): join non-daemon
    threads, run atexit, flush stdout and stderr (a failure exits 120), clear `__main__` so the
    script's objects are finalised (an unclosed file it wrote is flushed), flush again; after an
    uncaught KeyboardInterrupt, end by SIGINT."""
    threading = sys.modules.get("threading")
    if threading is not None:
        with contextlib.suppress(BaseException):
            threading._shutdown()
    with contextlib.suppress(BaseException):
        import atexit

        atexit._run_exitfuncs()
    if not _flush_std():
        code = 120
    with contextlib.suppress(BaseException):
        _clear(sys.modules["__main__"].__dict__)
    _flush_std(report=False)
    if interrupted:
        with contextlib.suppress(BaseException):
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGINT)
        code = 130  # as CPython does when the signal did not end it
    os._exit(code)


def _clear(namespace: dict[str, object]) -> None:
    """A module's globals set to None the way the interpreter clears them at exit: `_name`s first."""
    for name in [n for n in namespace if n.startswith("_") and not n.startswith("__")]:
        namespace[name] = None
    for name in [n for n in namespace if n != "__builtins__"]:
        namespace[name] = None


def serve(sock: socket.socket, script: str | None, module: str | None) -> None:
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    children: dict[int, object] = {}
    selector = selectors.DefaultSelector()
    selector.register(sock, selectors.EVENT_READ)
    selector.register(wake_r, selectors.EVENT_READ)
    while True:
        for key, _ in selector.select(timeout=1.0):
            if key.fileobj is sock:
                message, fds, _flags, _addr = socket.recv_fds(sock, MAX_MESSAGE, 3)
                if not message:
                    return  # workbench is gone; the children are its reaper's to kill
                request = json.loads(message)
                if len(fds) != 3:
                    for fd in fds:
                        os.close(fd)
                    send(sock, {"id": request.get("id"), "error": "expected three file descriptors"})
                    continue
                try:
                    pid = os.fork()
                except OSError as exc:
                    pid = -1
                    send(sock, {"id": request["id"], "error": f"fork failed: {exc}"})
                if pid == 0:
                    become_child(sock, (wake_r, wake_w), request, fds, script, module)
                for fd in fds:
                    os.close(fd)
                if pid > 0:
                    children[pid] = request["id"]  # the child itself sends its pid once it runs
            else:
                with contextlib.suppress(BlockingIOError):
                    os.read(wake_r, 4096)
        while children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            ident = children.pop(pid, None)
            if ident is not None:
                send(sock, {"id": ident, "exit": os.waitstatus_to_exitcode(status)})


def _sibling(name: str) -> Any:
    """A module of this folder, by file path, under a name the target's own modules can't collide with."""
    spec = importlib.util.spec_from_file_location(f"_workbench_{name}", os.path.join(_HERE, f"{name}.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT_MAIN = _sibling("script_main")
SCRIPT_MAIN.OWN_FILES.add(os.path.abspath(__file__))
AUDIT: Any = None
ORIG_ARGV: list[str] = []
BOTTOM = 0


def main() -> None:
    global AUDIT, ORIG_ARGV
    fd = int(sys.argv[1])
    spec = json.loads(sys.argv[2])
    sock = socket.socket(fileno=fd)
    script, module, project_dir = spec.get("script"), spec.get("module"), spec["project"]
    ORIG_ARGV = [str(part) for part in spec.get("orig_argv") or []]
    if spec.get("reads"):
        AUDIT = _sibling("read_audit")
        SCRIPT_MAIN.OWN_FILES.add(os.path.abspath(AUDIT.__file__))
        AUDIT.install(str(spec["reads"]), (*SCRIPT_MAIN.OWN_FILES, _HERE), bool(spec.get("trust_subprocesses")))
    if script is not None:
        sys.path[0] = os.path.dirname(os.path.realpath(script))
    else:
        sys.path[0] = os.getcwd()
    project_dirs = sorted({os.path.realpath(project_dir), sys.path[0]})
    imported, failed = preload(script, module, project_dirs)
    send(sock, {"ready": True, "preloaded": imported, "failed": failed})
    sys.argv = [sys.argv[0]]
    serve(sock, script, module)


if __name__ == "__main__":
    BOTTOM = SCRIPT_MAIN.headroom()  # at module level: where a fresh `python script.py` runs its first line
    main()
