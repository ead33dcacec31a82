"""`workbench check`: can the Python that runs a coded project's rows import `uipath`?

Without it the child still runs the rows (its fallback calls the entry point with the inputs dict), so this is a
warning, not an error: an agent may not need the SDK. But its input and output conversion and the tool calls
`uipath.tracing.traced` records are gone, so the tool-call evaluators find none — the check says which
interpreter it asked (the `[runner] command`'s, else the project's `.venv`, else workbench's own) and how to fix
it, or that it could not ask.

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


def sdk_problem(root: Path, config: Config) -> Problem | None:
    """A warning when the rows' interpreter can't import `uipath`, or can't be asked; None when it can import it
    (or rows don't run through the child: `[runner]` says otherwise, and `check` says that already)."""
    command = list(config.runner.command or [])
    if CHILD_ARG not in command or command.index(CHILD_ARG) == 0:
        return None
    given = command[:command.index(CHILD_ARG)]
    python = expand_argv(given)
    where, file = _origin(root, config, given)
    shown = " ".join(python)
    try:
        found = _asks(python, root, config)
    except (FileNotFoundError, PermissionError):
        if config.cluster.engine != "ray":
            return None  # the settings check already says the program is not there (or can't run)
        return Problem(file, f"could not check whether {shown} ({where}) can import uipath: it can't run on this "
                             "machine (the rows run on the Ray cluster's workers)", Severity.WARNING)
    except (OSError, subprocess.SubprocessError, ValueError) as exc:
        return Problem(file, f"could not check whether {shown} ({where}) can import uipath: {exc}", Severity.WARNING)
    if found:
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
