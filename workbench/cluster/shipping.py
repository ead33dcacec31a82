"""Shipping the project to the workers: the project folder becomes the Ray working directory of
every task and actor of an iteration.

Ray names the package by a hash of its contents (`gcs://_ray_pkg_<hash>.zip`) and uploads it only
when the cluster doesn't have it yet, so an unchanged project is not uploaded twice and a changed one
gets fresh worker processes. Left out: workbench's own state, version control, virtualenvs,
`node_modules/`, caches, and the `[watch] ignore` globs. `.gitignore` is not applied: a file the
target reads must reach the workers even when it isn't committed.
"""

from __future__ import annotations

import inspect
import logging
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

from ..config import STATE_DIR, Config

ALWAYS_LEFT_OUT = (
    f"{STATE_DIR}/", ".git/", ".hg/", ".svn/", ".venv/", "venv/", "node_modules/", "__pycache__/", ".tox/",
    ".nox/", ".mypy_cache/", ".pytest_cache/", ".ruff_cache/", ".hypothesis/", "*.pyc",
)
_VENV_DEPTH = 2  # virtualenvs under other names (env/, .env-3.11/) are found this deep by their pyvenv.cfg

_QUIET = logging.getLogger("workbench.cluster.shipping")
_QUIET.addHandler(logging.NullHandler())
_QUIET.propagate = False


class ShippingError(RuntimeError):
    """The project could not be packaged or uploaded; every row of the iteration gets the message."""


def left_out(config: Config) -> list[str]:
    """Ray `excludes` (gitignore-style patterns, relative to the project root) for this project."""
    patterns = list(ALWAYS_LEFT_OUT)
    patterns += [f"/{path.relative_to(config.root).as_posix()}/" for path in virtualenvs(config.root)]
    patterns += config.watch.ignore
    return list(dict.fromkeys(patterns))


def virtualenvs(root: Path) -> list[Path]:
    found: list[Path] = []
    frontier = [root]
    for _ in range(_VENV_DEPTH):
        below: list[Path] = []
        for folder in frontier:
            try:
                children = [child for child in folder.iterdir() if child.is_dir() and not child.is_symlink()]
            except OSError:
                continue
            for child in children:
                (found if (child / "pyvenv.cfg").is_file() else below).append(child)
        frontier = below
    return sorted(found)


def ship_project(ray: ModuleType, config: Config) -> dict[str, Any]:
    """The runtime environment that gives a task or actor the project as its working directory
    (uploading the package when the cluster doesn't have this content yet). Blocking: run in a thread."""
    try:
        from ray._private.runtime_env.working_dir import upload_working_dir_if_needed
    except ImportError as exc:
        raise ShippingError(f"this Ray ({getattr(ray, '__version__', '?')}) has no working-directory upload "
                            f"workbench can use ({exc}); install a Ray of the 2.x line workbench was tested "
                            "with: pip install 'workbench[ray]'") from None
    wanted: dict[str, Any] = {"working_dir": str(config.root), "excludes": left_out(config)}
    options: dict[str, Any] = {"logger": _QUIET}
    if "include_gitignore" in inspect.signature(upload_working_dir_if_needed).parameters:
        options["include_gitignore"] = False
    with tempfile.TemporaryDirectory(prefix="workbench-ship-") as scratch:
        try:
            shipped = upload_working_dir_if_needed(dict(wanted), scratch_dir=scratch, **options)
        except Exception as exc:  # too large, unreadable files, the cluster refusing the upload
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise ShippingError(f"could not ship the project folder {config.root} to the Ray cluster: {first}. "
                                "Large folders can be left out with [watch] ignore") from None
    shipped.pop("excludes", None)
    return shipped
