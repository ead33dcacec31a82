"""`workbench [PATH]` / `workbench open [PATH]`: the full-screen workbench, watching the project."""

from __future__ import annotations

import click

from ..actions.checks import check_runnable
from .common import (
    load_project_config,
    project_argument,
    resolve_root,
    row_filter_options,
    setting_options,
)
from .tui_launch import launch_tui


@click.command("open")
@project_argument
@click.option("--no-watch", is_flag=True, help="Run once at start and on demand only; don't watch files.")
@setting_options("open")
@row_filter_options
def open_command(path: str | None, no_watch: bool) -> None:
    """Open the TUI on the project (the default when no command is given).

    Every row runs at start and again whenever a file changes. Press ? for the keys.
    """
    config = load_project_config(resolve_root(path))
    check_runnable(config, watching=not no_watch)
    launch_tui(config, watch=not no_watch)
