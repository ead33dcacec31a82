"""What must hold before any iteration runs, checked once for `open`, `watch` and `run`."""

from __future__ import annotations

from ..cluster import check_cluster
from ..config import Config, ConfigError, resolve_runner_kind
from ..dialects import runner_needed, start_problems
from ..model import Project
from ..project import load_project
from ..runners.startable import startup_problem


def check_runnable(config: Config, *, watching: bool) -> Project:
    """The project as loaded now, provided the target can be run — its kind is known, its program and
    script are found (`runners.startable`), no format says its rows can't start (`ChecksStart`) — and, when
    `watching`, the watched paths exist. Raises ProjectError or ConfigError naming what to fix, once, before
    any row runs (`check` reports the same as errors).

    The project comes first: pointed at the wrong folder, "no evals/ here" is the message that helps."""
    project = load_project(config.root, config)
    if runner_needed(config.root, config):  # a project of scripted replays only has no target to run
        problem = startup_problem(config, resolve_runner_kind(config))
        if problem is not None:  # one message, not an ERROR on every row (`check` says the same)
            raise ConfigError(problem)
        check_cluster(config)  # Ray installed, when the rows run on a cluster
        found = start_problems(config.root, config)  # a format's rows that can't start (`ChecksStart`)
        if found:
            raise ConfigError("\n".join(f"{problem.file}: {problem.message}" for problem in found),
                              file=config.root / found[0].file)
    if watching:
        from ..watching import watch_paths  # watchfiles: only for the commands that watch

        watch_paths(config)
    return project
