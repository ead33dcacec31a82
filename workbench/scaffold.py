"""What every format's `workbench init` shares: writing a starter file only where nothing is, and the
starter target (`agent.py` and the `workbench.toml` that runs it) for formats that call a target once
per row."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from . import jsonio
from .config import find_config_file
from .errors import WorkbenchError
from .safe_paths import NEW_FILE_MODE, open_folder
from .writeback.atomic import create_new

_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)

STARTER_TARGET = "agent.py"
SETTINGS_FILE = "workbench.toml"

# The starter target speaks the command runner's protocol (docs/running.md) and runs on any
# Python 3: it is the user's file from the moment init writes it.
STARTER_TARGET_TEXT = '''"""A starter target for workbench: make `answer` call your agent.

workbench runs `python agent.py` once per row (workbench.toml, [runner]). The row's `inputs` arrive as
JSON on stdin; the JSON object printed on stdout is the output, compared with the row's
evaluationCriterias[...].expectedOutput exactly: key names, casing and value types included. What is
written to stderr is the row's log.
"""

import json
import sys


def answer(inputs):
    name = inputs.get("name", "world")
    print(f"greeting {name}", file=sys.stderr)  # shows in the row's log
    return {"greeting": f"Hello, {name}!"}


if __name__ == "__main__":
    print(json.dumps(answer(json.load(sys.stdin))))
'''

# "{python}" is the interpreter workbench runs on: the one that ran `init` (same install), and still the
# right one in a clone of the project on another machine or in CI, where an absolute path to this
# machine's interpreter would not exist and a `python3` on PATH may be missing or another Python.
STARTER_SETTINGS_TEXT = f'''# How workbench runs the target (docs/running.md). Each row's inputs go to
# {STARTER_TARGET} as JSON on stdin; its stdout is the output. "{{python}}" is the interpreter workbench runs on.
[runner]
kind = "command"
command = ["{{python}}", "{STARTER_TARGET}"]
timeout = 60
'''


def create_json(path: Path, value: Any) -> bool:
    """Write `value` as indented JSON to `path` only if nothing is there; False when it exists."""
    return create_new(path, json_bytes(value))


def json_bytes(value: Any) -> bytes:
    return (jsonio.dumps(value, indent=True) + "\n").encode("utf-8")


def create_file(root: Path, relative: str, data: bytes) -> bool:
    """Write `data` to `root/relative` only if nothing is there (False when something is: a file, a
    link, anything), creating its folders — walking them one at a time without following a link, so
    nothing is written outside the project (a link on the way raises `safe_paths.UnsafePath`)."""
    parts = PurePosixPath(relative).parts
    folder = open_folder(root, parts[:-1], create=True)
    try:
        fd = os.open(parts[-1], _CREATE, NEW_FILE_MODE, dir_fd=folder)
    except FileExistsError:
        return False
    finally:
        os.close(folder)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    return True


FileWriter = Callable[[Path, str, bytes], bool]


@dataclass(slots=True)
class Written:
    """What an `init` did, file by file (paths relative to `root`): `created`, `kept` (something was already
    there; nothing is overwritten) and `skipped` (each with why). `write` creates one file, False when something
    is there (`create_file`, or a format's own such as one that writes a file whole or not at all)."""

    root: Path
    write: FileWriter = create_file
    created: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)

    def create(self, relative: str, data: bytes) -> None:
        (self.created if self.write(self.root, relative, data) else self.kept).append(relative)

    def skip(self, relative: str, why: str) -> None:
        self.skipped.append(f"{relative} ({why})")


def settings_source(root: Path) -> Path | None:
    """The project's settings file (`workbench.toml`, or a pyproject with `[tool.workbench]`), or None: a
    starter target is written only beside no settings, and a settings file that doesn't read is still the user's."""
    try:
        source, _ = find_config_file(root)
    except WorkbenchError:
        return root / SETTINGS_FILE
    return source
