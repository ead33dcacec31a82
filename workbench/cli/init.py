"""`workbench init`: scaffold the files Studio Web seeds when Evaluations is first enabled."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import click

from .. import scaffold
from ..dialects.conversations import scaffold as conversations_scaffold
from ..dialects.scenarios import scaffold as scenarios_scaffold
from ..replay import scaffold as replays_scaffold
from .common import EXIT_FAILED, fail, project_argument

UIPATH_NEXT = ("Next: add rows to the eval set, say how to run your target in workbench.toml, then "
               "`workbench run`.")
# --format NAME: (what creates its files, returning (created, kept, skipped); what to do next)
FORMATS: dict[str, tuple[Callable[[Path], tuple[list[str], list[str], list[str]]], str]] = {
    "uipath": (scaffold.init_project, UIPATH_NEXT),
    "appilots": (scenarios_scaffold.init_scenarios, scenarios_scaffold.NEXT_STEPS),
    "botpress": (conversations_scaffold.init_conversations, conversations_scaffold.NEXT_STEPS),
    "plico": (replays_scaffold.init_replays, replays_scaffold.NEXT_STEPS),
}


@click.command("init")
@project_argument
@click.option("--format", "file_format", type=click.Choice(sorted(FORMATS)), default="uipath", show_default=True,
              help="uipath: the evals/ files Studio Web seeds; appilots: .appilots/scenarios/example.json; "
                   "botpress: evals/greeting.eval.json (a conversation eval); plico: tools.json and "
                   "evals/smoke.script.json (scripted replays, no target).")
def init_command(path: str | None, file_format: str) -> None:
    """Create evals/default/evaluators/exact-match-evaluator.json and an empty
    evals/default/eval-sets/evaluation-set.json (or, with --format, another format's starting files).
    Existing files are never overwritten."""
    target = Path(path or ".").expanduser()
    if target.is_file():
        fail(f"{path} is a file; give the project folder")
    root = target.resolve()
    try:
        root.mkdir(parents=True, exist_ok=True)
        create, next_steps = FORMATS[file_format]
        created, kept, skipped = create(root)
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
    click.echo(f"\n{next_steps}")
