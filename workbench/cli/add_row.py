"""`workbench add-row`: run the target once on new inputs and append the row, expectations included."""

from __future__ import annotations

import asyncio
import uuid

import click

from .. import jsonio
from ..config import ConfigError, resolve_runner_kind
from ..project import ProjectError, load_project
from ..textsafe import printable
from ..writeback import WritebackError
from ..writeback.add_row import build_row, parse_inputs, plan_add_row, run_target_on
from ..writeback.rows import find_set
from .common import fail, load_project_config, project_argument, resolve_root
from .writing import refuse, show_and_write


@click.command("add-row")
@project_argument
@click.option("--set", "set_name", required=True, metavar="SET",
              help="The eval set (file base name, e.g. grading; scope/name when two scopes have one).")
@click.option("--name", required=True, metavar="NAME", help="The new row's name (must be new in the set).")
@click.option("--inputs", "inputs_text", required=True, metavar="JSON",
              help="The row's inputs as a JSON object, e.g. '{\"score\": 72}'.")
@click.option("--command", "command", metavar="CMD", help="Target command (overrides [runner] command).")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), metavar="SECONDS",
              help="Time limit for the run (overrides [runner] timeout).")
@click.option("--dry-run", is_flag=True, help="Run the target and show the row; write nothing.")
def add_row_command(path: str | None, set_name: str, name: str, inputs_text: str, command: str | None,
                    timeout: float | None, dry_run: bool) -> None:
    """Run the target once on --inputs, print its output, and append a row to the eval set.

    The row gets a fresh UUID, NAME, the inputs, and for each of the set's evaluators an expectedOutput
    built from the output (only the compared paths when the evaluator has a targetOutputKey). It is
    written like the set's existing rows. Exit status: 0 added, 1 refused or the run failed (nothing
    written), 2 usage errors.
    """
    root = resolve_root(path)
    config = load_project_config(root, command=command, timeout=timeout)
    try:
        inputs = parse_inputs(inputs_text)
        project = load_project(root)
        eval_set = find_set(project, set_name)
        resolve_runner_kind(config)
    except (WritebackError, ProjectError, ConfigError) as exc:
        fail(str(exc))
    if any(row.name == name for row in eval_set.rows):
        refuse(f"{eval_set.file_name} already has a row named {name!r}; choose another name")
    evaluators = {ref: ev for (scope, ref), ev in project.evaluators.items() if scope == eval_set.scope}
    row_id = str(uuid.uuid4())
    try:
        outcome = asyncio.run(run_target_on(config, eval_set, name, inputs, row_id=row_id))
    except ConfigError as exc:
        fail(str(exc))
    except KeyboardInterrupt:
        fail("interrupted; the target was stopped", 130)
    if not outcome.ok:
        refuse(f"the run ended in ERROR, so there is no output to build the row from:\n{outcome.error}")
    click.echo("output:")
    click.echo(printable(jsonio.dumps(outcome.output, indent=True)))
    try:
        row, notes = build_row(name, inputs, outcome.output, eval_set.evaluator_refs, evaluators, row_id=row_id)
        plan = plan_add_row(root, eval_set.path, row)
    except WritebackError as exc:
        refuse(str(exc))
    for note in notes + plan.notes:
        click.echo(f"note: {printable(note)}", err=True)
    written = show_and_write(plan, dry_run)
    click.echo(f"added row {printable(name)!r} (id {row_id}) to {written.display}")
