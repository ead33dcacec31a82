"""The first file of every fresh Python target process workbench starts (a `kind = "command"` row that is not
forked, a Python `kind = "worker"`):

    python [OPTIONS] audited_main.py [-t] READS_FILE script.py ARGS...      (or READS_FILE -m module ARGS...)

On Python 3.7 and later it hands over to `script_main.main`, which installs the read audit and runs the
script as `python script.py` would. Why a file of its own: it must *parse* on any interpreter a target may
name (2.7, 3.6), where `script_main.py` can't, so that a target on an interpreter too old to be watched
still runs: there it says so in READS_FILE (the unseen marker: never re-scored) and runs the script or
module through `runpy`. For that reason this file has no annotations and no f-strings.
"""

import os
import sys


def _sibling(name):
    """A module of this folder by file path, under a name no target uses (3.7+: the frozen importlib)."""
    from _frozen_importlib import module_from_spec
    from _frozen_importlib_external import spec_from_file_location

    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), name + ".py")
    spec = spec_from_file_location("_workbench_" + name, path)
    assert spec is not None and spec.loader is not None  # a .py path always has a source loader
    module = module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _unwatched(argv):
    """Too old to be watched: say so in the reads file, then run the target as closely as runpy can."""
    if argv[:1] == ["-t"]:
        argv = argv[1:]
    reads, command = argv[0], argv[1:]
    why = "python %d.%d has no audit hooks" % sys.version_info[:2]  # noqa: UP031 - parses on Python 2
    fd = os.open(reads, os.O_WRONLY | os.O_APPEND)
    try:
        os.write(fd, b"unseen:" + why.encode("ascii") + b"\x00")
    finally:
        os.close(fd)
    import runpy

    if command[:1] == ["-m"]:
        sys.argv = ["-m"] + command[2:]  # noqa: RUF005 - parses on Python 2
        sys.path[0] = os.getcwd()
        runpy.run_module(command[1], run_name="__main__", alter_sys=True)
    else:
        sys.argv = list(command)
        sys.path[0] = os.path.dirname(os.path.realpath(command[0]))
        runpy.run_path(command[0], run_name="__main__")


if __name__ == "__main__":
    if sys.version_info < (3, 7):  # noqa: UP036 - the point of this file
        _unwatched(sys.argv[1:])
    else:
        SCRIPT_MAIN = _sibling("script_main")
        SCRIPT_MAIN.OWN_FILES.add(os.path.abspath(__file__))
        SCRIPT_MAIN.main(sys.argv[1:], SCRIPT_MAIN.headroom())  # measured at module level, as script_main's own
