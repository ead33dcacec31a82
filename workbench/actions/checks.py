"""What must hold before any iteration runs, checked once for `open`, `watch` and `run`."""

from __future__ import annotations

from ..cluster import check_cluster
from ..config import Config, resolve_runner_kind
from ..dialects import runner_needed
from ..model import Project
from ..project import load_project
from ..watching import watch_paths


def check_runnable(config: Config, *, watching: bool) -> Project:
    """The project as loaded now, provided the target can be run (and, when `watching`, the watched
    paths exist). Raises ProjectError or ConfigError naming what to fix.

    The project comes first: pointed at the wrong folder, "no evals/ here" is the message that helps."""
    project = load_project(config.root, config)
    if runner_needed(config.root, config):  # a project of scripted replays only has no target to run
        resolve_runner_kind(config)
        check_cluster(config)  # Ray installed, when the rows run on a cluster
    if watching:
        watch_paths(config)
    return project
