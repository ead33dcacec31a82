"""What every command shares: finding the project, loading its config, and failing clearly.

Commands don't exit on a problem: they raise a `WorkbenchError`, and the group prints it once, the
same way for every command (`render_error`)."""

from __future__ import annotations

import math
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import click

from ..config import Config, Overrides, load_config
from ..errors import WorkbenchError
from ..project import find_project_root
from ..textsafe import printable

F = TypeVar("F", bound=Callable[..., Any])

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class Number(click.FloatRange):
    """A float option that refuses `nan` and `inf` (click's FloatRange lets `nan` through every bound)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = click.FLOAT.convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number.", param, ctx)
        return super().convert(number, param, ctx)


SECONDS = Number(min=0, min_open=True, max=86_400)  # a time limit: up to a day, as in workbench.toml
FRACTION = Number(min=0, max=1000)  # a gate's allowed increase: 0.5 = +50%


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


_NO_CACHE = "workbench.no_cache"


def _remember_flag(ctx: click.Context, param: click.Parameter, value: bool) -> bool:
    """Flags every loop command shares are kept on the context, not threaded through each signature:
    `load_project_config` reads them back as overrides."""
    if value:
        ctx.meta[f"workbench.{param.name}"] = True
    return value


_CLUSTER = "workbench.cluster"


def _remember_cluster(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """Like `_remember_flag`, for --cluster ADDRESS."""
    if value is not None:
        if not value.strip():
            raise click.BadParameter("give the cluster's address: local, auto or ray://head:10001")
        ctx.meta[_CLUSTER] = value.strip()
    return value


def runner_options(func: F) -> F:
    """--command / --timeout / --concurrency / --no-cache / --cluster, which override the config file."""
    func = click.option("--cluster", metavar="ADDRESS", expose_value=False, callback=_remember_cluster,
                        help="Run the rows on a Ray cluster: local (start one on this machine), auto, or "
                             "ray://head:10001 ([cluster] engine = \"ray\" and address).")(func)
    func = click.option("--no-cache", is_flag=True, expose_value=False, callback=_remember_flag,
                        help="Ask the LLM judge again instead of using answers remembered under .workbench/ "
                             "([judge] cache).")(func)
    func = click.option("--concurrency", type=click.IntRange(min=1), metavar="N",
                        help="Rows in flight at once (overrides [runner] concurrency).")(func)
    func = click.option("--timeout", type=SECONDS, metavar="SECONDS",
                        help="Per-row time limit; the row's process group is killed after it.")(func)
    func = click.option("--command", "command", metavar="CMD",
                        help="Target command, split like a shell would (never run through one). "
                             "Selects the command runner.")(func)
    return func


_TAGS, _KINDS = "workbench.tags", "workbench.kinds"
EVAL_TYPES = ("capability", "regression")


def _remember_values(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> tuple[str, ...]:
    """Like `_remember_flag`, for repeatable options: kept on the context for `load_project_config`."""
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


def scenario_options(func: F) -> F:
    """--model / --dir, for projects with scenarios (seed 000); both kept across re-reads."""
    func = click.option("--dir", "scenarios_dir", type=click.Path(file_okay=False), metavar="PATH",
                        help="Folder of scenario files, one *.json per scenario (default .appilots/scenarios; "
                             "[scenarios] dir, .appilotsrc eval.scenariosDir).")(func)
    func = click.option("--model", metavar="ID",
                        help="The model every scenario without its own modelOverride asks the agent for.")(func)
    return func


def load_project_config(root: Path, *, command: str | None = None, timeout: float | None = None,
                        concurrency: int | None = None, model: str | None = None,
                        scenarios_dir: str | None = None) -> Config:
    """The project's config with the command-line overrides applied (and kept for later re-reads)."""
    config = load_config(root)
    argv = None
    if command:
        try:
            argv = shlex.split(command)
        except ValueError as exc:
            fail(f"--command: {exc}")
        if not argv:
            fail("--command is empty")
    folder = str(Path(scenarios_dir).expanduser().resolve()) if scenarios_dir else None  # from where it was typed
    ctx = click.get_current_context(silent=True)
    meta = ctx.meta if ctx else {}
    config.overrides = Overrides(command=argv, timeout=timeout, concurrency=concurrency, model=model,
                                 scenarios_dir=folder, no_cache=bool(ctx and ctx.meta.get(_NO_CACHE)),
                                 tags=meta.get(_TAGS, ()), kinds=meta.get(_KINDS, ()), cluster=meta.get(_CLUSTER))
    config.overrides.apply(config)
    return config
