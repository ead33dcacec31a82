"""`workbench add-row`: run the target once on new inputs and append the row, expectations included."""

from __future__ import annotations

from typing import Any

import click

from .. import jsonio
from ..actions.add_row import check_new_criteria, check_new_row, plan_new_row, run_for_new_row
from ..actions.checks import check_runnable
from ..actions.signals import run_until_stopped
from ..textsafe import printable
from ..writeback.add_row import parse_criterion
from ..writeback.rows import find_set
from .common import fail, load_project_config, project_argument, resolve_root, setting_options
from .from_run import add_from_run, check_options
from .writing import print_notes, show_and_write


@click.command("add-row")
@project_argument
@click.option("--set", "set_name", metavar="SET",
              help="The eval set (file base name, e.g. grading; scope/name when two scopes have one).")
@click.option("--name", metavar="NAME", help="The new row's name (must be new in the set).")
@click.option("--inputs", "inputs_text", metavar="JSON",
              help="The row's inputs as a JSON object, e.g. '{\"score\": 72}'.")
@click.option("--criterion", "criterion_texts", multiple=True, metavar="REF=JSON",
              help="The new row's criterion for an evaluator that doesn't compare with expectedOutput, e.g. "
                   "contains='{\"searchText\": \"refund\"}'. Required for such evaluators; repeatable.")
@click.option("--from-run", "from_run", type=int, metavar="ITERATION",
              help="Build the row from what history recorded in ITERATION (see `workbench history`); runs nothing.")
@click.option("--row", "row_ref", metavar="ROW", help="With --from-run: the row (id or name) whose run to copy.")
@click.option("--script", is_flag=True,
              help="With --from-run: write evals/<name>.script.json, a scripted replay of the run (name: the row id).")
@setting_options("add-row")
@click.option("--dry-run", is_flag=True, help="Run the target and show the row; write nothing.")
def add_row_command(path: str | None, set_name: str | None, name: str | None, inputs_text: str | None,
                    criterion_texts: tuple[str, ...], from_run: int | None, row_ref: str | None, script: bool,
                    dry_run: bool) -> None:
    """Run the target once on --inputs, print its output, and append a row to the eval set.

    The row gets a fresh UUID, NAME, the inputs, and for each of the set's evaluators an expectedOutput
    built from the output (only the compared paths when the evaluator has a targetOutputKey); an
    evaluator that doesn't compare with expectedOutput (uipath-contains, ...) takes its criterion from
    --criterion REF=JSON, checked before anything runs. It is written like the set's existing rows.
    Exit status: 0 added, 1 refused or the run failed (nothing written), 2 usage errors.

    With --from-run ITERATION --row ROW nothing runs: the row is built from what history recorded
    for ROW in ITERATION — with --set, a row of that set with the recorded inputs and output; with
    --script, a scripted case evals/<name>.script.json whose steps are the run's tool calls (their
    recorded outputs as results), approvals and outputs, expecting its status and final output.
    An unknown iteration or row, or an existing case or name, is refused (exit 1).
    """
    config = load_project_config(resolve_root(path))
    if script and criterion_texts:
        raise click.UsageError("--criterion gives a row of an eval set its criterion; leave it out with --script")
    if from_run is not None:
        check_options(row=row_ref, script=script, set_name=set_name, inputs=inputs_text)
        add_from_run(config, from_run, row_ref or "", script=script, set_name=set_name, name=name, dry_run=dry_run,
                     criteria=_criteria(criterion_texts))
        return
    if row_ref is not None or script:
        raise click.UsageError("--row and --script go with --from-run ITERATION")
    if set_name is None or name is None or inputs_text is None:
        raise click.UsageError("add-row needs --set, --name and --inputs (or --from-run ITERATION --row ROW)")
    project = check_runnable(config, watching=False)
    eval_set = find_set(project, set_name)
    inputs = check_new_row(eval_set, name, inputs_text)
    criteria = _criteria(criterion_texts)
    check_new_criteria(project, eval_set, criteria)
    run = run_until_stopped(run_for_new_row(config, eval_set, name, inputs), note="the target was stopped")
    click.echo("output:")
    click.echo(printable(jsonio.dumps(run.output, indent=True)))
    new_row = plan_new_row(project, eval_set, run, criteria)
    print_notes(new_row.notes)
    written = show_and_write(new_row.plan, dry_run)
    if written is not None:
        click.echo(f"added row {printable(name)!r} (id {run.row_id}) to {written.display}")


def _criteria(texts: tuple[str, ...]) -> dict[str, Any]:
    """`--criterion REF=JSON` options as {ref: criterion}."""
    criteria: dict[str, Any] = {}
    for text in texts:
        ref, sep, value = text.partition("=")
        if not sep or not ref.strip():
            fail(f"--criterion {text!r}: write it as REF=JSON, e.g. contains='{{\"searchText\": \"refund\"}}'")
        criteria[ref.strip()] = parse_criterion(ref.strip(), value)
    return criteria
