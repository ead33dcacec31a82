"""`workbench accept`: bless a row's recorded actual output as its expected output."""

from __future__ import annotations

import sys

import click

from ..history import DB_NAME, HistoryError, HistoryStore
from ..project import ProjectError, load_project
from ..textsafe import printable
from ..writeback import WritebackError
from ..writeback.accept import plan_accept
from ..writeback.recorded import recorded_for_row
from ..writeback.rows import find_row, find_set
from .common import EXIT_OK, fail, load_project_config, project_argument, resolve_root
from .writing import refuse, show_and_write


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
    root = resolve_root(path)
    config = load_project_config(root)
    try:
        project = load_project(root)
    except ProjectError as exc:
        fail(str(exc))
    try:
        eval_set = find_set(project, set_name)
        row = find_row(eval_set, row_ref)
    except WritebackError as exc:
        fail(str(exc))
    evaluators = {ref: ev for (scope, ref), ev in project.evaluators.items() if scope == eval_set.scope}
    if not (config.state_dir / DB_NAME).is_file():
        refuse(f"no recorded output to accept: nothing has run in {root} yet. "
               f"Run it first: workbench run --set {eval_set.stem} --row {row.id}")
    try:
        with HistoryStore.open(config) as store:
            recorded = recorded_for_row(store, eval_set, row, evaluators, evaluator=evaluator, iteration=iteration)
        plan = plan_accept(root, eval_set.path, recorded.results, evaluators)
    except (WritebackError, HistoryError) as exc:
        refuse(str(exc))
    for note in recorded.notes + plan.notes:
        click.echo(f"note: {printable(note)}", err=True)
    label = printable(row.name or row.id)
    if not plan.changed:
        click.echo(f"nothing to change: the expectations of {label!r} already hold the output of "
                   f"iteration {recorded.iteration}")
        sys.exit(EXIT_OK)
    written = show_and_write(plan, dry_run)
    refs = ", ".join(change.label for change in written.changes) or "nothing"
    click.echo(f"accepted the output of iteration {recorded.iteration} as the expectation of {label!r} "
               f"({refs}) in {written.display}")
