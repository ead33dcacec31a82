"""What every command shares: finding the project, loading its config, and failing clearly.

Commands don't exit on a problem: they raise a `WorkbenchError`, and the group prints it once, the
same way for every command (`render_error`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import click

from ..config import Config, Overrides, load_config
from ..errors import WorkbenchError
from ..project import find_project_root
from ..textsafe import printable
from .flags import given_settings, setting_options

__all__ = ["setting_options"]  # the flags that set a setting, for every command that takes them

F = TypeVar("F", bound=Callable[..., Any])

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def fail(message: str, code: int = EXIT_USAGE) -> NoReturn:
    """Stop the command with `message` (a usage problem unless `code` says otherwise)."""
    raise WorkbenchError(message, exit_code=code)


def render_error(exc: WorkbenchError) -> None:
    """The one way a problem reaches the terminal: `workbench: <message>` on stderr (a refused write
    says `not written:`), control characters made visible. The caller exits with `exc.exit_code`."""
    from ..actions.writing import Refused

    message = f"not written: {exc}" if isinstance(exc, Refused) else str(exc)
    click.echo(f"workbench: {printable(message)}", err=True)


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


_TAGS, _KINDS = "workbench.tags", "workbench.kinds"
EVAL_TYPES = ("capability", "regression")


def _remember_values(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> tuple[str, ...]:
    """Repeatable options every loop command shares are kept on the context, not threaded through each
    signature: `load_project_config` reads them back as overrides."""
    if value:
        ctx.meta[f"workbench.{param.name}"] = tuple(dict.fromkeys(value))
    return value


def row_filter_options(func: F) -> F:
    """--tag / --type (repeatable): only the rows with one of the tags / of one of the types, in every
    iteration. Rows without tags (every UiPath row) are left out by --tag."""
    func = click.option("--type", "kinds", multiple=True, type=click.Choice(EVAL_TYPES), expose_value=False,
                        callback=_remember_values,
                        help="Only conversation evals of this type (capability or regression). Repeatable.")(func)
    func = click.option("--tag", "tags", multiple=True, metavar="TAG", expose_value=False, callback=_remember_values,
                        help="Only rows tagged TAG (conversation evals' tags); untagged rows are left out. "
                             "Repeatable: a row with any of the tags runs.")(func)
    return func


def load_project_config(root: Path) -> Config:
    """The project's config with the command-line overrides applied (and kept for later re-reads)."""
    config = load_config(root)
    ctx = click.get_current_context(silent=True)
    meta = ctx.meta if ctx else {}
    config.overrides = Overrides(settings=given_settings(ctx), tags=meta.get(_TAGS, ()), kinds=meta.get(_KINDS, ()))
    config.overrides.apply(config)
    return config
