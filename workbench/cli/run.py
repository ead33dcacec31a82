"""`workbench run`: one iteration, headless; the CI gate."""

from __future__ import annotations

import asyncio
import signal
import sys
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

import click

from ..baseline import (
    DEFAULT_SLOWDOWN,
    DEFAULT_TOKEN_INCREASE,
    Baseline,
    BaselineCheck,
    BaselineError,
    compare_with_baseline,
    load_baseline,
    write_baseline,
)
from ..config import Config, ConfigError, resolve_runner_kind
from ..engine import Engine, RowFilter
from ..events import IterationReport, Trigger
from ..gate import GateOutcome, GateSettings, evaluate_gate
from ..history import HistoryError, HistoryStore
from ..model import Project
from ..project import ProjectError
from ..report.json_report import encode_document, report_document
from ..report.junit import write_junit
from ..report.text import TextReporter
from .common import EXIT_FAILED, EXIT_OK, fail, load_project_config, project_argument, resolve_root, runner_options

T = TypeVar("T")


@click.command("run")
@project_argument
@click.option("--set", "sets", multiple=True, metavar="NAME",
              help="Only this eval set (file base name, e.g. grading). Repeatable.")
@click.option("--row", "rows", multiple=True, metavar="ID_OR_NAME", help="Only this row (id or name). Repeatable.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document instead of text.")
@click.option("--junit", "junit_path", type=click.Path(dir_okay=False), metavar="FILE",
              help="Also write JUnit XML (one testcase per result) to FILE.")
@click.option("--allow-empty", is_flag=True, help="Exit 0 when nothing ran (normally a failure).")
@click.option("--min-pass-rate", type=click.FloatRange(0, 1), metavar="RATE",
              help="Fraction of results that must pass (default 1.0: all; [baseline] min_pass_rate).")
@click.option("--max-slowdown", type=click.FloatRange(min=0), metavar="FRACTION",
              help="Fail when a passing result is slower than the baseline by more than this (0.5 = +50%).")
@click.option("--max-token-increase", type=click.FloatRange(min=0), metavar="FRACTION",
              help="Fail when a passing result uses more tokens than the baseline by more than this.")
@click.option("--baseline", "baseline_path", type=click.Path(dir_okay=False), metavar="FILE",
              help="Baseline file (default workbench-baseline.json at the project root).")
@click.option("--update-baseline", is_flag=True,
              help="Write the baseline from this run; refused when the pass rate is below the minimum.")
@click.option("--no-history", is_flag=True, help="Do not record this run in .workbench/ history.")
@runner_options
def run_command(path: str | None, sets: tuple[str, ...], rows: tuple[str, ...], as_json: bool,
                junit_path: str | None, allow_empty: bool, min_pass_rate: float | None, max_slowdown: float | None,
                max_token_increase: float | None, baseline_path: str | None, update_baseline: bool,
                no_history: bool, command: str | None, timeout: float | None, concurrency: int | None) -> None:
    """Run every row of every eval set once and score it.

    Prints a line per result (PASS, FAIL or ERROR, with the reason) and a summary. With a baseline
    file present, also flags results that passed on the baseline and fail now, and passing results
    that got slower or use more tokens.

    Exit status: 0 when at least one result ran and the gate passes (by default: every result passed
    and nothing regressed against the baseline); 1 when it does not, when a file had a problem, or
    when nothing ran (unless --allow-empty); 2 for usage or project errors.
    """
    root = resolve_root(path)
    config = load_project_config(root, command=command, timeout=timeout, concurrency=concurrency)
    settings = GateSettings(
        min_pass_rate=min_pass_rate if min_pass_rate is not None else config.baseline.min_pass_rate,
        max_slowdown=max_slowdown if max_slowdown is not None else config.baseline.max_slowdown,
        max_token_increase=(max_token_increase if max_token_increase is not None
                            else config.baseline.max_token_increase),
        allow_empty=allow_empty,
    )
    baseline_file = Path(baseline_path) if baseline_path else config.root / config.baseline.path
    engine = Engine(config)
    try:
        # The project first: pointed at the wrong folder, "no evals/ here" is the message that helps.
        project = engine.load()
    except ProjectError as exc:
        fail(str(exc))
    try:
        resolve_runner_kind(config)
        baseline = None if update_baseline else load_baseline(baseline_file)
    except (ConfigError, BaselineError) as exc:
        fail(str(exc))
    selection = RowFilter(sets=sets, rows=rows)
    unmatched = selection.unmatched(project)
    if unmatched:
        fail(f"nothing matches {' and '.join(unmatched)} ({_known_names(project, selection)})")
    reporter = TextReporter(results=not as_json)
    try:
        report = _run_iteration(engine, selection, reporter, project)
    except ConfigError as exc:
        fail(str(exc))
    except KeyboardInterrupt:
        reporter.clear()
        fail("interrupted; every child process was stopped", 130)
    except _Terminated:
        reporter.clear()
        fail("terminated; every child process was stopped", 128 + signal.SIGTERM)
    if not no_history:
        _record(config, report, partial=bool(sets or rows))
    reporter.finish(report)
    check = None
    if baseline is not None:
        check = compare_with_baseline(
            report.results, baseline,
            slowdown=settings.max_slowdown if settings.max_slowdown is not None else DEFAULT_SLOWDOWN,
            token_increase=(settings.max_token_increase if settings.max_token_increase is not None
                            else DEFAULT_TOKEN_INCREASE))
    gate = evaluate_gate(report, settings, check)
    if not as_json:
        _print_regressions(check, baseline_file)
        if not gate.passed and (check is not None or settings.min_pass_rate < 1.0 or not report.results):
            click.echo("gate failed: " + "; ".join(gate.reasons))
    baseline_written = False
    if update_baseline:
        baseline_written = _update_baseline(baseline_file, report, gate, quiet=as_json)
    if as_json:
        extra = {"gate": gate.to_json(settings), "passed": gate.passed}
        if check is not None:
            extra["baseline"] = {"path": str(baseline_file), "newly_failing": [r.to_json() for r in
                                                                               check.newly_failing],
                                 "slowdowns": [r.to_json() for r in check.slowdowns],
                                 "token_increases": [r.to_json() for r in check.token_increases]}
        if update_baseline:
            extra["baseline_written"] = baseline_written
        sys.stdout.buffer.write(encode_document(report_document(report, extra)))
        sys.stdout.flush()
    if junit_path:
        try:
            write_junit(report, Path(junit_path))
        except OSError as exc:
            fail(f"cannot write {junit_path}: {exc.strerror or exc}", EXIT_FAILED)
    if update_baseline:
        sys.exit(EXIT_OK if baseline_written else EXIT_FAILED)
    sys.exit(EXIT_OK if gate.passed else EXIT_FAILED)


class _Terminated(Exception):
    """SIGTERM arrived (a CI job cancelled, `timeout`, `kill`) and the iteration was cancelled."""


def _run_iteration(engine: Engine, selection: RowFilter, reporter: TextReporter, project: Project) -> IterationReport:
    """One iteration on a fresh event loop. The report leaves through a list, not as asyncio.run's
    return value, which Python 3.11 formats (repr) on the way out: seconds for 100,000 results."""
    box: list[IterationReport] = []

    async def iterate() -> None:
        box.append(await engine.run_iteration(Trigger("run"), selection, reporter, project=project))

    asyncio.run(_stop_on_sigterm(iterate()))
    return box[0]


async def _stop_on_sigterm(work: Coroutine[Any, Any, T]) -> T:
    """Await `work`, cancelling it on SIGTERM the way Ctrl-C does. Targets run in their own process
    groups, so without this a `kill` of workbench would leave every running target orphaned."""
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    terminated = False

    def on_sigterm() -> None:
        nonlocal terminated
        terminated = True
        if task is not None:
            task.cancel()

    try:
        loop.add_signal_handler(signal.SIGTERM, on_sigterm)
    except (NotImplementedError, RuntimeError, ValueError):  # not on this platform / thread
        return await work
    try:
        return await work
    except asyncio.CancelledError:
        if terminated:
            raise _Terminated from None
        raise
    finally:
        loop.remove_signal_handler(signal.SIGTERM)


def _known_names(project: Project, selection: RowFilter, shown: int = 10) -> str:
    """What the user could have meant: the eval sets, and the rows of the selected sets."""
    text = "eval sets: " + (", ".join(s.stem for s in project.sets) or "none")
    if selection.rows:
        names = [r.name or r.id for s in project.sets if selection.wants_set(s) for r in s.rows]
        more = f", … ({len(names) - shown} more)" if len(names) > shown else ""
        text += "; rows: " + (", ".join(repr(n) for n in names[:shown]) + more if names else "none")
    return text


def _record(config: Config, report: IterationReport, partial: bool) -> None:
    try:
        with HistoryStore.open(config) as store:
            store.record(report, partial=partial)
    except (HistoryError, ValueError) as exc:  # ValueError: text SQLite can't store (a lone surrogate)
        click.echo(f"workbench: not recorded in history: {exc}", err=True)


def _print_regressions(check: BaselineCheck | None, baseline_file: Path) -> None:
    if check is None or not check.regressions:
        return
    click.echo(f"against the baseline {baseline_file.name}:")
    for regression in check.regressions:
        click.echo(f"  {regression.describe()}")


def _update_baseline(path: Path, report: IterationReport, gate: GateOutcome, quiet: bool) -> bool:
    """Bless this run as the baseline, unless it isn't good enough (then the file is left untouched)."""
    if gate.reasons:
        click.echo(f"workbench: baseline NOT updated ({path.name} left as it was): " + "; ".join(gate.reasons),
                   err=True)
        return False
    try:
        write_baseline(path, Baseline.from_results(report.results))
    except OSError as exc:
        click.echo(f"workbench: cannot write the baseline {path}: {exc.strerror or exc}", err=True)
        return False
    if not quiet:
        click.echo(f"baseline written: {path} ({len(report.results)} results, pass rate {gate.pass_rate:.1%})")
    return True
