"""The one base class for problems a user can fix: every front-end shows its message as it is
(the CLI on stderr with an exit code, the TUI as a notification) instead of a traceback."""

from __future__ import annotations


class WorkbenchError(Exception):
    """A problem with the user's files, settings or request, told in words that say what to do.
    `exit_code` is what the CLI exits with: 2 for usage and project problems, 1 for refusals."""

    exit_code: int = 2

    def __init__(self, message: str, *, exit_code: int | None = None) -> None:
        super().__init__(message)
        if exit_code is not None:
            self.exit_code = exit_code
