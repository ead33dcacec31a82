"""`workbench check`, `run` and `init`: can the Python that runs a coded project's rows import `uipath`?

When the entry point itself imports it whenever it is imported (the starter's main.py does: its tools are
recorded by `uipath.tracing.traced`), no row can start without it: `start_problem` says so, an error naming the
entry file, which interpreter runs the rows and the one thing to do (`check` fails on it, `run` says it once
before any row, `init` says it under the next steps). Otherwise the child still runs the rows (its fallback calls
the entry point with the inputs dict), so it is a warning, not an error (`sdk_problem`): an agent may not need
the SDK. But its input and output conversion and the tool calls `uipath.tracing.traced` records are gone, so the
tool-call evaluators find none — the check says which interpreter it asked (the `[runner] command`'s, else the
project's `.venv`, else workbench's own) and how to fix it, or that it could not ask.

Asking is cheap: `importlib.util.find_spec("uipath")` in that interpreter (an argv list, no shell, the rows' own
folder and environment, its own process group killed at a timeout). The answer is kept in this process for as
long as the folders on that interpreter's `sys.path` are unchanged (an install adds to one), so an agent's
repeated questions don't start a Python each.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ...model import Problem, Severity
from ...runners.base import expand_argv, target_env
from ...runners.process import run_probe
from .layout import PROJECT_FILE
from .project_file import sdk_import_line
from .settings import CHILD_ARG, VENV_PYTHONS, WORKBENCH_PYTHON

if TYPE_CHECKING:
    from ...config import Config

PROBE_TIMEOUT_S = 20.0
PROBE_MARK = "workbench-uipath-probe:"
# What the interpreter prints: whether uipath is found, then the folders it looks in (to know when to ask again).
PROBE = (f"import importlib.util, sys\n"
         f"print({PROBE_MARK!r} + ('yes' if importlib.util.find_spec('uipath') else 'no'))\n"
         "for p in sys.path: print(p)\n")
_OWN = "workbench's own: the project has no .venv"


@dataclass(frozen=True, slots=True)
class _Answer:
    found: bool
    folders: tuple[tuple[str, int | None], ...]  # sys.path's folders and their mtimes when it answered


_ANSWERS: dict[tuple[str, ...], _Answer] = {}


def forget_answers() -> None:
    """Ask every interpreter anew next time (the answers this process keeps are dropped)."""
    _ANSWERS.clear()


@dataclass(frozen=True, slots=True)
class RowsPython:
    """The interpreter the rows' child runs in: its argv, shown, where it comes from in words, the file a
    problem with it names, and the entry file the child imports (as the command names it)."""

    python: list[str]
    shown: str
    where: str
    file: str
    entry: str | None


def rows_python(root: Path, config: Config) -> RowsPython | None:
    """Which Python runs the rows, or None when they don't run through the child (`[runner]` says otherwise)."""
    command = list(config.runner.command or [])
    if CHILD_ARG not in command or command.index(CHILD_ARG) == 0:
        return None
    at = command.index(CHILD_ARG)
    given = command[:at]
    python = expand_argv(given)
    where, file = _origin(root, config, given)
    return RowsPython(python, " ".join(python), where, file, command[at + 1] if len(command) > at + 1 else None)


def start_problem(root: Path, config: Config) -> Problem | None:
    """An error naming the entry file when it imports `uipath` whenever it is imported and the rows' Python can't
    import it: no row can start. None when it can, when the entry may run without it (`sdk_problem`'s warning
    then), when the rows run elsewhere (a Ray cluster's workers) or the interpreter can't be asked (`check` says
    that, and a row says what went wrong): only a sure answer stops a run."""
    rows = rows_python(root, config)
    if rows is None or rows.entry is None or config.cluster.engine == "ray":
        return None
    line = sdk_import_line(root, rows.entry)
    if line is None:
        return None
    try:
        if _asks(rows.python, root, config):
            return None
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    return Problem(rows.entry, f"imports uipath (line {line}), but the Python that runs the rows can't import it: "
                               f"{rows.shown} ({rows.where}). No row can start. Fix: {_one_fix(rows)}")


def has_sdk(root: Path, config: Config) -> bool | None:
    """Whether the rows' Python can import `uipath` (None: they don't run through the child, or it can't be
    asked)."""
    rows = rows_python(root, config)
    if rows is None:
        return None
    try:
        return _asks(rows.python, root, config)
    except (OSError, subprocess.SubprocessError, ValueError):
        return None


def _one_fix(rows: RowsPython) -> str:
    if rows.where == _OWN:
        return ("in the project folder, python3 -m venv .venv && .venv/bin/pip install uipath (workbench then runs "
                "the rows in .venv/bin/python)")
    return f"{rows.shown} -m pip install uipath"


def sdk_problem(root: Path, config: Config) -> Problem | None:
    """A warning when the rows' interpreter can't import `uipath`, or can't be asked; None when it can import it
    (or rows don't run through the child: `[runner]` says otherwise, and `check` says that already), and when the
    entry can't run without it (`start_problem` says that, as an error)."""
    rows = rows_python(root, config)
    if rows is None:
        return None
    python, where, file, shown = rows.python, rows.where, rows.file, rows.shown
    try:
        found = _asks(python, root, config)
    except (FileNotFoundError, PermissionError):
        if config.cluster.engine != "ray":
            return None  # the settings check already says the program is not there (or can't run)
        return Problem(file, f"could not check whether {shown} ({where}) can import uipath: it can't run on this "
                             "machine (the rows run on the Ray cluster's workers)", Severity.WARNING)
    except (OSError, subprocess.SubprocessError, ValueError) as exc:
        return Problem(file, f"could not check whether {shown} ({where}) can import uipath: {exc}", Severity.WARNING)
    if found or (config.cluster.engine != "ray" and rows.entry is not None
                 and sdk_import_line(root, rows.entry) is not None):  # found, or start_problem's error says it
        return None
    return Problem(file, f"{shown} ({where}) runs the rows and can't import uipath: {_fix(where, shown)}, or name a "
                         "Python that has it ([runner] command = [\"/path/to/python\"] in workbench.toml). Without it "
                         "rows skip the SDK's input/output conversion and record no tool calls.",
                   Severity.WARNING)


def _origin(root: Path, config: Config, given: list[str]) -> tuple[str, str]:
    """Where the interpreter comes from in words, and the file a problem with it names."""
    if given == [WORKBENCH_PYTHON]:
        return _OWN, PROJECT_FILE
    if any(given[0] == str(root / venv) for venv in VENV_PYTHONS):
        return "the project's .venv", Path(given[0]).relative_to(root).as_posix()
    source = config.source.name if config.source is not None else "workbench.toml"
    return f"{source}'s [runner] command", source


def _fix(where: str, shown: str) -> str:
    if where == _OWN:
        return "make a .venv with it (python3 -m venv .venv && .venv/bin/pip install uipath)"
    return f"install it there ({shown} -m pip install uipath)"


def _asks(python: list[str], root: Path, config: Config) -> bool:
    """Whether `python` finds uipath, asked once for as long as its sys.path folders stay as they were."""
    key = (*python, str(root), *(f"{name}={value}" for name, value in sorted(config.runner.env.items())))
    known = _ANSWERS.get(key)
    if known is not None and all(_mtime(folder) == seen for folder, seen in known.folders):
        return known.found
    out = _probe(python, root, config)
    marked = [line for line in out.splitlines() if line.startswith(PROBE_MARK)]
    if not marked or marked[-1][len(PROBE_MARK):] not in ("yes", "no"):
        raise ValueError(f"it answered {out.strip()[:200]!r}")
    found = marked[-1].endswith("yes")
    folders = out.split(marked[-1], 1)[1].splitlines()[1:]
    answer = _Answer(found, tuple((folder, _mtime(folder)) for folder in folders if folder))
    _ANSWERS[key] = answer
    return answer.found


def _probe(python: list[str], root: Path, config: Config) -> str:
    """The probe's stdout (`run_probe`: its process group killed when it answers or outlives the timeout)."""
    try:
        done = run_probe([*python, "-c", PROBE], cwd=root, env=target_env(config), timeout=PROBE_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise subprocess.SubprocessError(f"it did not answer within {PROBE_TIMEOUT_S:g} s") from None
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise subprocess.SubprocessError(f"it exited with {done.returncode}" + (f": {said[-1]}" if said else ""))
    return done.stdout.decode("utf-8", "replace")


def _mtime(folder: str) -> int | None:
    try:
        return os.stat(folder).st_mtime_ns
    except OSError:
        return None
