"""`workbench init`: scaffold the files Studio Web seeds when Evaluations is first enabled."""

from __future__ import annotations

import sys

import click

from .. import scaffold
from .common import EXIT_FAILED, fail, project_argument, resolve_root


@click.command("init")
@project_argument
def init_command(path: str | None) -> None:
    """Create evals/default/evaluators/exact-match-evaluator.json and an empty
    evals/default/eval-sets/evaluation-set.json. Existing files are never overwritten."""
    root = resolve_root(path) if path else resolve_root(".")
    try:
        created, kept = scaffold.init_project(root)
    except OSError as exc:
        fail(f"cannot write in {root}: {exc.strerror or exc}")
    for item in created:
        click.echo(f"created {item}")
    for item in kept:
        click.echo(f"kept    {item} (already exists; not overwritten)")
    if not created:
        click.echo("nothing to do: every file already exists", err=True)
        sys.exit(EXIT_FAILED)
    click.echo("\nNext: add rows to the eval set, say how to run your target in workbench.toml, then "
               "`workbench run`.")
