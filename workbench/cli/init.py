"""`workbench init`: scaffold the files Studio Web seeds when Evaluations is first enabled."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from .. import scaffold
from .common import EXIT_FAILED, fail, project_argument


@click.command("init")
@project_argument
def init_command(path: str | None) -> None:
    """Create evals/default/evaluators/exact-match-evaluator.json and an empty
    evals/default/eval-sets/evaluation-set.json. Existing files are never overwritten."""
    target = Path(path or ".").expanduser()
    if target.is_file():
        fail(f"{path} is a file; give the project folder")
    root = target.resolve()
    try:
        root.mkdir(parents=True, exist_ok=True)
        created, kept, skipped = scaffold.init_project(root)
    except OSError as exc:
        fail(f"cannot write in {root}: {exc.strerror or exc}")
    for item in created:
        click.echo(f"created {item}")
    for item in kept:
        click.echo(f"kept    {item} (already exists; not overwritten)")
    for item in skipped:
        click.echo(f"skipped {item} (the project already has eval sets)")
    if not created:
        click.echo("nothing to do: the project already has what init would create", err=True)
        sys.exit(EXIT_FAILED)
    click.echo("\nNext: add rows to the eval set, say how to run your target in workbench.toml, then "
               "`workbench run`.")
