"""`workbench check`: the project's files and the workflow's contract, checked without running
anything. The check itself is `actions.project_check.check_project`."""

from __future__ import annotations

import sys

import click

from ..actions.project_check import check_project
from ..report.json_report import encode_document
from ..report.text import format_check
from .common import EXIT_FAILED, EXIT_OK, project_argument, resolve_root


@click.command("check")
@project_argument
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document (passed, summary, problems).")
@click.option("--verbose", "-v", is_flag=True,
              help="Also print what re-scoring looks at: the files never watched or fingerprinted, the folders "
                   "fingerprinted by what is installed in them, and for each row whether `run --reuse` would "
                   "re-score it from its recorded run or run it, and why. (--json always has them, under \"reuse\".)")
def check_command(path: str | None, as_json: bool, verbose: bool) -> None:
    """Check every eval file, the settings and, when the project has a Workflow.json, every row's
    inputs and expectedOutput against its input.schema / output.schema — without running anything.

    Reports keys the schema doesn't declare (with a hint when only the casing differs: `Sum` vs
    `sum`), required keys that are missing, values of the wrong type, and results that can only be
    ERRORs (a missing evaluator file or criterion). `run` and the TUI show the schema findings as
    warnings beside the rows.

    Prints the problems and the verdict; -v adds re-scoring's view of the project before the verdict.

    Exit status: 0 when nothing is an error (warnings are printed but pass), 1 when something is,
    2 when there is no project to check.
    """
    report = check_project(resolve_root(path))
    if as_json:
        sys.stdout.buffer.write(encode_document(report.to_json()))
        sys.stdout.flush()
    else:
        for line in format_check(report, verbose=verbose):
            click.echo(line)
    sys.exit(EXIT_OK if report.passed else EXIT_FAILED)
