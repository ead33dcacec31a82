"""Why a write-back was refused. The message is for the user: it says what to do next."""

from __future__ import annotations

from ..errors import WorkbenchError


class WritebackError(WorkbenchError):
    """A write-back that can't (or must not) happen; nothing was written."""


class ConcurrentChange(WritebackError):
    """The file changed on disk between reading it and replacing it; the other writer's bytes were kept."""
