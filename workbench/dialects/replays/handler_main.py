"""The child side of a live replay step: `worker_main.py`, run in the row's scratch folder, with writes
by a relative path held inside that folder.

Run as a script (`python handler_main.py DEV:INODE PROJECT_ROOT package.module:function READS_FILE [-t]`);
the engine never imports it, and it imports nothing of workbench. Before the handler is imported it

* checks that its working directory is the folder the parent checked (same device and inode), so a
  link swapped in between the check and the start can't move it elsewhere, and
* installs an audit hook (`sys.addaudithook`) that refuses, with a PermissionError naming the path,
  every write, create, rename, delete, link or mode change through a *relative* path that leads out of
  that folder (`../../../x`, or a link inside the folder that points out), and
* has `worker_main.py` install the read audit (`runners/read_audit.py`) into READS_FILE, so the files the
  handler reads count for the replay's re-scoring as a Python target's do (`-t`: the programs it starts
  are trusted, `[cache] trust_subprocesses`).

What it cannot hold: a handler is the user's code running as the user. An absolute path, a relative
path after the handler itself `chdir`s out of the folder, a path relative to a descriptor (`dir_fd`),
and whatever a subprocess or a C extension writes are not checked (`sys.addaudithook` sees only what
Python's own file functions do).
"""

from __future__ import annotations

import errno
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
if sys.path and os.path.abspath(sys.path[0] or ".") == _HERE:
    del sys.path[0]  # this folder must not shadow the user's modules
WORKER_MAIN = os.path.join(os.path.dirname(os.path.dirname(_HERE)), "worker_main.py")  # workbench/worker_main.py
EXIT_REFUSED = 3

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
_NO_DIR_FD = (None, -1)
# event -> (what it does, positions of the paths it changes, does it follow a final link, position of dir_fd)
_EVENTS: dict[str, tuple[str, tuple[int, ...], bool, int | None]] = {
    "os.mkdir": ("create the folder", (0,), False, 2),
    "os.remove": ("delete", (0,), False, 1),
    "os.rmdir": ("delete the folder", (0,), False, 1),
    "os.rename": ("rename", (0, 1), False, 2),
    "os.link": ("create the link", (1,), False, 3),
    "os.symlink": ("create the link", (1,), False, 2),
    "os.truncate": ("truncate", (0,), True, None),
    "os.chmod": ("change the mode of", (0,), True, 2),
    "os.chown": ("change the owner of", (0,), True, 3),
    "os.utime": ("change the times of", (0,), True, 3),
    "shutil.rmtree": ("delete the tree", (0,), False, 1),
}


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _leaves(path: object, folder: str, follow: bool) -> str | None:
    """The path as given, when it is relative, the working directory is in `folder` and it leads out."""
    if not isinstance(path, (str, bytes, os.PathLike)):
        return None  # None, a descriptor: not a path
    try:
        text = os.fsdecode(os.fspath(path))
    except TypeError:
        return None
    if os.path.isabs(text):
        return None
    cwd = os.path.realpath(os.getcwd())
    if not _within(cwd, folder):
        return None  # the handler moved out on purpose: its relative paths are its own
    full = os.path.join(cwd, text)
    name = os.path.basename(full)
    if follow or name in ("", ".", ".."):
        where = os.path.realpath(full)
    else:
        where = os.path.join(os.path.realpath(os.path.dirname(full)), name)
    return None if _within(where, folder) else text


def contain_relative_writes(folder: str) -> None:
    """Refuse writes by a relative path that leads out of `folder` (the working directory)."""
    folder = os.path.realpath(folder)
    busy = False

    def hook(event: str, args: tuple[object, ...]) -> None:
        nonlocal busy
        if busy:
            return
        positions: tuple[int, ...]
        if event == "open":
            if len(args) < 3 or not isinstance(args[2], int) or not args[2] & _WRITE_FLAGS:
                return
            what, positions, follow, dir_fd = "write", (0,), not args[2] & getattr(os, "O_NOFOLLOW", 0), None
        elif event in _EVENTS:
            what, positions, follow, dir_fd = _EVENTS[event]
            if dir_fd is not None and len(args) > dir_fd and args[dir_fd] not in _NO_DIR_FD:
                return  # relative to a descriptor: not judged
        else:
            return
        busy = True
        try:
            for position in positions:
                escaped = _leaves(args[position], folder, follow) if position < len(args) else None
                if escaped is not None:
                    raise PermissionError(
                        errno.EACCES, f"workbench refused to {what} {escaped!r}: a live handler's relative paths "
                                      f"must stay in its scratch folder {folder} (use an absolute path to write "
                                      "elsewhere on purpose)")
        finally:
            busy = False

    sys.addaudithook(hook)


def _refuse(message: str) -> None:
    import json

    sys.stdout.write(json.dumps({"refused": message}) + "\n")
    sys.stdout.flush()
    sys.exit(EXIT_REFUSED)


def main(argv: list[str]) -> None:
    if len(argv) not in (4, 5) or argv[4:] not in ([], ["-t"]):
        _refuse("usage: handler_main.py DEV:INODE PROJECT_ROOT package.module:function READS_FILE [-t]")
    folder_id, root, spec, reads, *trust = argv
    here = os.stat(".")
    if f"{here.st_dev}:{here.st_ino}" != folder_id:
        _refuse(f"the scratch folder {os.getcwd()} changed between workbench's check and the handler's start; "
                "not run")
    contain_relative_writes(os.getcwd())
    import runpy

    sys.argv = [WORKER_MAIN, root, spec, reads, *trust]
    runpy.run_path(WORKER_MAIN, run_name="__main__")


if __name__ == "__main__":
    main(sys.argv[1:])
