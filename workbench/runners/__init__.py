"""Runners by `[runner] kind`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .base import RUNNER_FAULTS, LogSink, Runner, RunOutcome, RunRequest, outcome_from_exception
from .concurrency import concurrency_of, default_concurrency

if TYPE_CHECKING:
    from ..config import Config


def make_runner(config: Config) -> Runner:
    """The runner the config asks for; raises ConfigError when it can't tell."""
    from ..config import resolve_runner_kind

    kind = resolve_runner_kind(config)
    if config.cluster.engine == "ray":  # the same kind, run on the cluster's workers (workbench/cluster/)
        from ..cluster.ray_runner import RayRunner

        return RayRunner(config, kind, make_runner)
    if kind == "uip":
        from .uip import UipRunner

        return UipRunner(config)
    if kind == "worker":
        from .worker import WorkerRunner

        return WorkerRunner(config)
    if kind == "python":
        from .python_target import PythonRunner

        return PythonRunner(config)
    from .preload import make_command_runner

    return make_command_runner(config)


__all__ = ["RUNNER_FAULTS", "LogSink", "RunOutcome", "RunRequest", "Runner", "concurrency_of", "default_concurrency",
           "make_runner", "outcome_from_exception"]
