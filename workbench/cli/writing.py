"""What `accept` and `add-row` print around a write: notes, the change as a diff, then the write."""

from __future__ import annotations

import click

from ..actions.writing import write_plan
from ..textsafe import printable
from ..writeback import WritePlan


def print_notes(notes: list[str]) -> None:
    for note in notes:
        click.echo(f"note: {printable(note)}", err=True)


def show_and_write(plan: WritePlan, dry_run: bool) -> WritePlan | None:
    """Print the change as a diff; with `dry_run` stop there (None), else write it (Refused if it can't)."""
    click.echo(printable(plan.diff()))
    if dry_run:
        click.echo("(dry run: nothing written)")
        return None
    return write_plan(plan)
