"""The coded-agent format's section of workbench.toml, `[uipath-coded]`, and the `[runner]` such a project gets
without one (`RUNNER_DEFAULTS`, asked by `config.load_config`), with what that needs of `uipath.json`.

A coded agent project already says how its rows run: `uipath.json` names the entry point, and the SDK runs it in
the project's own Python. So `workbench run` works there with no workbench.toml: each row goes to a warm worker
(`child_main.py`, run by the project's interpreter) that executes the entry point as `uipath eval` does. The
`[runner]` table still rules what it says: `command` names the interpreter (e.g. [".venv/bin/python"]), and a
`kind` or `callable` of its own replaces all of this.

`uipath.json` is read the way workbench reads every file it did not write: a regular file at the project root
(not a FIFO, not a link out of the project), at most 1 MiB, JSON whose errors say the line and column. Its
`functions` map names the entry points (`{"main": "main.py:main"}`: entry name -> "file.py:function", split at
the last colon as the SDK does); rows run the one `entrypoint` names, else "main", else the only one. `agents`
entries the SDK runs through framework runtimes (LangGraph, ...); workbench runs functions only and says so.
It lives here, in the settings layer, because the settings decide the runner from it (the loader and `check`
read it through this module too, so all say the same).

The SDK reports only scores; workbench's verdict is PASS when a score reaches `pass_threshold` (or the
evaluator's own entry in `thresholds`). Boolean evaluators (exact match, contains, strict order) score 0 or 1,
so they pass only at 1 whatever the threshold.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import Field

from ... import jsonio
from ...compare import type_name
from ...config import ConfigError
from ...regular_files import read_regular_file
from ...settings.base import Kind, Rate, Section, Text, empty_table
from ...settings.sections import RunnerConfig
from .names import DEFAULT_ENTRY, EVALUATIONS_DIR, PROJECT_FILE, SECTION

if TYPE_CHECKING:
    from ...config import Config

CHILD_MAIN = Path(__file__).resolve().with_name("child_main.py")
# The child as the runner's command names it: found where the command starts, so a Ray worker runs its own copy
CHILD_ARG = "{workbench}/dialects/uipath_coded/child_main.py"
WORKBENCH_PYTHON = "{python}"
VENV_PYTHONS = (Path(".venv") / "bin" / "python", Path(".venv") / "Scripts" / "python.exe")


class CodedConfig(Section):
    """UiPath coded agent evals (uipath.json + evaluations/eval-sets/*.json)."""

    entrypoint: Text | None = Field(default=None, description=(
        "The uipath.json function each row runs (unset: \"main\", else the only one)"))
    pass_threshold: Rate = Field(default=1.0, description=(
        "A result passes when its score is at least this (boolean evaluators score only 0 or 1)"))
    thresholds: Annotated[dict[Text, Rate], Kind("table of numbers", "a table of evaluator ids to numbers between "
                                                  "0 and 1")] = Field(default_factory=empty_table, description=(
        "Per evaluator id, the score its results pass at, in place of pass_threshold"))


SECTIONS = {SECTION: CodedConfig}


def is_coded_project(root: Path) -> bool:
    """`uipath.json` beside an `evaluations/` folder: the layout `uipath eval` reads."""
    return os.path.lexists(root / PROJECT_FILE) and (root / EVALUATIONS_DIR).is_dir()


def RUNNER_DEFAULTS(root: Path, config: Config) -> RunnerConfig | None:
    """The `[runner]` of a coded agent project whose settings don't choose a kind or a callable: a worker
    pool running `child_main.py` in the project's interpreter on the entry point uipath.json names. None for
    any other project. ConfigError (naming uipath.json) when uipath.json can't say which function runs."""
    runner = config.runner
    if runner.kind or runner.callable or not is_coded_project(root):
        return None
    try:
        entry = choose_entry(read_project_file(root), config.section(CodedConfig).entrypoint)
    except ProjectFileError as exc:
        raise ConfigError(str(exc)) from None
    # the entry's file as uipath.json writes it, relative to the project root (the worker's folder: on a Ray
    # worker, the project shipped there)
    # and the reply size the pool reads ([runner] max_output_mb), so the child says an output over it in words
    command = [*interpreter(root, runner.command), CHILD_ARG, entry.file, entry.function, repr(runner.max_output_mb)]
    return runner.model_copy(update={"kind": "worker", "command": command})


def interpreter(root: Path, command: list[str] | None) -> list[str]:
    """The project's Python: `[runner] command` (a path in it made absolute against the root), else the
    project's `.venv` (its python is a link on purpose: not resolved), else workbench's own."""
    if command:
        first = command[0]
        if WORKBENCH_PYTHON not in first and not os.path.isabs(first) and ("/" in first or os.sep in first):
            first = str(root / first)
        return [first, *command[1:]]
    for venv_python in VENV_PYTHONS:
        if (root / venv_python).is_file():
            return [str(root / venv_python)]
    return [WORKBENCH_PYTHON]


# -- uipath.json -------------------------------------------------------------------------------------

MAX_PROJECT_FILE_BYTES = 1024 * 1024


class ProjectFileError(ValueError):
    """`uipath.json` can't say which function a row runs; the message names the file and what is wrong."""


@dataclass(frozen=True, slots=True)
class Entry:
    """One entry point: its name in `functions`, the file (as written, relative to the root) and the function."""

    name: str
    file: str
    function: str

    @property
    def spec(self) -> str:
        return f"{self.file}:{self.function}"

    def path(self, root: Path) -> Path:
        return root / self.file


@dataclass(frozen=True, slots=True)
class ProjectFile:
    """What `uipath.json` declares: its function entry points, and the names of its agents (not run here)."""

    functions: dict[str, Entry]
    agents: tuple[str, ...] = ()
    raw: dict[str, Any] = field(default_factory=empty_table)


def read_project_file(root: Path) -> ProjectFile:
    """The project's `uipath.json`, or ProjectFileError saying what is wrong with it."""
    path = root / PROJECT_FILE
    refusal = _refusal(root, path)
    if refusal:
        raise ProjectFileError(f"{PROJECT_FILE} {refusal}")
    try:
        data = read_regular_file(path, MAX_PROJECT_FILE_BYTES)
    except FileNotFoundError:
        raise ProjectFileError(f"{PROJECT_FILE} is missing: write {{\"functions\": {{\"main\": \"main.py:main\"}}}}") \
            from None
    except OSError as exc:
        raise ProjectFileError(f"{PROJECT_FILE} cannot be read: {exc.strerror or exc}") from None
    try:
        doc = jsonio.parse(data).value
    except jsonio.JsonError as exc:
        where = f" at line {exc.line}, column {exc.column}" if exc.line is not None else ""
        raise ProjectFileError(f"{PROJECT_FILE} is not valid JSON{where}: {exc.message}") from None
    if not isinstance(doc, dict):
        raise ProjectFileError(f"{PROJECT_FILE} must be a JSON object such as {{\"functions\": {{\"main\": "
                               f"\"main.py:main\"}}}}, not {type_name(doc)}")
    return ProjectFile(_functions(doc.get("functions")), _agents(doc.get("agents")), doc)


def _refusal(root: Path, path: Path) -> str | None:
    """Why `path` is not read: a link that leads out of the project (or loops)."""
    if not os.path.islink(path):
        return None
    try:
        real = path.resolve(strict=True)
    except (OSError, RuntimeError):
        return "is a link that loops or leads nowhere; not read"
    if not real.is_relative_to(root.resolve()):
        return "is a link to a file outside the project; not read"
    return None


def _functions(value: Any) -> dict[str, Entry]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ProjectFileError(f"{PROJECT_FILE}: \"functions\" must be an object of entry name -> "
                               f"\"file.py:function\", not {type_name(value)}")
    found: dict[str, Entry] = {}
    for name, spec in value.items():
        where = f"{PROJECT_FILE}: functions[{jsonio.dumps(name)}]"
        if not isinstance(spec, str):
            raise ProjectFileError(f"{where} must be a string \"file.py:function\", not {type_name(spec)}")
        file, colon, function = spec.rpartition(":")
        if not colon or not file.strip() or not function.strip():
            raise ProjectFileError(f"{where} is {spec!r}; write \"file.py:function\" (the file, relative to the "
                                   "project root, a colon, the function's name)")
        found[name] = Entry(name, file, function)
    return found


def _agents(value: Any) -> tuple[str, ...]:
    return tuple(str(name) for name in value) if isinstance(value, dict) else ()


def choose_entry(project: ProjectFile, wanted: str | None, setting: str = f"[{SECTION}] entrypoint") -> Entry:
    """The entry point rows run: `wanted` (the setting), else "main", else the only function."""
    functions = project.functions
    names = ", ".join(repr(name) for name in functions)
    if wanted is not None:
        if wanted in functions:
            return functions[wanted]
        if wanted in project.agents:
            raise ProjectFileError(f"{setting} = {wanted!r} names an \"agents\" entry of {PROJECT_FILE}; workbench "
                                   f"runs only \"functions\" entries (a file.py:function), not agents")
        listed = f"its functions: {names}" if functions else "it has no \"functions\""
        raise ProjectFileError(f"{setting} = {wanted!r} is not an entry point of {PROJECT_FILE} ({listed})")
    if DEFAULT_ENTRY in functions:
        return functions[DEFAULT_ENTRY]
    if len(functions) == 1:
        return next(iter(functions.values()))
    if functions:
        raise ProjectFileError(f"{PROJECT_FILE} names several functions ({names}) and none is called "
                               f"{DEFAULT_ENTRY!r}: say which one the rows run, e.g. {setting} = "
                               f"{next(iter(functions))!r} in workbench.toml")
    if project.agents:
        agents = ", ".join(repr(name) for name in project.agents)
        raise ProjectFileError(f"{PROJECT_FILE} has only \"agents\" entries ({agents}), which workbench does not "
                               "run; add a \"functions\" entry such as {\"main\": \"main.py:main\"}")
    raise ProjectFileError(f"{PROJECT_FILE} has no \"functions\": add one such as {{\"functions\": {{\"main\": "
                           f"\"main.py:main\"}}}}")


__all__ = ["CHILD_ARG", "CHILD_MAIN", "DEFAULT_ENTRY", "EVALUATIONS_DIR", "MAX_PROJECT_FILE_BYTES", "PROJECT_FILE",
           "RUNNER_DEFAULTS", "SECTION", "SECTIONS", "CodedConfig", "Entry", "ProjectFile", "ProjectFileError",
           "choose_entry", "interpreter", "is_coded_project", "read_project_file"]
