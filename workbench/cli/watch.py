"""`workbench watch --plain`: the test-until-green loop without the TUI, one line per iteration, and
the loop's exits (`--until-green`, `--max-iterations`, `--stop-on-stall`) ending with a per-row summary.
The loop itself is `actions.watch_loop.WatchLoop`; this module parses the flags and prints."""

from __future__ import annotations

import asyncio
import sys

import click

from ..actions.checks import check_runnable
from ..actions.signals import Stopped, run_until_stopped
from ..actions.watch_loop import WatchLoop
from ..config import Config
from ..events import IterationReport
from ..progress import IterationSummary, StopRules, final_summary, progress_line
from ..report.text import TextReporter, format_problem
from ..session_link import AgentAsk
from .common import (
    EXIT_OK,
    load_project_config,
    project_argument,
    resolve_root,
    row_filter_options,
    setting_options,
)


class PlainPrinter:
    """One progress line per completed iteration (every result too with --verbose). File problems are
    printed when they appear, not again every iteration while they last; the line names the first one."""

    def __init__(self, verbose: bool) -> None:
        self.reporter = TextReporter(results=verbose)
        self.verbose = verbose
        self._shown: set[tuple[str, str]] = set()

    def notice(self, text: str) -> None:
        click.echo(f"workbench: {text}", err=True)

    def asked(self, ask: AgentAsk) -> None:
        """Another process (a coding agent) was answered with an iteration: `iteration 12 · asked by agent`."""
        click.echo(ask.line())
        sys.stdout.flush()

    def on_iteration(self, report: IterationReport, summary: IterationSummary) -> None:
        if self.verbose:
            self.reporter.finish(report)
        else:
            self.reporter.clear()
            current = {(p.file, p.message) for p in report.problems}
            for problem in report.problems:
                if (problem.file, problem.message) not in self._shown:
                    click.echo(format_problem(problem))
            self._shown = current
        click.echo(progress_line(summary))
        sys.stdout.flush()


@click.command("watch")
@project_argument
@click.option("--plain", is_flag=True, help="Print one line per iteration instead of opening the TUI.")
@click.option("--verbose", "-v", is_flag=True, help="With --plain: also print every result.")
@click.option("--until-green", is_flag=True, help="With --plain: stop (exit 0) at the first all-green iteration.")
@click.option("--max-iterations", type=click.IntRange(min=1), metavar="N",
              help="With --plain: stop after N iterations (exit 1 unless the last one is all green).")
@click.option("--stop-on-stall", is_flag=True,
              help="With --plain: stop (exit 1) once the loop is stalled ([watch] stall_after iterations "
                   "without more rows passing).")
@setting_options("watch")
@row_filter_options
def watch_command(path: str | None, plain: bool, verbose: bool, until_green: bool, max_iterations: int | None,
                  stop_on_stall: bool) -> None:
    """Run every row now and again whenever a file in the project changes, until Ctrl-C (or, with
    --plain, until a stop rule ends the loop).

    A change during an iteration cancels it (its processes are killed) and starts a fresh one.
    Every completed iteration is recorded in .workbench/ (see `workbench history`). Every ending of
    the plain loop prints each row of the final state with its verdict and reason.

    Exit status with --plain: 0 when stopped green by --until-green or --max-iterations, or by Ctrl-C
    when no stop rule was given; 1 when --max-iterations or --stop-on-stall ends it not green; 130
    (128 + the signal) when a stop rule was given and Ctrl-C or a signal ended the loop not green.
    """
    rules = StopRules(until_green=until_green, max_iterations=max_iterations, stop_on_stall=stop_on_stall)
    if rules.any and not plain:
        raise click.UsageError("--until-green, --max-iterations and --stop-on-stall need --plain")
    config = load_project_config(resolve_root(path))
    check_runnable(config, watching=True)
    if not plain:
        from .tui_launch import launch_tui

        launch_tui(config)
        return
    run_plain_loop(config, verbose, rules)


def run_plain_loop(config: Config, verbose: bool, rules: StopRules | None = None) -> None:
    """Watch until a stop rule or a signal ends the loop; print the final state; exit with its status."""
    rules = rules or StopRules()
    click.echo(f"watching {config.root} (Ctrl-C to stop)")
    printer = PlainPrinter(verbose)
    loop = WatchLoop(config, rules, on_event=printer.reporter, on_iteration=printer.on_iteration,
                     on_notice=printer.notice, on_asked=printer.asked)
    try:
        end = run_until_stopped(loop.run())
    except (Stopped, asyncio.CancelledError) as exc:
        _print_final(loop, None)
        last = loop.tracker.last
        green = last is not None and last.green
        signum = exc.signum if isinstance(exc, Stopped) else 2
        sys.exit(EXIT_OK if not rules.any or green else 128 + signum)
    assert end is not None  # the loop only returns when a stop rule ended it
    _print_final(loop, end.reason)
    sys.exit(end.exit_code)


def _print_final(loop: WatchLoop, reason: str | None) -> None:
    for line in final_summary(loop.tracker, reason):
        click.echo(line)
    sys.stdout.flush()
