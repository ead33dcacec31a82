"""`workbench demo`: the TUI on a writable copy of the bundled example, so nothing of yours is touched."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import click

from .common import fail, load_project_config
from .tui_launch import launch_tui, on_a_terminal

EXAMPLE = "grading"


def bundled_example(name: str = EXAMPLE) -> Path:
    """The example shipped in the wheel (workbench/_examples), or the repository's examples/."""
    package = Path(__file__).resolve().parent.parent
    for candidate in (package / "_examples" / name, package.parent / "examples" / name):
        if (candidate / "evals").is_dir():
            return candidate
    fail(f"the bundled example {name!r} is missing from this installation")


@click.command("demo")
@click.option("--into", type=click.Path(file_okay=False), metavar="DIR",
              help="Copy the example here (must not exist yet) instead of a new temporary folder.")
@click.option("--plain", is_flag=True, help="Run the plain watch loop instead of the TUI.")
def demo_command(into: str | None, plain: bool) -> None:
    """Open workbench on a fresh copy of the bundled example project.

    One row fails on purpose: open the copy's grade.py in an editor, fix the comparison, save, and
    watch the row turn green.
    """
    source = bundled_example()
    if not plain and not on_a_terminal():  # before the copy: nothing is left behind for a TUI that can't open
        fail("the TUI needs a terminal (stdin and stdout are not one here); `workbench demo --plain` runs the "
             "demo's loop without it")
    if into:
        target = Path(into).expanduser().resolve()
        if target.exists():
            fail(f"{target} already exists; choose a new folder")
    else:
        target = Path(tempfile.mkdtemp(prefix="workbench-demo-")) / EXAMPLE
    ignore = shutil.ignore_patterns(".workbench", "__pycache__", "*.pyc", "workbench-baseline.json")
    shutil.copytree(source, target, ignore=ignore)
    click.echo(f"demo project: {target}\nedit {target / 'grade.py'} and save to see the loop re-run.")
    config = load_project_config(target)
    if plain:
        from .watch import run_plain_loop

        run_plain_loop(config, verbose=False)
    else:
        # the path on a line of its own (a toast wraps it, but not in the middle of a sentence); `p` says it again
        launch_tui(config, watch=True, welcome=f"One row fails on purpose: fix the comparison in\n{target / 'grade.py'}"
                   "\nand save. p shows this again, ? lists the keys.", show_path=True)
        click.echo(f"the demo project stays in {target}")
