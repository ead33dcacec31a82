"""`workbench report [PATH] [ITERATION]`: a recorded iteration (default the newest) as a file to share — the
self-contained HTML report (`--html FILE`, `report/html/`)."""

from __future__ import annotations

from pathlib import Path

import click

from ..actions.gate import GateRun
from ..config import STATE_DIR, Config
from ..errors import WorkbenchError
from ..history import DB_NAME, HistoryStore
from ..project import load_project
from ..report.output_file import OutputFileError
from .common import EXIT_FAILED, fail, load_project_config, resolve_root
from .share_output import REPORT_MD_HELP, write_markdown, wrote

HTML_HELP = ("Write the HTML report to FILE: one self-contained page (no network, opens over file://) with the "
             "summary, the gate, the trend, every row with filters and each row's detail; secrets redacted.")


def split_args(args: tuple[str, ...]) -> tuple[str | None, int | None]:
    """`report`, `report PATH`, `report N`, `report PATH N` (a number that is also a folder here is the folder)."""
    if len(args) > 2:
        fail("usage: workbench report [PATH] [ITERATION] --html FILE")
    path, number = None, None
    for arg in args:
        if arg.isdigit() and not (path is None and len(args) == 1 and Path(arg).is_dir()):
            number = int(arg)
        elif path is None and number is None:
            path = arg
        else:
            fail(f"{arg!r} is not an iteration number")
    return path, number


@click.command("report")
@click.argument("args", nargs=-1)
@click.option("--html", "html_path", type=click.Path(dir_okay=False), metavar="FILE", help=HTML_HELP)
@click.option("--md", "md_path", is_flag=False, flag_value="-", metavar="[FILE]", help=REPORT_MD_HELP)
def report_command(args: tuple[str, ...], html_path: str | None, md_path: str | None = None) -> None:
    """Write a recorded iteration (default the newest) as a report to share.

    \b
    workbench report --html report.html        the newest iteration of the project here
    workbench report 12 --html report.html     iteration 12
    workbench report PATH [N] --html FILE      the same for the project at PATH
    workbench report [N] --md [FILE]           the Markdown digest (printed without FILE)
    """
    if not html_path and not md_path:
        fail("say what to write: --html FILE or --md [FILE]")
    path, number = split_args(args)
    config = load_project_config(resolve_root(path))
    if not (config.state_dir / DB_NAME).exists():
        fail(f"no history yet in {config.root / STATE_DIR} — run `workbench run` first", EXIT_FAILED)
    if md_path:
        from ..actions.share_run import from_history

        write_markdown(config, from_history(config, number), md_path)
        if not html_path:
            return
    if html_path is None:
        return
    target = Path(html_path)
    from ..report.html import write_history_report

    try:
        project = load_project(config.root, config)
    except WorkbenchError:
        project = None  # the files are gone or broken: the report shows what history holds
    try:
        with HistoryStore.open(config) as store:
            number = number if number is not None else store.latest_number()
            if number is None:
                fail("no iteration recorded yet — run `workbench run` first", EXIT_FAILED)
            size = write_history_report(config, project, store, number, target)
    except WorkbenchError as exc:  # the history can't be read, no such iteration
        fail(str(exc), EXIT_FAILED)
    except OutputFileError as exc:
        fail(str(exc), EXIT_FAILED)
    click.echo(wrote(target, size))


def write_run_html(config: Config, run: GateRun, target: str, *, to_stderr: bool = False) -> None:
    """`run --html FILE`: the run just judged; a file that can't be written fails the command (exit 1)."""
    from ..report.html import write_gate_run_report  # the page's builder: only when a report is written

    try:
        size = write_gate_run_report(config, run, Path(target))
    except OutputFileError as exc:
        fail(str(exc), EXIT_FAILED)
    click.echo(wrote(Path(target), size), err=to_stderr)
