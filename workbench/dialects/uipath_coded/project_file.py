"""`uipath.json`, read the way workbench reads every file it did not write: a regular file at the project root
(not a FIFO, not a link out of the project), at most 1 MiB, JSON whose errors say the line and column.

Its `functions` map names the entry points (`{"main": "main.py:main"}`: entry name -> "file.py:function", split at
the last colon as the SDK does); a row runs the one `[uipath-coded] entrypoint` names, else "main", else the only
one. `agents` entries are run by the SDK through framework runtimes (LangGraph, ...); workbench runs functions only
and says so. Every refusal names `uipath.json`, so the settings layer (`RUNNER_DEFAULTS`) and the loader say the
same thing.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ... import jsonio
from ...compare import type_name
from ...regular_files import read_regular_file
from .layout import DEFAULT_ENTRY, PROJECT_FILE, SECTION

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
    raw: dict[str, Any] = field(default_factory=dict)


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


def entry_file_problem(root: Path, entry: Entry) -> str | None:
    """Why the entry's file can't be run from this project (missing, not a file, or reached through a link or
    a path that leads out of the project), or None."""
    path = entry.path(root)
    shown = f"{PROJECT_FILE}: functions[{jsonio.dumps(entry.name)}] names {entry.file!r}, which"
    try:
        real = path.resolve(strict=True)
    except FileNotFoundError:
        return f"{shown} does not exist"
    except (OSError, RuntimeError):
        return f"{shown} is a link that loops or can't be followed"
    if not real.is_relative_to(root.resolve()):
        return f"{shown} leads outside the project; workbench runs only an entry point inside it"
    if not real.is_file():
        return f"{shown} is not a regular file"
    return None


__all__ = ["MAX_PROJECT_FILE_BYTES", "Entry", "ProjectFile", "ProjectFileError", "choose_entry",
           "entry_file_problem", "read_project_file"]
