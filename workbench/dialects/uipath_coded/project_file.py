"""Whether the entry point `uipath.json` names can run from this project (`workbench check`): its file exists,
is a regular file and is reached without leaving the project. `uipath.json` itself is read by `settings.py`
(the settings decide the runner from it); this is what `check` adds about the file it names.
"""

from __future__ import annotations

from pathlib import Path

from ... import jsonio
from .settings import PROJECT_FILE, Entry


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


__all__ = ["entry_file_problem"]
