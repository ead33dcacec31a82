"""`workbench watch --plain`: the test-until-green loop without the TUI, one line per iteration."""

from __future__ import annotations

import asyncio
import sys

import click

from ..actions.checks import check_runnable
from ..actions.signals import Stopped, run_until_stopped
from ..config import Config
from ..events import IterationReport
from ..progress import IterationSummary, progress_line
from ..report.text import TextReporter, format_problem
from ..session import Session
from .common import load_project_config, project_argument, resolve_root, runner_options


class PlainLoop:
    """Prints one progress line per completed iteration (and every result with --verbose)."""

    def __init__(self, config: Config, verbose: bool) -> None:
        self.reporter = TextReporter(results=verbose)
        self.verbose = verbose
        self.session = Session(config, on_event=self.reporter, on_iteration=self.on_iteration,
                               on_notice=self.notice)

    def notice(self, text: str) -> None:
        click.echo(f"workbench: {text}", err=True)

    def on_iteration(self, report: IterationReport, summary: IterationSummary) -> None:
        if self.verbose:
            self.reporter.finish(report)
        else:
            self.reporter.clear()
            for problem in report.problems:
                click.echo(format_problem(problem))
        click.echo(progress_line(summary))
        sys.stdout.flush()

    async def run(self) -> None:
        """Watch until cancelled (Ctrl-C, or SIGTERM/SIGHUP through `run_until_stopped`)."""
        try:
            await self.session.watch()
        finally:
            await self.session.aclose()


@click.command("watch")
@project_argument
@click.option("--plain", is_flag=True, help="Print one line per iteration instead of opening the TUI.")
@click.option("--verbose", "-v", is_flag=True, help="With --plain: also print every result.")
@runner_options
def watch_command(path: str | None, plain: bool, verbose: bool, command: str | None, timeout: float | None,
                  concurrency: int | None) -> None:
    """Run every row now and again whenever a file in the project changes, until Ctrl-C.

    A change during an iteration cancels it (its processes are killed) and starts a fresh one.
    Every completed iteration is recorded in .workbench/ (see `workbench history`).
    """
    config = load_project_config(resolve_root(path), command=command, timeout=timeout, concurrency=concurrency)
    check_runnable(config, watching=True)
    if not plain:
        from .tui_launch import launch_tui

        launch_tui(config)
        return
    run_plain_loop(config, verbose)


def run_plain_loop(config: Config, verbose: bool) -> None:
    click.echo(f"watching {config.root} (Ctrl-C to stop)")
    loop = PlainLoop(config, verbose)
    try:
        run_until_stopped(loop.run())
    except (Stopped, asyncio.CancelledError):
        click.echo("stopped")
