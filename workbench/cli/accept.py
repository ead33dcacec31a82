"""`workbench accept`: bless a row's recorded actual output as its expected output."""

from __future__ import annotations

import click

from ..actions.accept import preview_recorded_accept
from ..textsafe import printable
from .common import load_project_config, project_argument, resolve_root
from .writing import print_notes, show_and_write


@click.command("accept")
@project_argument
@click.option("--set", "set_name", required=True, metavar="SET",
              help="The eval set (file base name, e.g. grading; scope/name when two scopes have one).")
@click.option("--row", "row_ref", required=True, metavar="ID_OR_NAME", help="The row, by id or exact name.")
@click.option("--evaluator", metavar="REF",
              help="Only this evaluator's expectation (default: every evaluator of the row that compares "
                   "with expectedOutput).")
@click.option("--iteration", type=click.IntRange(min=1), metavar="N",
              help="Use the output recorded in iteration N (default: the newest iteration that ran the row).")
@click.option("--dry-run", is_flag=True, help="Show the change; write nothing.")
def accept_command(path: str | None, set_name: str, row_ref: str, evaluator: str | None, iteration: int | None,
                   dry_run: bool) -> None:
    """Write a row's recorded actual output into its evaluationCriterias[REF].expectedOutput.

    Only the changed expectation's bytes change; with a targetOutputKey path only those paths are set.
    Prints the change as a diff. Exit status: 0 written (or nothing to change), 1 refused (nothing
    written), 2 usage errors.
    """
    config = load_project_config(resolve_root(path))
    preview = preview_recorded_accept(config, set_name, row_ref, evaluator=evaluator, iteration=iteration)
    print_notes(preview.notes)
    label = printable(preview.label)
    if not preview.changed:
        click.echo(f"nothing to change: the expectations of {label!r} already hold the output of "
                   f"iteration {preview.iteration}")
        return
    written = show_and_write(preview.plan, dry_run)
    if written is not None:
        refs = ", ".join(change.label for change in written.changes) or "nothing"
        click.echo(f"accepted the output of iteration {preview.iteration} as the expectation of {label!r} "
                   f"({refs}) in {written.display}")
