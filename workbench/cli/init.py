"""`workbench init`: start a project — the files Studio Web seeds, and a starter target where there is none."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ..dialects import all_dialects
from ..dialects.base import Dialect
from .common import EXIT_FAILED, fail, project_argument


def _formats() -> dict[str, Dialect]:
    """`init --format NAME` → the format that scaffolds it (every dialect with starter files)."""
    return {d.init_name: d for d in all_dialects() if d.init_name}


@click.command("init")
@project_argument
@click.option("--format", "file_format", type=click.Choice(sorted(_formats())), default=next(iter(_formats())),
              show_default=True, help="; ".join(f"{name}: {d.init_help}" for name, d in _formats().items()) + ".")
def init_command(path: str | None, file_format: str) -> None:
    """Create evals/<scope>/evaluators/exact-match-evaluator.json and evals/<scope>/eval-sets/evaluation-set.json
    (the scope the project uses, else default); in a project without a target yet (no Workflow.json, no
    workbench.toml, no eval files) also a starter agent.py, the workbench.toml that runs it and one row, so
    `workbench run` passes at once. With --format, another format's starting files. Existing files are never
    overwritten."""
    target = Path(path or ".").expanduser()
    if target.is_file():
        fail(f"{path} is a file; give the project folder")
    root = target.resolve()
    try:
        root.mkdir(parents=True, exist_ok=True)
        done = _formats()[file_format].scaffold(root)
    except OSError as exc:
        fail(f"cannot write in {root}: {exc.strerror or exc}")
    for item in done.created:
        click.echo(f"created {item}")
    for item in done.kept:
        click.echo(f"kept    {item} (already exists; not overwritten)")
    for item in done.skipped:  # each says why: "path (reason)"
        click.echo(f"skipped {item}")
    if not done.created:
        click.echo("nothing to do: the project already has what init would create", err=True)
        sys.exit(EXIT_FAILED)
    click.echo(f"\n{done.next_steps}")
