"""The outputs that share a run: the Markdown digest written to a file (or stdout) and GitHub annotations
printed — for `run --md/--annotations` and `workbench report --md`; both redacted (`report/redact.py`)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..config import Config
from ..events import IterationReport
from ..report.output_file import OutputFileError, write_output_file
from ..report.redact import redactor_for
from .common import EXIT_FAILED, fail

if TYPE_CHECKING:
    from ..actions.share_run import SharedRun

ANNOTATION_FORMATS = ("github",)
MD_HELP = ("Also write a Markdown digest (counts, the gate, failing rows with their first differences, flips; at "
           "most about 60 lines) to FILE, e.g. \"$GITHUB_STEP_SUMMARY\" (replaced, not appended); - prints it.")
REPORT_MD_HELP = ("Write the Markdown digest of the iteration (counts, the gate judged by today's settings and "
                  "baseline, failing rows with their first differences, flips; at most about 60 lines) to FILE, "
                  "or print it when no FILE is given.")
ANNOTATIONS_HELP = ("Also print a GitHub Actions annotation (::error file=…,line=…) per failing or erroring row, "
                    "at the line it starts on in its eval file, and per file problem (on stderr with --json "
                    "or --brief).")

REDACT_HELP = ("Redact what is printed (the result lines, --json, --brief) as the shared reports always are: the "
               "values of secret-named settings, environment and .env* entries, and of secret-named keys in the "
               "outputs, wherever they occur. Without it, what is printed on the terminal is shown as it is.")


def wrote(path: Path, size: int) -> str:
    """`wrote report.html (38 KB)`: the line each report written to a file ends with (`--html`, `--md`)."""
    return f"wrote {path} ({max(1, round(size / 1024))} KB)"


def write_markdown(config: Config, run: SharedRun, target: str, *, to_stderr: bool = False) -> None:
    """The digest to `target` ("-": stdout), redacted; a file that can't be written fails the command (exit 1).
    A file written is said as `--html`'s is (`wrote FILE (N KB)`; on stderr when stdout carries --json/--brief)."""
    from ..report.markdown import markdown_digest  # the digest and annotations: only when asked for

    text = markdown_digest(run, redactor_for(config))
    if target == "-":
        click.echo(text, nl=False)
        return
    data = text.encode()
    try:
        write_output_file(Path(target), data, "the Markdown digest",
                          "give a file path, or - to print the digest")
    except OutputFileError as exc:
        fail(str(exc), EXIT_FAILED)
    click.echo(wrote(Path(target), len(data)), err=to_stderr)


def print_annotations(config: Config, report: IterationReport, *, to_stderr: bool = False) -> None:
    """The run's workflow commands, one a line (GitHub reads them from either stream), redacted."""
    from ..report.annotations import github_annotations

    stream = sys.stderr if to_stderr else sys.stdout
    for line in github_annotations(report.results, report.project, report.problems, redactor=redactor_for(config)):
        click.echo(line, file=stream)
