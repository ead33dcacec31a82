"""Command-line options that set a setting, declared as data: the flag, the settings it sets, and how it
reads. Its type, bounds, refusals and help come from the fields it sets (`settings/fields.py`), so a
flag and the file can never disagree; `cli/flags.py` turns these into click options. A format declares
its own in its `dialects/<name>/settings.py` (`OPTIONS`), beside its section.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

LOOP_COMMANDS = ("run", "watch", "open")


@dataclass(frozen=True, slots=True)
class Option:
    """`flag` sets every setting in `sets` ("section.key"), and is checked against each of them.

    `dest` names the command's parameter that receives the value; without one the value is kept as an
    override of `sets`, applied again every time the settings are re-read. `flag_value` makes it a flag
    without a value (--no-cache sets [judge] cache to false). `implies` are settings set along with it,
    `path` a path typed on the command line (resolved from the current folder), `commands` the commands
    that take it. Two options with the same flag (a format's setting the core flag also sets) are one
    click option, checked against both."""

    flag: str
    sets: tuple[str, ...]
    metavar: str | None = None
    help: str | None = None  # None: the first setting's description
    dest: str | None = None
    flag_value: Any = None
    implies: tuple[tuple[str, Any], ...] = ()
    path: bool = False
    commands: tuple[str, ...] = LOOP_COMMANDS


CORE_OPTIONS: tuple[Option, ...] = (
    Option("--command", ("runner.command",), "CMD", commands=(*LOOP_COMMANDS, "add-row"),
           help="Target command, split like a shell would (never run through one). Selects the command runner.",
           implies=(("runner.kind", "command"),)),
    Option("--timeout", ("runner.timeout",), "SECONDS", commands=(*LOOP_COMMANDS, "add-row")),
    Option("--concurrency", ("runner.concurrency",), "N"),
    Option("--repeat", ("runner.repeat",), "N",
           help="Run every row N independent times; it passes when [gate] row_pass_rate of them pass (default 1.0)."),
    Option("--no-cache", ("judge.cache",), flag_value=False,
           help="Ask the LLM judge again instead of using answers remembered under .workbench/."),
    Option("--cluster", ("cluster.address",), "ADDRESS", implies=(("cluster.engine", "ray"),),
           help="Run the rows on a Ray cluster: local (start one on this machine), auto, or ray://head:10001."),
    Option("--min-pass-rate", ("baseline.min_pass_rate",), "RATE", dest="min_pass_rate", commands=("run",),
           help="Fraction of results that must pass (default 1.0: all)."),
    Option("--max-slowdown", ("baseline.max_slowdown",), "FRACTION", dest="max_slowdown", commands=("run",)),
    Option("--max-token-increase", ("baseline.max_token_increase",), "FRACTION", dest="max_token_increase",
           commands=("run",)),
)

__all__ = ["CORE_OPTIONS", "LOOP_COMMANDS", "Option"]
