"""A settings message as a `Problem` that names its file once.

A `ConfigError` says where it comes from (`/abs/project/workbench.toml: [runner] timeout must be ...`): that
`<file>: ` becomes the problem's file, relative to the project, so `check`, `run` and the loop print
`problem: workbench.toml: [runner] timeout ...`, never `workbench.toml: /abs/project/workbench.toml: ...`."""

from __future__ import annotations

from pathlib import Path

from ..model import Problem, Severity

SETTINGS_FILES = ("workbench.toml", "pyproject.toml", ".appilotsrc")


def _relative(root: Path, path: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def settings_problem(root: Path, message: str, source: Path | None = None,
                     severity: Severity = Severity.ERROR, file: Path | None = None) -> Problem:
    """`message` (a ConfigError's text) as a Problem of the settings file it names, or of `source`; or of
    `file` (a ConfigError's `.file`: a format's own file, such as uipath.json), its name said once."""
    if file is not None:
        name = _relative(root, file)
        for prefix in (f"{file}: ", f"{name}: ", f"{name} "):
            if message.startswith(prefix):
                return Problem(name, message[len(prefix):], severity)
        return Problem(name, message, severity)
    for prefix in dict.fromkeys(filter(None, (str(source) if source else None,
                                              *(str(root / name) for name in SETTINGS_FILES)))):
        if message.startswith(prefix + ": "):
            return Problem(_relative(root, Path(prefix)), message[len(prefix) + 2:], severity)
    name = _relative(root, source) if source is not None else "workbench.toml"
    return Problem(name, message.removeprefix(f"{name}: "), severity)
