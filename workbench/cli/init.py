"""`workbench init`: start a project — the files Studio Web seeds, and a starter target where there is none."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ..dialects import all_dialects
from ..dialects.base import Dialect, Scaffolds
from .common import EXIT_FAILED, fail, project_argument


def _formats() -> dict[str, Dialect]:
    """`init --format NAME` → the format that scaffolds it (every dialect with starter files: `Scaffolds`)."""
    return {d.init_name: d for d in all_dialects() if isinstance(d, Scaffolds)}


def init_name(dialect: Dialect) -> str:
    """Its `init --format` name ("": it has no starter files)."""
    return dialect.init_name if isinstance(dialect, Scaffolds) else ""


@click.command("init")
@project_argument
@click.option("--format", "file_format", type=click.Choice(sorted(_formats())), default=next(iter(_formats())),
              show_default=True, help="; ".join(f"{name}: {d.words.init_help}" for name, d in _formats().items()) + ".")
@click.pass_context
def init_command(ctx: click.Context, path: str | None, file_format: str) -> None:
    """Create evals/<scope>/evaluators/exact-match-evaluator.json and evals/<scope>/eval-sets/evaluation-set.json
    (the scope the project uses, else default); in a project without a target yet (no Workflow.json, no
    workbench.toml, no eval files) also a starter agent.py, the workbench.toml that runs it and one row, so
    `workbench run` passes at once. With --format, another format's starting files. Existing files are never
    overwritten."""
    target = Path(path or ".").expanduser()
    if target.is_file():
        fail(f"{path} is a file; give the project folder")
    root = target.resolve()
    if ctx.get_parameter_source("file_format") is click.core.ParameterSource.DEFAULT:
        _refuse_beside_another_format(root, _formats()[file_format])
    try:
        root.mkdir(parents=True, exist_ok=True)
        chosen = _formats()[file_format]
        assert isinstance(chosen, Scaffolds)
        done = chosen.scaffold(root)
    except OSError as exc:
        fail(f"cannot write in {root}: {exc.strerror or exc}")
    for item in done.created:
        click.echo(f"created {item}")
    for item in done.kept:
        click.echo(f"kept    {item} (already exists; not overwritten)")
    for item in done.skipped:  # each says why: "path (reason)"
        click.echo(f"skipped {item}")
    if not done.created:
        if not done.skipped:
            click.echo("nothing to do: the project already has what init would create", err=True)
            sys.exit(EXIT_FAILED)
        # not "already has": a format left files out on purpose (each skipped line says why); what next still holds
        click.echo(f"\n{done.next_steps}")
        click.echo("nothing written: every file above is kept or skipped, each saying why", err=True)
        sys.exit(EXIT_FAILED)
    click.echo(f"\n{done.next_steps}")


def _refuse_beside_another_format(root: Path, chosen: Dialect) -> None:
    """A bare `init` in a project that already holds another format's evals (a Botpress project's
    evals/*.eval.ts) would seed UiPath files beside them: say what is there instead, and write nothing."""
    if not root.is_dir():
        return
    others = [d for d in all_dialects() if d is not chosen and d.present(root, None)]
    if others:
        found = "; ".join(f"{d.title} ({d.words.expects})" for d in others)
        other = init_name(others[0]) or init_name(chosen)
        fail(f"{root} already holds {found}: `workbench run` runs them as they are. `init` would add "
             f"{chosen.title} beside them; give --format {init_name(chosen)} to do that anyway, or --format "
             f"{other} for a starter file of the format that is there.", EXIT_FAILED)
