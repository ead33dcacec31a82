"""Can the target start at all? Checked before any row runs (`check`, and `run`/`watch`/the TUI before the
first iteration), so a typo in `[runner] command` (`pyhton3`, a script that isn't there, no `uip` on PATH)
is one message naming the setting, not an ERROR on every row.

Only what is certain is refused: a program that is neither on the target's PATH (workbench's own with
`[runner] env`'s over it, as the runners start it) nor a file at the path given, a script a Python or other
interpreter is told to run that does not exist, a `uip` workflow file that is missing. On a Ray cluster the
program runs on the workers, whose PATH is theirs: only the project's own files are checked then.
"""

from __future__ import annotations

import difflib
import os
import shutil
import sys
from glob import escape as glob_escape
from pathlib import Path

from ..config import Config
from ..settings.discovery import declared
from .base import expand_argv, target_env
from .python_command import PythonCommand, parse_python_command

# A first argument with one of these endings is a script the program runs (`node agent.js`, `bash run.sh`).
_SCRIPT_SUFFIXES = (".py", ".js", ".mjs", ".cjs", ".ts", ".sh", ".bash", ".rb", ".pl", ".php", ".lua", ".R")


def startup_problem(config: Config, kind: str) -> str | None:
    """Why the target of runner `kind` can't start, in words naming the setting; None when it can."""
    runner = config.runner
    if kind == "uip":
        workflow = config.root / runner.workflow
        if not workflow.is_file():
            return f"{_where(config, 'workflow')} = {runner.workflow!r}: no such file in {config.root}"
        return _program_problem(config, expand_argv(runner.uip), "uip", uip=True)
    if kind == "python":
        problem = _program_problem(config, expand_argv(runner.command), "command") if runner.command else None
        return problem or _callable_problem(config)
    if runner.command:  # command, worker
        return _program_problem(config, expand_argv(runner.command), "command")
    return None


def _where(config: Config, key: str) -> str:
    """The place the setting came from: the flag that overrode it (the CLI keeps flags' values in
    `overrides.settings`), else the file, else the default — never the file for a flag's value."""
    path = f"runner.{key}"
    if path in config.overrides.values():
        flags = [option.flag for option in declared().options_setting(path)]
        return flags[0] if flags else f"[runner] {key} (given on the command line)"
    return f"{config.source}: [runner] {key}" if config.source else f"[runner] {key} (its default)"


def _program_problem(config: Config, argv: list[str], key: str, *, uip: bool = False) -> str | None:
    """The program (argv[0]) must be found, and the script it is given must exist."""
    if not argv or not argv[0]:
        return f"{_where(config, key)} is empty; name the program to run"
    program = argv[0]
    if config.cluster.engine != "ray":
        problem = _missing_program(config, program)
        if problem is not None:
            hint = (" Is the UiPath CLI installed? To use another one, set [runner] uip = [\"/path/to/uip\"]"
                    if uip else "")
            return f"{_where(config, key)} can't start: {problem}.{hint}"
    script = _script_of(argv)
    if script is not None and not (config.root / script).exists():
        return (f"{_where(config, key)} runs the script {script!r}, which does not exist in {config.root} "
                f"(the target starts there){_similar_file(config.root / script)}")
    return None


def _missing_program(config: Config, program: str) -> str | None:
    """Why `program` won't be found as the runners start it (in the project root, with the target's PATH)."""
    if os.sep in program or (os.altsep and os.altsep in program):
        path = config.root / Path(program).expanduser()
        if not path.exists():
            return f"{program!r} does not exist"
        if path.is_dir() or not os.access(path, os.X_OK):
            return f"{program!r} is not an executable file"
        return None
    search = target_env(config).get("PATH", os.defpath)
    if shutil.which(program, path=search) is not None:
        return None
    return f"{program!r} is not on PATH" + _did_you_mean(program, search)


def _did_you_mean(program: str, search: str) -> str:
    """` (did you mean 'python3'?)` from the programs on PATH that look like the typo."""
    names: set[str] = set()
    for folder in search.split(os.pathsep):
        try:
            with os.scandir(folder or ".") as entries:
                names.update(entry.name for entry in entries if len(entry.name) <= len(program) + 3)
        except OSError:
            continue
    close = difflib.get_close_matches(program, sorted(names), n=1, cutoff=0.75)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _similar_file(path: Path) -> str:
    """` — did you mean 'agent.py'?` from the files beside where the script was looked for."""
    try:
        names = sorted(entry.name for entry in os.scandir(path.parent) if entry.is_file())
    except OSError:
        return ""
    close = difflib.get_close_matches(path.name, names, n=1, cutoff=0.75)
    return f" — did you mean {close[0]!r}?" if close else ""


def _script_of(argv: list[str]) -> str | None:
    """The script file the program is asked to run, when that is plain from the words: `python x.py`,
    `node agent.js`. `python -m mod`, `-c CODE`, `uv run ...` name none."""
    parsed = parse_python_command(argv)
    if isinstance(parsed, PythonCommand):
        first = parsed.target[0]
        return None if first == "-m" else first
    if parsed is not None:  # Python, but run in a way that names no script file
        return None
    if len(argv) > 1 and argv[1].endswith(_SCRIPT_SUFFIXES):  # `node agent.js`; after options it is unclear
        return argv[1]
    return None


def _callable_problem(config: Config) -> str | None:
    """kind = "python": the module of `callable` must be in the project or importable by workbench's Python."""
    spec = config.runner.callable or ""
    top = spec.partition(":")[0].split(".")[0]
    extra = [Path(part) for part in target_env(config).get("PYTHONPATH", "").split(os.pathsep) if part]
    for folder in (config.root, *(config.root / part for part in extra)):  # the worker's sys.path starts so
        if top and ((folder / f"{top}.py").is_file() or (folder / top).is_dir()
                    or any(folder.glob(f"{glob_escape(top)}.*.so"))):
            return None
    if not top:
        return None
    if config.runner.command:  # another interpreter: its packages are not ours to look into
        return None
    from importlib.util import find_spec

    try:
        found = find_spec(top) is not None  # a top-level name: finds it without importing anything
    except (ImportError, ValueError):
        found = False
    if found or top in sys.builtin_module_names:
        return None
    return (f"{_where(config, 'callable')} = {spec!r}: no module {top!r} in {config.root} "
            f"({top}.py or {top}/), nor installed for {sys.executable}")
