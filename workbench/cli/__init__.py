"""The `workbench` command line. Commands are imported when used, so `--version`, `--help` and quick
commands don't pay for the whole engine."""

from __future__ import annotations

import importlib

import click

from .. import __version__
from ..errors import WorkbenchError

# name -> (module in this package, click command attribute), in the order `--help` lists them
COMMANDS: dict[str, tuple[str, str]] = {
    "open": ("open", "open_command"),
    "demo": ("demo", "demo_command"),
    "run": ("run", "run_command"),
    "check": ("check", "check_command"),
    "watch": ("watch", "watch_command"),
    "history": ("history", "history_command"),
    "compare": ("compare", "compare_command"),
    "report": ("report", "report_command"),
    "accept": ("accept", "accept_command"),
    "add-row": ("add_row", "add_row_command"),
    "init": ("init", "init_command"),
    "mcp": ("mcp", "mcp_command"),
}


class WorkbenchGroup(click.Group):
    """Lazily loaded commands; `workbench [PATH]` with no command opens the TUI (the `open` command)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return None
        module, attribute = COMMANDS[cmd_name]
        command: click.Command = getattr(importlib.import_module(f"{__name__}.{module}"), attribute)
        return command

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
            args = ["open", *args]
        return super().parse_args(ctx, args)

    def format_help_text(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The help, with FORMATS said as the registered formats say themselves (imported only for --help)."""
        from ..dialects import all_dialects

        formats = ", ".join(f"{dialect.title} ({dialect.expects})" for dialect in all_dialects())
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
