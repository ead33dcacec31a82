"""`workbench history`: the iterations the loop remembers, and what flipped in one of them."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ..config import STATE_DIR
from ..history import DB_NAME, HistoryError, HistoryStore, IterationInfo, compare_results
from ..model import Result, ResultKey
from ..report.json_report import encode_document
from ..report.redact import Redactor, redactor_for
from ..report.text import format_result
from ..textsafe import counted, one_line
from .common import EXIT_FAILED, fail, load_project_config, resolve_root
from .share_output import REDACT_HELP


def _when(info: IterationInfo) -> str:
    return info.started_at.astimezone().strftime("%Y-%m-%d %H:%M:%S")


def _change(info: IterationInfo) -> str:
    if info.partial:
        return "(partial)"
    if info.change is None:
        return ""
    return f"{info.change:+d}" if info.change else "="


def _split_args(args: tuple[str, ...]) -> tuple[str | None, int | None]:
    """`history`, `history PATH`, `history N`, `history PATH N`."""
    if len(args) > 2:
        fail("usage: workbench history [PATH] [N]")
    path, number = None, None
    for arg in args:
        if arg.isdigit() and not (len(args) == 1 and Path(arg).is_dir()):
            number = int(arg)
        elif path is None:
            path = arg
        else:
            fail(f"{arg!r} is not an iteration number")
    return path, number


@click.command("history", context_settings={"ignore_unknown_options": False})
@click.argument("args", nargs=-1)
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
@click.option("--limit", type=click.IntRange(min=1), default=50, show_default=True,
              help="How many of the newest iterations to list.")
@click.option("--flaky", is_flag=True,
              help="List the rows found flaky in those iterations: their verdict changed with nothing they depend on "
                   "changed, or some of their samples ([runner] repeat) passed and some did not.")
@click.option("--redact", is_flag=True, help=REDACT_HELP)
def history_command(args: tuple[str, ...], as_json: bool, limit: int, flaky: bool, redact: bool = False) -> None:
    """List recorded iterations, or show iteration N: its results and what flipped since the one before.

    \b
    workbench history            list iterations of the project here
    workbench history 12         iteration 12 in detail
    workbench history PATH [N]   the same for the project at PATH
    workbench history --flaky    the rows found flaky
    """
    path, number = _split_args(args)
    root = resolve_root(path)
    config = load_project_config(root)
    db = config.state_dir / DB_NAME
    if not db.exists():
        if as_json:
            click.echo("[]" if number is None else "null")
        else:
            click.echo(f"no history yet in {config.root / STATE_DIR} — run `workbench run` or `workbench watch`")
        sys.exit(0 if number is None else EXIT_FAILED)
    try:
        with HistoryStore.open(config) as store:
            if flaky:
                _list_flaky(store, as_json, limit)
            elif number is None:
                _list(store, as_json, limit)
            else:
                _show(store, number, as_json, redactor_for(config) if redact else None)
    except HistoryError as exc:
        fail(str(exc))


def _list(store: HistoryStore, as_json: bool, limit: int) -> None:
    infos = store.iterations(limit)
    if as_json:
        sys.stdout.buffer.write(encode_document([info.to_json() for info in infos]))
        return
    if not infos:
        click.echo("no iterations recorded yet")
        return
    click.echo(f"{'#':>5}  {'when':19}  {'passing':>9}  {'change':>9}  {'time':>6}  trigger")
    for info in infos:
        passed = f"{info.passed}/{info.total}"
        click.echo(f"{info.number:>5}  {_when(info)}  {passed:>9}  {_change(info):>9}  {info.duration_s:>5.1f}s  "
                   f"{one_line(info.trigger.describe(), 60)}")


def _list_flaky(store: HistoryStore, as_json: bool, limit: int) -> None:
    rows = store.flaky_rows(limit)
    if as_json:
        sys.stdout.buffer.write(encode_document([row.to_json() for row in rows]))
        return
    if not rows:
        click.echo(f"no flaky rows in the newest {counted(limit, 'iteration')}")
        return
    for row in rows:
        how = [f"{row.samples} samples passed"] if row.samples else []
        if row.since is not None:
            how.append(f"{row.verdict.value} in iteration {row.iteration}, not in iteration {row.since}, with "
                       "nothing it depends on changed")
        elif row.samples:
            how[0] += f" in iteration {row.iteration}"
        click.echo(one_line(f"{row.key.set_file} › {row.label}: {'; '.join(how)}", 300))


def _flip_lines(title: str, results: list[Result]) -> list[str]:
    if not results:
        return []
    lines = [f"{title} ({len(results)}):"]
    lines += [f"  {one_line(r.label, 80)} [{r.evaluator}] ({r.set_file})" for r in results]
    return lines


def _known_before(store: HistoryStore, number: int) -> tuple[int | None, list[Result]]:
    """The newest iteration before `number` and every result known then: the last full iteration,
    updated by the partial re-runs after it (a full run after `--row X` is not all "new")."""
    earlier = [info for info in store.iterations() if info.number < number]
    if not earlier:
        return None, []
    start = max((index for index, info in enumerate(earlier) if not info.partial), default=0)
    known: dict[ResultKey, Result] = {}
    for info in earlier[start:]:
        known.update((result.key, result) for result in store.results(info.number))
    return earlier[-1].number, list(known.values())


def _show(store: HistoryStore, number: int, as_json: bool, redactor: Redactor | None = None) -> None:
    """Iteration `number`: its results (redacted by `redactor`, when given) and its flips."""
    info = store.iteration(number)
    if info is None:
        latest = store.latest_number()
        fail(f"no iteration {number} in history" + (f" (the newest is {latest})" if latest else ""), EXIT_FAILED)
    results = store.results(number)
    previous_number, previous = _known_before(store, number)
    flips = compare_results(previous, results, only_current=info.partial)
    known = redactor.knowing(results) if redactor is not None else Redactor()
    if as_json:
        doc = info.to_json() | {"previous": previous_number, "results": [r.to_json() for r in results],
                                "flips": flips.to_json()}
        sys.stdout.buffer.write(encode_document(known.scrub(doc)))
        return
    click.echo(f"iteration {info.number} — {_when(info)} — {one_line(info.trigger.describe(), 80)}")
    click.echo(f"{info.passed} passed, {info.failed} failed, {counted(info.errors, 'error')} of {info.total} "
               f"in {info.duration_s:.1f}s" + (f" (change {_change(info)})" if _change(info) else ""))
    for problem in info.problems:
        click.echo(one_line(f"{problem.severity}: {problem.file}: {problem.message}", 300))
    click.echo("")
    for result in results:
        click.echo(known.text(format_result(result)))
    if previous_number is None:
        click.echo("\n(no earlier iteration to compare with)")
        return
    lines = (_flip_lines("newly passing", flips.newly_passing) + _flip_lines("newly failing", flips.newly_failing)
             + _flip_lines("new", flips.added) + _flip_lines("gone", flips.removed))
    click.echo(f"\nsince iteration {previous_number}:")
    click.echo("\n".join(lines) if lines else "  nothing flipped")
