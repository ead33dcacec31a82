"""What every format's `workbench init` shares: writing a starter file only where nothing is."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from . import jsonio
from .writeback.atomic import create_new


def create_json(path: Path, value: Any) -> bool:
    """Write `value` as indented JSON to `path` only if nothing is there; False when it exists."""
    return create_new(path, (jsonio.dumps(value, indent=True) + "\n").encode("utf-8"))
