"""Runners by `[runner] kind`."""

from __future__ import annotations

from ..config import Config, ConfigError, resolve_runner_kind
from .base import LogSink, Runner, RunOutcome, RunRequest


def make_runner(config: Config) -> Runner:
    """The runner the config asks for; raises ConfigError when it can't tell."""
    kind = resolve_runner_kind(config)
    if kind == "uip":
        from .uip import UipRunner

        return UipRunner(config)
    if kind in ("worker", "python"):
        raise ConfigError(f"{config.describe_source()}: [runner] kind = {kind!r} is not available in this "
                          "version; use kind = \"command\"")
    from .command import CommandRunner

    return CommandRunner(config)


__all__ = ["LogSink", "RunOutcome", "RunRequest", "Runner", "make_runner"]
