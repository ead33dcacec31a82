"""`workbench compare [PATH] [A] [B]`: two recorded runs side by side — rows fixed, newly failing, still
failing, output changed — and the project's files that changed between them, with their diffs."""

from __future__ import annotations

import sys

import click

from ..actions.compare import Comparison, RowChange, compare_runs
from ..report.compare_redact import redact_comparison
from ..report.json_report import encode_document
from ..report.redact import redactor_for
from ..textsafe import one_line
from .common import fail, load_project_config, resolve_root

_MARK = {"PASS": "✔", "FAIL": "✘", "ERROR": "!"}


def _is_run(arg: str) -> bool:
    return arg == "baseline" or arg.removeprefix("#").isdigit()


def _split_args(args: tuple[str, ...]) -> tuple[str | None, list[str]]:
    """`compare`, `compare PATH`, `compare A`, `compare A B`, `compare PATH A B`."""
    path: str | None = None
    runs: list[str] = []
    for arg in args:
        if _is_run(arg):  # a project folder named like one: ./12
            runs.append(arg)
        elif path is None and not runs:
            path = arg
        else:
            fail(f"{arg!r} is not an iteration number or `baseline` (usage: workbench compare [PATH] [A] [B])")
    if len(runs) > 2:
        fail("usage: workbench compare [PATH] [A] [B]: at most two runs")
    return path, runs


@click.command("compare")
@click.argument("args", nargs=-1)
@click.option("--json", "as_json", is_flag=True, help="Print the comparison as JSON.")
def compare_command(args: tuple[str, ...], as_json: bool) -> None:
    """Compare two recorded runs: rows fixed, newly failing, still failing, and rows whose output changed
    while the verdict held (each with the diff of its output), and the files changed between them. Secrets are
    redacted, as in the shared reports.

    \b
    workbench compare             the iteration before the last with the last
    workbench compare 7           iteration 7 with the last
    workbench compare 7 12        iteration 7 with iteration 12
    workbench compare baseline    the committed baseline with the last iteration
    workbench compare PATH 7 12   the same for the project at PATH
    """
    path, runs = _split_args(args)
    config = load_project_config(resolve_root(path))
    comparison = redact_comparison(compare_runs(config, *runs), redactor_for(config))
    if as_json:
        sys.stdout.buffer.write(encode_document(comparison.to_json()))
        return
    click.echo("\n".join(render(comparison)))


def _row_lines(change: RowChange) -> list[str]:
    lines = [one_line(f"  {_MARK.get(change.after.value, '?')} {change.label}   {change.before.value} → "
                      f"{change.after.value}", 160)]
    return [*lines, *("      " + one_line(line, 150) for line in change.said)]  # each change once (issue 38)


def render(comparison: Comparison) -> list[str]:
    """The comparison as text: a summary, the files changed, each group of rows, then the code diffs."""
    before, after = comparison.before, comparison.after
    counts = (f"{len(comparison.fixed)} fixed, {len(comparison.newly_failing)} newly failing, "
              f"{len(comparison.still_failing)} still failing, {len(comparison.output_changed)} output changed")
    lines = [f"{before.label} → {after.label}: {counts}"]
    if comparison.files is None:
        lines.append(f"files: {comparison.files_note}")
    elif comparison.files:
        lines.append("files changed: " + ", ".join(diff.summary for diff in comparison.files))
    else:
        lines.append("files changed: none")
    if comparison.files is not None and comparison.files_note:
        lines.append(f"  (left out: {one_line(comparison.files_note, 200)})")
    for title, changes in (("fixed", comparison.fixed), ("newly failing", comparison.newly_failing),
                           ("still failing", comparison.still_failing),
                           ("output changed, verdict held", comparison.output_changed)):
        if changes:
            lines += ["", f"{title} ({len(changes)}):"]
            for change in changes:
                lines += _row_lines(change)
    for title, names in (("only in " + before.label, comparison.only_before),
                         ("only in " + after.label, comparison.only_after)):
        if names:
            shown = ", ".join(names[:10]) + (f", … ({len(names) - 10} more)" if len(names) > 10 else "")
            lines += ["", f"{title} ({len(names)}): {one_line(shown, 300)}"]
    for diff in comparison.files or []:
        lines += ["", diff.summary]
        if diff.diff:
            lines += diff.diff.rstrip("\n").splitlines()
    return lines
