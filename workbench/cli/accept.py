"""`workbench accept`: bless recorded actual outputs as expected outputs — one row, several, or every
failing row (each diff shown, then one write per eval set)."""

from __future__ import annotations

import contextlib
import signal
import sys
from collections.abc import Iterator

import click

from ..actions.accept import AcceptPreview, preview_recorded_accept
from ..actions.accept_bulk import BulkPreview, preview_recorded_failing, preview_recorded_rows, write_accepted
from ..actions.signals import Stopped
from ..actions.writing import Refused
from ..textsafe import printable
from .common import fail, load_project_config, project_argument, resolve_root
from .writing import print_notes, show_and_write


@click.command("accept")
@project_argument
@click.option("--set", "set_name", metavar="SET",
              help="The eval set (file base name, e.g. grading; scope/name when two scopes have one). "
                   "Required with --row; with --all-failing it narrows to that set.")
@click.option("--row", "row_refs", multiple=True, metavar="ID_OR_NAME",
              help="The row, by id or exact name. Repeat it to accept several rows at once.")
@click.option("--all-failing", is_flag=True,
              help="Every row whose recorded results don't all pass (each row's newest run, or --iteration N).")
@click.option("--evaluator", metavar="REF",
              help="Only this evaluator's expectation (default: every evaluator of the row that compares "
                   "with expectedOutput).")
@click.option("--iteration", type=click.IntRange(min=1), metavar="N",
              help="Use the output recorded in iteration N (default: the newest iteration that ran the row).")
@click.option("--yes", "-y", is_flag=True,
              help="With several rows: write after showing the diffs, without asking (for scripts).")
@click.option("--dry-run", is_flag=True, help="Show the change; write nothing.")
def accept_command(path: str | None, set_name: str | None, row_refs: tuple[str, ...], all_failing: bool,
                   evaluator: str | None, iteration: int | None, yes: bool, dry_run: bool) -> None:
    """Write rows' recorded actual outputs into their evaluationCriterias[REF].expectedOutput.

    Only the changed expectations' bytes change; with a targetOutputKey path only those paths are set.
    One --row is written straight after its diff. Several --row, or --all-failing, show every row's
    diff first and then ask once (--yes skips the question; with no terminal to ask on, --yes is
    required); all the accepted rows of one eval set are written in one write of that file.
    Exit status: 0 written (or nothing to change), 1 refused or declined (nothing written), 2 usage errors,
    130 interrupted (nothing written).
    """
    try:
        _accept(path, set_name, row_refs, all_failing, evaluator, iteration, yes, dry_run)
    except KeyboardInterrupt:
        raise Stopped(signal.SIGINT, "nothing was written") from None
    except click.Abort as exc:
        if isinstance(exc.__context__, KeyboardInterrupt):  # Ctrl-C at the confirmation question
            raise Stopped(signal.SIGINT, "nothing was written") from None
        raise


@contextlib.contextmanager
def _not_interrupted() -> Iterator[None]:
    """Ctrl-C is ignored while files are written (milliseconds): a write is never cut short, and
    "interrupted; nothing was written" stays true."""
    try:
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _accept(path: str | None, set_name: str | None, row_refs: tuple[str, ...], all_failing: bool,
            evaluator: str | None, iteration: int | None, yes: bool, dry_run: bool) -> None:
    if all_failing and row_refs:
        fail("give either --row or --all-failing, not both")
    if not all_failing and not row_refs:
        fail("name the rows to accept: --set SET --row ID_OR_NAME (repeatable), or --all-failing [--set SET]")
    if row_refs and not set_name:
        fail("--row needs --set SET (the eval set the rows belong to)")
    config = load_project_config(resolve_root(path))
    if len(row_refs) == 1:
        assert set_name is not None
        _accept_one(preview_recorded_accept(config, set_name, row_refs[0], evaluator=evaluator, iteration=iteration),
                    dry_run)
        return
    if all_failing:
        bulk = preview_recorded_failing(config, set_name, evaluator=evaluator, iteration=iteration)
    else:
        assert set_name is not None
        bulk = preview_recorded_rows(config, set_name, row_refs, evaluator=evaluator, iteration=iteration)
    _accept_many(bulk, yes=yes, dry_run=dry_run)


def _accept_one(preview: AcceptPreview, dry_run: bool) -> None:
    print_notes(preview.notes)
    label = printable(preview.label)
    if not preview.changed:
        click.echo(f"nothing to change: the expectations of {label!r} already hold the output of "
                   f"iteration {preview.iteration}")
        return
    with _not_interrupted():
        written = show_and_write(preview.plan, dry_run)
    if written is not None:
        refs = ", ".join(change.label for change in written.changes) or "nothing"
        click.echo(f"accepted the output of iteration {preview.iteration} as the expectation of {label!r} "
                   f"({refs}) in {written.display}")


def _show_bulk(bulk: BulkPreview) -> None:
    """Every offered row's diff, each under a heading; then what was left out and why."""
    total = len(bulk.previews)
    for number, preview in enumerate(bulk.previews, 1):
        click.echo(f"── {number}/{total}: {printable(preview.label)!r} (output of iteration {preview.iteration})")
        print_notes(preview.notes)
        click.echo(printable(preview.plan.diff()))
    for reason in bulk.skipped:
        click.echo(f"skipped {printable(reason)}", err=True)


def can_ask() -> bool:
    """Whether a person can answer a question: stdin is a terminal."""
    return sys.stdin.isatty()


def _accept_many(bulk: BulkPreview, *, yes: bool, dry_run: bool) -> None:
    _show_bulk(bulk)
    if not bulk.previews:
        click.echo("nothing to accept" + (" (every failing row was skipped, see above)" if bulk.skipped else
                                          ": no failing row has a recorded output that differs from its expectation"))
        return
    rows, files = len(bulk.previews), len(bulk.files)
    summary = f"{rows} row{'s' * (rows != 1)} in {files} file{'s' * (files != 1)}"
    if dry_run:
        click.echo(f"(dry run: {summary} shown, nothing written)")
        return
    if not yes:
        if not can_ask():
            raise Refused(f"{summary} shown above, but there is no terminal to confirm on; "
                          "pass --yes to write them without asking")
        if not click.confirm(f"Accept {summary}?", default=False):
            raise Refused("declined")
    refused: list[str] = []
    with _not_interrupted():
        outcomes = list(write_accepted(bulk.project, bulk.previews))
    for outcome in outcomes:
        names = ", ".join(repr(printable(label)) for label in outcome.labels)
        if outcome.written is None:
            refused.append(f"{outcome.display} ({names}): {outcome.refused}")
        else:
            click.echo(f"accepted {len(outcome.labels)} row{'s' * (len(outcome.labels) != 1)} in "
                       f"{outcome.display}: {names}")
    if refused:
        raise Refused("; ".join(refused))
