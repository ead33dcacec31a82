"""`workbench run`: one iteration, headless; the CI gate. The run itself is `actions.gate.run_gate`;
this module turns flags into a request and the result into text, JSON and JUnit."""

from __future__ import annotations

import gc
import sys
from pathlib import Path

import click

from ..actions.gate import GateRun, gate_request, run_gate
from ..actions.signals import Stopped
from ..config import Config
from ..dialects import all_dialects
from ..errors import WorkbenchError
from ..gate import flaky_over_time
from ..report.json_report import encode_document, report_document
from ..report.redact import redactor_for
from ..report.redacted_text import learning, redacted_stream
from ..report.reuse_text import format_reuse_rows
from ..report.text import TextReporter
from ..textsafe import counted
from .common import (
    EXIT_FAILED,
    EXIT_OK,
    fail,
    load_project_config,
    project_argument,
    resolve_root,
    row_filter_options,
    setting_options,
)
from .report import HTML_HELP, write_run_html
from .share_output import (
    ANNOTATION_FORMATS,
    ANNOTATIONS_HELP,
    MD_HELP,
    REDACT_HELP,
    print_annotations,
    write_markdown,
)

RUN_HELP = """Run every row of every eval set once and score it.

Prints a line per result (PASS, FAIL or ERROR, with the reason) and a summary. With a baseline
file present, also flags results that passed on the baseline and fail now, and passing results
that got slower or use more tokens."""

EXIT_HELP = """Exit status: 0 when at least one result ran and the gate passes (by default: every result passed
and nothing regressed against the baseline); 1 when it does not, when a file had a problem, or
when nothing ran (unless --allow-empty); 2 for usage or project errors (a target that can't start).
A run narrowed with --set, --row, --tag or --type is judged on the rows it ran: problems of eval
files none of them is in are printed but not counted."""


def run_help() -> str:
    """`run --help`: what a run does, a paragraph per format with a gate of its own, the exit status."""
    return "\n\n".join([RUN_HELP, *(d.words.gate_help for d in all_dialects() if d.words.gate_help), EXIT_HELP])

# What is imported by now (workbench, pydantic, click, asyncio, sqlite3: ~400 modules, their classes and
# functions) lives as long as the process: leave it out of the cyclic collector's full passes, which otherwise
# walk it again and again while the 5,000 results of a run pile up (measured: ReuseBook.save alone 16 ms
# frozen, 50-90 ms not). Once a process, when this module is first imported (`run` is imported for a `run`).
gc.freeze()


def baseline_help() -> str:
    """`--baseline`'s help: the generic baseline's default, then what it names in each format's projects."""
    formats = "".join(f"; {d.words.baseline_help}" for d in all_dialects() if d.words.baseline_help)
    return f"Baseline file (default workbench-baseline.json at the project root{formats})."


@click.command("run", help=run_help())
@project_argument
@click.option("--set", "sets", multiple=True, metavar="NAME",
              help="Only this eval set (file base name, e.g. grading; scope/name when two scopes have one). "
                   "Repeatable.")
@click.option("--row", "rows", multiple=True, metavar="ID_OR_NAME", help="Only this row (id or name). Repeatable.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document instead of text.")
@click.option("--redact", is_flag=True, help=REDACT_HELP)
@click.option("--quiet", "-q", is_flag=True, help="Print only what did not pass, and the summary.")
@click.option("--brief", is_flag=True,
              help="Print a bounded digest for a coding agent instead: failing rows first (at most 20, about 4 KB), "
                   "what flipped since the previous iteration, the stall status and a next step.")
@click.option("--junit", "junit_path", type=click.Path(dir_okay=False), metavar="FILE",
              help="Also write JUnit XML (one testcase per result) to FILE.")
@click.option("--html", "html_path", type=click.Path(dir_okay=False), metavar="FILE", help=HTML_HELP)
@click.option("--md", "md_path", metavar="FILE", help=MD_HELP)
@click.option("--annotations", type=click.Choice(ANNOTATION_FORMATS), help=ANNOTATIONS_HELP)
@click.option("--allow-empty", is_flag=True, help="Exit 0 when nothing ran (normally a failure).")
@click.option("--baseline", "baseline_path", type=click.Path(dir_okay=False), metavar="FILE", help=baseline_help())
@click.option("--update-baseline", is_flag=True,
              help="Write the baseline from this run; refused when the pass rate is below the minimum.")
@click.option("--no-history", is_flag=True, help="Do not record this run in .workbench/ history.")
@click.option("--reuse", is_flag=True,
              help="Re-score a row from its last recorded run (by `run`, `watch` or the TUI) instead of running it "
                   "again, when everything it depends on is unchanged: its inputs and name, the project's files "
                   "but the eval files, the environment, the programs, the files it read. See --explain-reuse.")
@click.option("--explain-reuse", is_flag=True,
              help="Also say for each row why it was re-scored or ran (with --json: a \"reuse\" list).")
@setting_options("run")
@row_filter_options
def run_command(path: str | None, sets: tuple[str, ...], rows: tuple[str, ...], as_json: bool, quiet: bool, brief: bool,
                junit_path: str | None, allow_empty: bool, min_pass_rate: float | None, max_slowdown: float | None,
                max_token_increase: float | None, baseline_path: str | None,
                update_baseline: bool, no_history: bool, reuse: bool, explain_reuse: bool, md_path: str | None = None,
                annotations: str | None = None, html_path: str | None = None, redact: bool = False) -> None:
    """One iteration judged as a CI gate (the help a user sees is `run_help()`, composed with the formats')."""
    config = load_project_config(resolve_root(path))
    request = gate_request(config, sets=sets, rows=rows, min_pass_rate=min_pass_rate, max_slowdown=max_slowdown,
                           max_token_increase=max_token_increase, allow_empty=allow_empty,
                           baseline_path=baseline_path, update_baseline=update_baseline, record=not no_history,
                           reuse=reuse)
    if brief and as_json:
        fail("give --brief or --json, not both")
    if md_path == "-" and (brief or as_json):
        fail("--md - prints the digest where --brief or --json prints its own: give --md a FILE")
    redactor = redactor_for(config) if redact else None
    reporter = TextReporter(redacted_stream(sys.stdout, redactor) if redactor is not None else None,
                            results=not as_json and not brief, quiet=quiet)
    try:
        run = run_gate(config, request, learning(reporter, redactor) if redactor is not None else reporter)
    except Stopped:  # Ctrl-C: every result that finished, and what did not, before "interrupted" (exit 130)
        reporter.interrupted()
        raise
    except WorkbenchError:
        reporter.clear()
        raise
    if run.history_problem:
        click.echo(f"workbench: {run.history_problem}", err=True)
    reporter.finish(run.report, run.elsewhere)
    explanation = None
    if explain_reuse:
        from ..actions.reuse_explain import explain_report  # imported only when asked for

        explanation = explain_report(config, run.report)
    redactor = redactor.knowing(run.report.results) if redactor is not None else None
    if brief:
        from ..agent.brief import brief_text

        text = brief_text(config, run.report)
        click.echo(redactor.text(text) if redactor is not None else text)
        _print_gate(run)
    elif as_json:
        _print_baseline_update(run, quiet=True)
        extra = run.json_fields() | ({"reuse": explanation.to_json()} if explanation is not None else {})
        doc = report_document(run.report, extra)
        sys.stdout.buffer.write(encode_document(redactor.scrub(doc) if redactor is not None else doc))
        sys.stdout.flush()
    else:
        _print_gate(run)
        _print_baseline_update(run, quiet=False)
        for line in format_reuse_rows(explanation) if explanation is not None else ():
            click.echo(line)
    _share(config, run, annotations=annotations, md_path=md_path, html_path=html_path, junit_path=junit_path,
           to_stderr=as_json or brief)
    sys.exit(EXIT_OK if run.passed else EXIT_FAILED)


def _share(config: Config, run: GateRun, *, annotations: str | None, md_path: str | None, html_path: str | None,
           junit_path: str | None, to_stderr: bool) -> None:
    """The outputs asked for beside the run's own: annotations, the Markdown digest, the HTML report, JUnit XML
    (each one's code imported only when it is asked for)."""
    if annotations:
        print_annotations(config, run.report, to_stderr=to_stderr)
    if md_path:
        from ..actions.share_run import from_gate_run

        write_markdown(config, from_gate_run(config, run), md_path, to_stderr=to_stderr)
    if html_path:
        write_run_html(config, run, html_path, to_stderr=to_stderr)
    if junit_path:
        from ..report.junit import write_junit
        from ..report.output_file import OutputFileError

        try:
            write_junit(run.report, Path(junit_path), redactor_for(config))
        except OutputFileError as exc:
            fail(str(exc), EXIT_FAILED)


def _print_gate(run: GateRun) -> None:
    """Regressions against the baseline, and why the gate failed where the summary alone doesn't say."""
    check, gate, settings = run.check, run.gate, run.request.settings
    if check is not None and check.regressions:
        click.echo(f"against the baseline {run.request.baseline_path.name}:")
        for regression in check.regressions:
            click.echo(f"  {regression.describe()}")
    for verdict in run.verdicts:  # the formats' own gates
        for line in verdict.lines():
            click.echo(line)
    shown = (check is not None or settings.min_pass_rate < 1.0 or not run.report.results or bool(run.verdicts)
             or bool(flaky_over_time(run.report)))
    if not gate.passed and shown:
        click.echo("gate failed: " + "; ".join(gate.reasons))
    for warning in gate.warnings:  # [gate] flaky = "warn"
        click.echo(f"warning: {warning}")


def _print_baseline_update(run: GateRun, quiet: bool) -> None:
    _print_format_baseline_updates(run, quiet)
    update = run.baseline_update
    if update is None:
        return
    if update.problem:
        click.echo(f"workbench: {update.problem}", err=True)
    elif not quiet:
        click.echo(f"baseline written: {update.path} ({counted(len(run.report.results), 'result')}, "
                   f"pass rate {run.gate.result_pass_rate:.1%})")


def _print_format_baseline_updates(run: GateRun, quiet: bool) -> None:
    """What --update-baseline did to the formats' own baselines (a refusal always, on stderr)."""
    for update in filter(None, (verdict.update() for verdict in run.verdicts)):
        if not update.written:
            click.echo(f"workbench: {update.message}", err=True)
        elif not quiet:
            click.echo(update.message)
