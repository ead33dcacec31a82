"""The `workbench` command line."""

from __future__ import annotations

import click

from .. import __version__
from .history import history_command
from .init import init_command
from .run import run_command
from .watch import watch_command


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="workbench")
def main() -> None:
    """workbench: run an eval suite until every row is green.

    Reads evals/<scope>/eval-sets/*.json and evals/<scope>/evaluators/*.json, runs the target on every
    row's inputs and scores the output with the evaluator each set declares.
    """


main.add_command(run_command)
main.add_command(watch_command)
main.add_command(history_command)
main.add_command(init_command)
