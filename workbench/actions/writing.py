"""What accept and add-row share once a change is planned: writing it, or refusing in words."""

from __future__ import annotations

from ..errors import WorkbenchError
from ..writeback import WritebackError, WritePlan, apply_plan


class Refused(WorkbenchError):
    """A write the user asked for that did not (or must not) happen; nothing was written.
    The message is the bare reason; the CLI prints it as `not written: <reason>` and exits 1."""

    exit_code = 1


def write_plan(plan: WritePlan) -> WritePlan:
    """Write the planned change into the file as it is on disk now; the plan as actually written."""
    try:
        return apply_plan(plan)
    except WritebackError as exc:
        raise Refused(str(exc)) from None
