"""What `accept` and `add-row` share: refusing clearly, and showing a change before writing it."""

from __future__ import annotations

import sys
from typing import NoReturn

import click

from ..textsafe import printable
from ..writeback import WritebackError, WritePlan, apply_plan
from .common import EXIT_FAILED, EXIT_OK


def refuse(message: str) -> NoReturn:
    click.echo(f"workbench: not written: {printable(message)}", err=True)
    sys.exit(EXIT_FAILED)


def show_and_write(plan: WritePlan, dry_run: bool) -> WritePlan:
    """Print the change as a diff; with `dry_run` stop there (exit 0), else write it (or refuse)."""
    click.echo(printable(plan.diff()))
    if dry_run:
        click.echo("(dry run: nothing written)")
        sys.exit(EXIT_OK)
    try:
        return apply_plan(plan)
    except WritebackError as exc:
        refuse(str(exc))
