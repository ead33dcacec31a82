"""The `workbench` command line. A command's module is imported only when that command runs (click's lazy
group): `--help` lists the commands from the table below without importing any of them, so `--version`,
`--help` and quick commands don't pay for the whole engine."""

from __future__ import annotations

import importlib

import click
from click.utils import make_default_short_help

from .. import __version__
from ..errors import WorkbenchError

# name -> (module in this package, click command attribute, its short help), in the order `--help` lists them.
# The short help is the command's own first sentence, kept here so `--help` needn't import the command;
# tests/cli/test_lazy_commands.py fails when one drifts from the command's real help.
COMMANDS: dict[str, tuple[str, str, str]] = {
    "open": ("open", "open_command", "Open the TUI on the project (the default when no command is given)."),
    "demo": ("demo", "demo_command", "Open workbench on a fresh copy of the bundled example project."),
    "run": ("run", "run_command", "Run every row of every eval set once and score it."),
    "check": ("check", "check_command", "Check every eval file, the settings and, when the project has a "
            "Workflow.json, every row's inputs and expectedOutput against its input.schema / output.schema — without "
            "running anything."),
    "watch": ("watch", "watch_command", "Run every row now and again whenever a file in the project changes, until "
            "Ctrl-C (or, with --plain, until a stop rule ends the loop)."),
    "history": ("history", "history_command", "List recorded iterations, or show iteration N: its results and what "
            "flipped since the one before."),
    "compare": ("compare", "compare_command", "Compare two recorded runs: rows fixed, newly failing, still failing, "
            "and rows whose output changed while the verdict held (each with the diff of its output), and the files "
            "changed between them."),
    "report": ("report", "report_command", "Write a recorded iteration (default the newest) as a report to share."),
    "accept": ("accept", "accept_command", "Write rows' recorded actual outputs into their "
            "evaluationCriterias[REF].expectedOutput."),
    "add-row": ("add_row", "add_row_command", "Run the target once on --inputs, print its output, and append a row "
            "to the eval set."),
    "init": ("init", "init_command", "Create evals/<scope>/evaluators/exact-match-evaluator.json and "
            "evals/<scope>/eval-sets/evaluation-set.json (the scope the project uses, else default); in a project "
            "without a target yet (no Workflow.json, no workbench.toml, no eval files) also a starter agent.py, the "
            "workbench.toml that runs it and one row, so `workbench run` passes at once."),
    "mcp": ("mcp", "mcp_command", "Serve this project to a coding agent: a Model Context Protocol server on "
            "stdin/stdout."),
}


def load_command(name: str) -> click.Command:
    """The click command called `name`, its module imported now."""
    module, attribute, _ = COMMANDS[name]
    command: click.Command = getattr(importlib.import_module(f"{__name__}.{module}"), attribute)
    return command


class WorkbenchGroup(click.Group):
    """Lazily loaded commands; `workbench [PATH]` with no command opens the TUI (the `open` command)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        return load_command(cmd_name) if cmd_name in COMMANDS else None

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The commands and their short help, from `COMMANDS` (shortened as click shortens a command's own)."""
        limit = formatter.width - 6 - max(len(name) for name in COMMANDS)
        rows = [(name, make_default_short_help(short, limit)) for name, (_, _, short) in COMMANDS.items()]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def invoke(self, ctx: click.Context) -> object:
        """Run the command; a WorkbenchError from anywhere in it is printed once and sets the exit code."""
        try:
            return super().invoke(ctx)
        except WorkbenchError as exc:
            from .common import render_error

            render_error(exc)
            ctx.exit(exc.exit_code)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        """Anything but a command name or the group's own options (`--help`, `--version`) is `open`'s:
        `workbench`, `workbench PATH`, `workbench --tag smoke`, `workbench --no-watch --cluster local PATH`."""
        if not args or (args[0] not in COMMANDS and args[0] not in self._own_options(ctx)):
            if args:
                self._refuse_a_mistyped_command(ctx, args[0])
            args = ["open", *args]
        return super().parse_args(ctx, args)

    @staticmethod
    def _refuse_a_mistyped_command(ctx: click.Context, word: str) -> None:
        """`workbench rn` → `no such command 'rn'; did you mean `run`?` (exit 2) — only for a word close to a
        command that is no file or folder here and doesn't look like a path, so `workbench PATH` still opens PATH."""
        import os

        if word.startswith("-") or "/" in word or os.sep in word or "." in word or os.path.lexists(word):
            return
        import difflib

        close = difflib.get_close_matches(word, list(COMMANDS), n=1, cutoff=0.6)
        if close:
            from .common import EXIT_USAGE, render_error

            render_error(WorkbenchError(f"no such command {word!r}; did you mean `{close[0]}`?"))
            ctx.exit(EXIT_USAGE)

    def format_help_text(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The help, with FORMATS said as the registered formats say themselves (imported only for --help)."""
        from ..dialects import all_dialects

        formats = ", ".join(f"{dialect.title} ({dialect.words.expects})" for dialect in all_dialects())
        original = self.help
        self.help = (original or "").replace("FORMATS", formats)
        try:
            super().format_help_text(ctx, formatter)
        finally:
            self.help = original

    def _own_options(self, ctx: click.Context) -> set[str]:
        return {name for param in self.get_params(ctx) for name in (*param.opts, *param.secondary_opts)}


@click.group(cls=WorkbenchGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="workbench")
def main() -> None:
    """workbench: run an eval suite until every row is green.

    Reads the project's eval files as they are — FORMATS — runs the target on every row and scores the
    output. `workbench init` starts a project.

    `workbench [PATH]` with no command opens the TUI on the project, and takes `open`'s options
    (`workbench --tag smoke`, `--no-watch`, `--cluster local`); `workbench demo` opens it on a copy
    of the bundled example.
    """
