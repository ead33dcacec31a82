"""Writing a report to the file a user named (`--html`, `--md`, `--junit`): one rule for all three.

The path is the user's choice and may lie outside the project (`$GITHUB_STEP_SUMMARY`), so what is checked is
what is there now, looked at without following links: a link, a FIFO, a device or a folder is refused with a
message naming it (a link would be replaced by a plain file, or its target overwritten; a FIFO would block the
run), never written through. A missing folder is made, as an editor's "save as" would. The bytes land whole or
not at all (`writeback.atomic.write_atomically`: a temp file beside it, renamed)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ..writeback.atomic import write_atomically


class OutputFileError(Exception):
    """The report was not written; the message says which file, why, and leaves the file as it was."""


def _kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "a link"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    return "not a regular file"


def write_output_file(path: Path, data: bytes, what: str, instead: str = "give the path of a file") -> None:
    """Make `path` hold `data` (`what`, e.g. "the HTML report", names it in errors). OutputFileError when the
    path is not a regular file or missing, or can't be written; nothing of what is there is changed then.
    `instead`: what the user can do about a path that isn't a file."""
    where = f"cannot write {what} to {path}"
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise OutputFileError(f"{where}: {exc.strerror or exc}") from None
    if info is not None and not stat.S_ISREG(info.st_mode):
        raise OutputFileError(f"{where}: it is {_kind(info.st_mode)}, so workbench leaves it alone ({instead})")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, data)
    except OSError as exc:
        raise OutputFileError(f"{where}: {exc.strerror or exc}") from None
