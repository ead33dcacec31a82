"""`workbench [PATH]` / `workbench open [PATH]`: the full-screen workbench, watching the project."""

from __future__ import annotations

import click

from ..config import ConfigError, resolve_runner_kind
from ..project import ProjectError, load_project
from ..watching import watch_paths
from .common import fail, load_project_config, project_argument, resolve_root, runner_options
from .tui_launch import launch_tui


@click.command("open")
@project_argument
@click.option("--no-watch", is_flag=True, help="Run once at start and on demand only; don't watch files.")
@runner_options
def open_command(path: str | None, no_watch: bool, command: str | None, timeout: float | None,
                 concurrency: int | None) -> None:
    """Open the TUI on the project (the default when no command is given).

    Every row runs at start and again whenever a file changes. Press ? for the keys.
    """
    root = resolve_root(path)
    config = load_project_config(root, command=command, timeout=timeout, concurrency=concurrency)
    try:
        resolve_runner_kind(config)
        if not no_watch:
            watch_paths(config)
        load_project(config.root)
    except (ConfigError, ProjectError) as exc:
        fail(str(exc))
    launch_tui(config, watch=not no_watch)
