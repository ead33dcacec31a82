"""`workbench add-row --from-run ITERATION --row ROW [--script | --set SET] [--name NAME]`: a new
scripted case, or a row of an eval set, from what history recorded — nothing runs again."""

from __future__ import annotations

from typing import Any

import click

from ..actions.from_run import plan_script_case, plan_set_row, recorded_row, write_case
from ..config import Config
from ..project import load_project
from ..textsafe import printable
from .writing import print_notes, show_and_write


def check_options(*, row: str | None, script: bool, set_name: str | None, inputs: str | None) -> None:
    """The option combinations --from-run takes (click.UsageError, exit 2, otherwise)."""
    if row is None:
        raise click.UsageError("--from-run needs --row ROW (the row's id or name in that iteration)")
    if inputs is not None:
        raise click.UsageError("--from-run takes the recorded inputs; leave out --inputs")
    if script and set_name is not None:
        raise click.UsageError("--script writes evals/<name>.script.json; leave out --set (or --script)")
    if not script and set_name is None:
        raise click.UsageError("--from-run needs --script (a scripted case) or --set SET (a row of that set)")


def add_from_run(config: Config, iteration: int, row: str, *, script: bool, set_name: str | None,
                 name: str | None, dry_run: bool, criteria: dict[str, Any] | None = None) -> None:
    recorded = recorded_row(config, iteration, row)
    project = load_project(config.root, config)
    if not script:
        assert set_name is not None
        new_row = plan_set_row(project, recorded, set_name, name, criteria)
        print_notes(new_row.notes)
        written = show_and_write(new_row.plan, dry_run)
        if written is not None:
            click.echo(f"added row {printable(new_row.run.name)!r} (id {new_row.run.row_id}) to {written.display}, "
                       f"from {printable(recorded.where)}")
        return
    case = plan_script_case(config, project, recorded, name)
    print_notes(case.notes)
    click.echo(f"new file {printable(case.display)}:")
    click.echo(printable(case.text.rstrip("\n")))
    if dry_run:
        click.echo("(dry run: nothing written)")
        return
    write_case(case)
    click.echo(f"added case {printable(case.name)!r} as {printable(case.display)}, from {printable(recorded.where)}")
