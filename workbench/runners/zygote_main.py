"""The warm parent of `[runner] preload`: a Python interpreter that has already imported what a target
script imports, and forks one child per row that runs the script as `__main__`.

This file runs under the *target's* interpreter, started as a plain script, so it imports nothing but
the standard library (workbench need not be installed there). It is told the script (or `-m` module)
in argv, imports the standard-library and third-party modules the script's source names (an import
scan: the project's own modules and the script's top-level code never run here), then serves fork
requests on a SOCK_SEQPACKET socket:

    workbench → here:  {"id", "argv", "env", "cwd"} with the child's stdin, stdout, stderr attached
    here → workbench:  {"ready", "preloaded", "failed"} once; {"id", "pid"} per fork;
                       {"id", "exit"} when that child ends (a negative number is the killing signal)

Each child starts its own session (its own process group, as a fresh process started by workbench
would), takes the row's file descriptors, environment, working directory and argv, re-seeds
`random`, and exits the way the interpreter would: `sys.exit` codes and messages, tracebacks on
stderr with exit status 1, non-daemon threads joined, `atexit` handlers run, stdout flushed.
"""

from __future__ import annotations

import ast
import atexit
import contextlib
import importlib
import importlib.util
import io
import json
import os
import random
import runpy
import selectors
import signal
import socket
import sys
import threading
import traceback

MAX_MESSAGE = 1 << 20


def imported_modules(source: str) -> list[str]:
    """The modules `source` imports anywhere (absolute imports only, dotted names kept), in order."""
    names: dict[str, None] = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                names.setdefault(alias.name)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.setdefault(node.module)
    return [name for name in names if name.split(".")[0] != "__future__"]


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
        names = imported_modules(source)
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
    """Fresh sys.std* on fds 0-2, buffered the way a new interpreter would buffer them."""
    encoding = sys.stdout.encoding if sys.stdout is not None else "utf-8"
    errors = sys.stdout.errors if sys.stdout is not None else "strict"
    stdin_raw = io.FileIO(0, "rb", closefd=False)
    sys.stdin = io.TextIOWrapper(io.BufferedReader(stdin_raw), encoding=encoding, errors=errors)
    out_raw = io.FileIO(1, "wb", closefd=False)
    out = out_raw if unbuffered else io.BufferedWriter(out_raw)
    sys.stdout = io.TextIOWrapper(out, encoding=encoding, errors=errors, write_through=unbuffered)  # type: ignore[arg-type]
    err_raw = io.FileIO(2, "wb", closefd=False)
    sys.stderr = io.TextIOWrapper(io.BufferedWriter(err_raw), encoding=encoding, errors="backslashreplace",
                                  line_buffering=True)
    sys.__stdin__, sys.__stdout__, sys.__stderr__ = sys.stdin, sys.stdout, sys.stderr


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


def print_traceback(exc: BaseException, script: str | None) -> None:
    """The traceback a fresh run would print: frames from the script on, not this runner's."""
    tb = exc.__traceback__
    if script is not None:
        real = os.path.realpath(script)
        probe = tb
        while probe is not None and os.path.realpath(probe.tb_frame.f_code.co_filename) != real:
            probe = probe.tb_next
        tb = probe or tb
    else:
        while tb is not None and tb.tb_frame.f_code.co_filename in (__file__, runpy.__file__, "<frozen runpy>"):
            tb = tb.tb_next
    sys.excepthook(type(exc), exc.with_traceback(tb), tb)


def run_script(script: str) -> None:
    """Run `script` as a fresh `python script.py` would: a new `__main__` module with an absolute
    `__file__`, left in sys.modules for atexit handlers and pickling."""
    import builtins
    import importlib.machinery
    import types

    main = types.ModuleType("__main__")
    main.__file__ = script
    main.__builtins__ = builtins  # type: ignore[attr-defined]
    main.__loader__ = importlib.machinery.SourceFileLoader("__main__", script)
    main.__spec__ = None
    main.__package__ = None
    main.__cached__ = None  # type: ignore[attr-defined]
    sys.modules["__main__"] = main
    with open(script, "rb") as handle:
        code = compile(handle.read(), script, "exec", dont_inherit=True)
    exec(code, main.__dict__)


def run_child(request: dict[str, object], script: str | None, module: str | None) -> int:
    argv = [str(part) for part in request["argv"]]  # type: ignore[union-attr]
    try:
        if module is not None:
            sys.argv = [module, *argv]
            runpy.run_module(module, run_name="__main__", alter_sys=True)
        else:
            assert script is not None
            sys.argv = [str(request.get("argv0") or script), *argv]
            run_script(script)
        code = 0
    except SystemExit as exc:
        code = exit_status(exc)
    except BaseException as exc:
        print_traceback(exc, script)
        code = 1
    return code


def finish(code: int) -> None:
    """Shut down like the interpreter: join threads, run atexit, flush; then leave without returning."""
    with contextlib.suppress(BaseException):
        threading._shutdown()  # type: ignore[attr-defined]
    with contextlib.suppress(BaseException):
        atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BrokenPipeError:
            code = code or 120
        except Exception:
            code = code or 120
    os._exit(code)


def become_child(sock: socket.socket, wake_fds: tuple[int, int], request: dict[str, object], fds: list[int],
                 script: str | None, module: str | None, project_dir: str) -> None:
    code = 1
    try:
        os.setsid()
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        sock.close()
        for fd in wake_fds:
            os.close(fd)
        for target, fd in zip((0, 1, 2), fds, strict=True):
            os.dup2(fd, target)
        for fd in fds:
            if fd > 2:
                os.close(fd)
        os.chdir(str(request["cwd"]))
        env = {str(k): str(v) for k, v in request["env"].items()}  # type: ignore[union-attr]
        os.environ.clear()
        os.environ.update(env)
        if sys.path and module is not None:
            sys.path[0] = os.getcwd()
        rebuild_stdio(bool(env.get("PYTHONUNBUFFERED")) or bool(request.get("unbuffered")))
        random.seed()
        code = run_child(request, script, module)
    except BaseException:
        with contextlib.suppress(BaseException):
            traceback.print_exc()
    finish(code)


def serve(sock: socket.socket, script: str | None, module: str | None, project_dir: str) -> None:
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
                pid = os.fork()
                if pid == 0:
                    become_child(sock, (wake_r, wake_w), request, fds, script, module, project_dir)
                for fd in fds:
                    os.close(fd)
                children[pid] = request["id"]
                send(sock, {"id": request["id"], "pid": pid})
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


def main() -> None:
    fd = int(sys.argv[1])
    spec = json.loads(sys.argv[2])
    sock = socket.socket(fileno=fd)
    script, module, project_dir = spec.get("script"), spec.get("module"), spec["project"]
    if script is not None:
        sys.path[0] = os.path.dirname(os.path.realpath(script))
    else:
        sys.path[0] = os.getcwd()
    project_dirs = sorted({os.path.realpath(project_dir), sys.path[0]})
    imported, failed = preload(script, module, project_dirs)
    send(sock, {"ready": True, "preloaded": imported, "failed": failed})
    sys.argv = [sys.argv[0]]
    serve(sock, script, module, project_dir)


if __name__ == "__main__":
    main()
