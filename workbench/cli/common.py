"""What every command shares: finding the project, loading its config, and failing clearly."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import click

from ..config import Config, ConfigError, Overrides, load_config
from ..project import find_project_root

F = TypeVar("F", bound=Callable[..., Any])

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def fail(message: str, code: int = EXIT_USAGE) -> NoReturn:
    click.echo(f"workbench: {message}", err=True)
    sys.exit(code)


def resolve_root(path: str | None) -> Path:
    if path is None:
        return find_project_root(Path.cwd())
    root = Path(path).expanduser()
    if not root.exists():
        fail(f"{path}: no such folder")
    if root.is_file():
        fail(f"{path} is a file; give the project folder (the one that holds evals/)")
    return root.resolve()


def project_argument(func: F) -> F:
    return click.argument("path", required=False, type=click.Path(file_okay=False))(func)


def runner_options(func: F) -> F:
    """--command / --timeout / --concurrency, which override the config file."""
    func = click.option("--concurrency", type=click.IntRange(min=1), metavar="N",
                        help="Rows in flight at once (overrides [runner] concurrency).")(func)
    func = click.option("--timeout", type=click.FloatRange(min=0, min_open=True), metavar="SECONDS",
                        help="Per-row time limit; the row's process group is killed after it.")(func)
    func = click.option("--command", "command", metavar="CMD",
                        help="Target command, split like a shell would (never run through one). "
                             "Selects the command runner.")(func)
    return func


def load_project_config(root: Path, *, command: str | None = None, timeout: float | None = None,
                        concurrency: int | None = None) -> Config:
    """The project's config with the command-line overrides applied (and kept for later re-reads)."""
    try:
        config = load_config(root)
    except ConfigError as exc:
        fail(str(exc))
    argv = None
    if command:
        try:
            argv = shlex.split(command)
        except ValueError as exc:
            fail(f"--command: {exc}")
        if not argv:
            fail("--command is empty")
    config.overrides = Overrides(command=argv, timeout=timeout, concurrency=concurrency)
    config.overrides.apply(config)
    return config
