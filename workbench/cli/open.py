"""`workbench [PATH]` / `workbench open [PATH]`: the full-screen workbench, watching the project."""

from __future__ import annotations

import click

from ..actions.checks import check_runnable
from .common import (
    load_project_config,
    project_argument,
    resolve_root,
    row_filter_options,
    runner_options,
    scenario_options,
)
from .tui_launch import launch_tui


@click.command("open")
@project_argument
@click.option("--no-watch", is_flag=True, help="Run once at start and on demand only; don't watch files.")
@runner_options
@scenario_options
@row_filter_options
def open_command(path: str | None, no_watch: bool, command: str | None, timeout: float | None,
                 concurrency: int | None, model: str | None, scenarios_dir: str | None) -> None:
    """Open the TUI on the project (the default when no command is given).

    Every row runs at start and again whenever a file changes. Press ? for the keys.
    """
    config = load_project_config(resolve_root(path), command=command, timeout=timeout, concurrency=concurrency,
                                 model=model, scenarios_dir=scenarios_dir)
    check_runnable(config, watching=not no_watch)
    launch_tui(config, watch=not no_watch)
