"""`workbench run`: one iteration, headless; the CI gate."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import click

from ..config import ConfigError, resolve_runner_kind
from ..engine import Engine, Selection
from ..events import IterationReport, Trigger
from ..project import ProjectError
from ..report.json_report import encode_document, report_document
from ..report.junit import write_junit
from ..report.text import TextReporter
from .common import EXIT_FAILED, EXIT_OK, fail, load_project_config, project_argument, resolve_root, runner_options


@click.command("run")
@project_argument
@click.option("--set", "sets", multiple=True, metavar="NAME",
              help="Only this eval set (file base name, e.g. grading). Repeatable.")
@click.option("--row", "rows", multiple=True, metavar="ID_OR_NAME", help="Only this row (id or name). Repeatable.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document instead of text.")
@click.option("--junit", "junit_path", type=click.Path(dir_okay=False, writable=True), metavar="FILE",
              help="Also write JUnit XML (one testcase per result) to FILE.")
@click.option("--allow-empty", is_flag=True, help="Exit 0 when nothing ran (normally a failure).")
@runner_options
def run_command(path: str | None, sets: tuple[str, ...], rows: tuple[str, ...], as_json: bool,
                junit_path: str | None, allow_empty: bool, command: str | None, timeout: float | None,
                concurrency: int | None) -> None:
    """Run every row of every eval set once and score it.

    Prints a line per result (PASS, FAIL or ERROR, with the reason) and a summary.
    Exit status: 0 when at least one result ran and all passed, 1 when any failed, errored or a
    file had a problem (or nothing ran, unless --allow-empty), 2 for usage or project errors.
    """
    root = resolve_root(path)
    config = load_project_config(root, command=command, timeout=timeout, concurrency=concurrency)
    try:
        resolve_runner_kind(config)
    except ConfigError as exc:
        fail(str(exc))
    engine = Engine(config)
    try:
        project = engine.load()
    except ProjectError as exc:
        fail(str(exc))
    selection = Selection(sets=sets, rows=rows)
    unmatched = selection.unmatched(project)
    if unmatched:
        known = ", ".join(s.stem for s in project.sets) or "none"
        fail(f"nothing matches {' and '.join(unmatched)} (eval sets: {known})")
    reporter = TextReporter(results=not as_json)
    try:
        report = asyncio.run(engine.run_iteration(Trigger("run"), selection, reporter, project=project))
    except ConfigError as exc:
        fail(str(exc))
    except KeyboardInterrupt:
        reporter.finish(IterationReport(trigger=Trigger("run")))
        fail("interrupted; every child process was stopped", 130)
    reporter.finish(report)
    if as_json:
        sys.stdout.buffer.write(encode_document(report_document(report)))
        sys.stdout.flush()
    if junit_path:
        write_junit(report, Path(junit_path))
    sys.exit(exit_code(report, allow_empty))


def exit_code(report: IterationReport, allow_empty: bool) -> int:
    if report.all_passed:
        return EXIT_OK
    if allow_empty and not report.results and not report.error_problems:
        return EXIT_OK
    return EXIT_FAILED
