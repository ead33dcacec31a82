"""Run a Python script or `-m` module as `__main__`, as `python script.py` / `python -m module` would, from
inside a process workbench started: the warm parent's forks (`zygote_main.py` calls `run_script` and
`run_module`) and Python worker targets, which run as

    python [OPTIONS] script_main.py [-t] READS_FILE script.py ARGS...      (or READS_FILE -m module ARGS...)

so that the read audit (`read_audit.py`) is installed before the target's first line runs; so do fresh
`kind = "command"` rows. Both are started as `audited_main.py` (same arguments), which calls `main` here
on Python 3.7+ (`python_command.PythonCommand.audited` builds that command line). `-t` trusts the programs
the target starts (`[cache] trust_subprocesses`). The interpreter's OPTIONS (`-X dev`, `-B`, `-I`, ...)
stand in front of this file, so they hold for the target as they would in front of its script; under
`-P`/`-I` nothing is put on `sys.path` for the script, as there.

Runs under the *target's* interpreter, loaded by file path: standard library only. What a fresh
interpreter would show and this keeps: `__file__` and the code's filename are the script as written,
made absolute against the cwd but neither normalised nor symlink-resolved; `sys.argv[0]` as written;
`sys.path[0]` the folder of the symlink-resolved script (the cwd for `-m`); a new `__main__` module left
in `sys.modules`; `sys.orig_argv` as the command line; the same recursion headroom (the script starts a
few frames deeper here, so the limit is raised by that many: `sys.getrecursionlimit()` reads that much
higher); an uncaught exception is raised on, its traceback printed without workbench's frames (by the
interpreter itself in a worker bootstrap: exit status 1, KeyboardInterrupt ends it by SIGINT after
`atexit`; the warm parent's fork does the same in `zygote_main.finish`).
"""

from __future__ import annotations

import os
import sys

OWN_FILES: set[str] = {os.path.abspath(__file__)}  # frames hidden from the target's tracebacks
_PROBE = compile("depth = headroom()", "<workbench recursion probe>", "exec", dont_inherit=True)


def headroom() -> int:
    """How many nested calls still fit below the caller before RecursionError."""

    def down(depth: int) -> int:
        try:
            return down(depth + 1)
        except RecursionError:
            return depth

    return down(0)


def _one_frame_deeper() -> int:
    return headroom()


def _give_back(bottom: int, here: int) -> None:
    """Raise the recursion limit by the frames this process has below the target's first frame."""
    if bottom > here:
        sys.setrecursionlimit(sys.getrecursionlimit() + bottom - here)


def script_file(argv0: str) -> str:
    """The `__file__` CPython gives a script named `argv0` on the command line."""
    return argv0 if os.path.isabs(argv0) else os.path.join(os.getcwd(), argv0)


def _new_main() -> object:
    import builtins

    main = type(sys)("__main__")
    main.__builtins__ = builtins  # type: ignore[attr-defined]
    sys.modules["__main__"] = main
    return main


def hide_own_frames() -> None:
    """The exception being raised leaves this process uncaught: have its traceback printed (by whatever
    `sys.excepthook` the target set) without the frames of workbench's files."""
    hook = sys.excepthook

    def excepthook(kind: type[BaseException], value: BaseException, tb: object) -> None:
        while tb is not None and tb.tb_frame.f_code.co_filename in OWN_FILES:  # type: ignore[attr-defined]
            tb = tb.tb_next  # type: ignore[attr-defined]
        if isinstance(value, BaseException):
            value = value.with_traceback(tb)  # type: ignore[arg-type]
        hook(kind, value, tb)  # type: ignore[arg-type]

    sys.excepthook = excepthook


def print_uncaught(exc: BaseException) -> None:
    """What the interpreter does with an exception nothing caught (`run_script` raised it): remember it
    in sys.last_*, print it through sys.excepthook, and if that hook fails, say so and use the default."""
    sys.last_type, sys.last_value, sys.last_traceback = type(exc), exc, exc.__traceback__
    if sys.version_info >= (3, 12):
        sys.last_exc = exc
    try:
        sys.excepthook(type(exc), exc, exc.__traceback__)
    except BaseException as failure:
        print("Error in sys.excepthook:", file=sys.stderr)
        sys.__excepthook__(type(failure), failure, failure.__traceback__)
        print("\nOriginal exception was:", file=sys.stderr)
        sys.__excepthook__(type(exc), exc, exc.__traceback__)


def run_script(file: str, bottom: int) -> None:
    """Run the script at `file` in a new `__main__`; `bottom` is `headroom()` measured at the module level
    of the process's own main script. Whatever the script raises is raised on."""
    try:
        from _frozen_importlib_external import SourceFileLoader
    except ImportError:  # not CPython
        from importlib.machinery import SourceFileLoader

    main = _new_main()
    main.__file__ = file  # type: ignore[attr-defined]
    main.__loader__ = SourceFileLoader("__main__", file)  # type: ignore[attr-defined]
    main.__cached__ = None  # type: ignore[attr-defined]
    try:
        with open(file, "rb") as handle:
            source = handle.read()
    except OSError as exc:  # as the interpreter says it
        print(f"{sys.executable}: can't open file {file!r}: [Errno {exc.errno}] {exc.strerror}", file=sys.stderr)
        raise SystemExit(2) from None
    probe: dict[str, object] = {"headroom": headroom}
    exec(_PROBE, probe)  # from this frame, exactly as the script's code is run below
    _give_back(bottom, probe["depth"])  # type: ignore[arg-type]
    try:
        code = compile(source, file, "exec", dont_inherit=True)
        exec(code, main.__dict__)
    except SystemExit:
        raise
    except BaseException:
        hide_own_frames()
        raise


def run_module(name: str, bottom: int) -> None:
    """Run module `name` as `python -m name` does (runpy's own entry point, its frames kept as there)."""
    import runpy

    _new_main()
    _give_back(bottom, _one_frame_deeper())
    try:
        runpy._run_module_as_main(name, alter_argv=True)  # type: ignore[attr-defined]
    except SystemExit:
        raise
    except BaseException:
        hide_own_frames()
        raise


def load_sibling(name: str) -> object:
    """A module of this folder by file path, under a name no target uses, without importing importlib.util
    (the modules here must not shadow, or be shadowed by, the target's own)."""
    try:
        from _frozen_importlib import module_from_spec
        from _frozen_importlib_external import spec_from_file_location
    except ImportError:  # not CPython
        from importlib.util import module_from_spec, spec_from_file_location

    spec = spec_from_file_location(f"_workbench_{name}", os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                                      f"{name}.py"))
    assert spec is not None and spec.loader is not None  # a .py path always has a source loader
    module = module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv: list[str], bottom: int) -> None:
    """The bootstrap: install the read audit, then run the target's script or module."""
    trust = argv[:1] == ["-t"]
    reads, *command = argv[1:] if trust else argv
    here = os.path.dirname(os.path.abspath(__file__))
    audit = load_sibling("read_audit")
    OWN_FILES.add(os.path.abspath(audit.__file__))  # type: ignore[attr-defined]
    orig = list(getattr(sys, "orig_argv", []))
    if sys.argv[0] in orig:  # the command line without this file, -t and READS_FILE
        at = orig.index(sys.argv[0])
        sys.orig_argv = orig[:at] + orig[at + 2 + trust:]
    # -P (3.11) and -I put nothing on sys.path for the script: this file's folder is not there either
    script_path = not (getattr(sys.flags, "safe_path", False) or sys.flags.isolated)
    if command[:1] == ["-m"]:
        if script_path:
            sys.path[0] = os.getcwd()
        sys.argv = ["-m", *command[2:]]
        audit.install(reads, (*OWN_FILES, here), trust)  # type: ignore[attr-defined]
        run_module(command[1], bottom)
    else:
        if script_path:
            sys.path[0] = os.path.dirname(os.path.realpath(command[0]))
        sys.argv = list(command)
        audit.install(reads, (*OWN_FILES, here), trust)  # type: ignore[attr-defined]
        run_script(script_file(command[0]), bottom)


if __name__ == "__main__":
    _BOTTOM = headroom()  # at module level, where a fresh interpreter runs the script's first line
    main(sys.argv[1:], _BOTTOM)
