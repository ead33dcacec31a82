"""The `workbench` command line."""

from __future__ import annotations

import click

from .. import __version__
from .accept import accept_command
from .add_row import add_row_command
from .demo import demo_command
from .history import history_command
from .init import init_command
from .open import open_command
from .run import run_command
from .watch import watch_command


class WorkbenchGroup(click.Group):
    """`workbench [PATH]` with no command opens the TUI (the `open` command)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not args or (args[0] not in self.commands and not args[0].startswith("-")):
            args = ["open", *args]
        return super().parse_args(ctx, args)


@click.group(cls=WorkbenchGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="workbench")
def main() -> None:
    """workbench: run an eval suite until every row is green.

    Reads evals/<scope>/eval-sets/*.json and evals/<scope>/evaluators/*.json, runs the target on every
    row's inputs and scores the output with the evaluator each set declares.

    `workbench [PATH]` with no command opens the TUI on the project; `workbench demo` opens it on a
    copy of the bundled example.
    """


main.add_command(open_command)
main.add_command(demo_command)
main.add_command(run_command)
main.add_command(watch_command)
main.add_command(history_command)
main.add_command(init_command)
main.add_command(accept_command)
main.add_command(add_row_command)
