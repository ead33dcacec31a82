"""Which files are conversation evals (`evals/**/*.eval.json`, `*.eval.ts`): what saying whether a project has
any needs, apart from reading them (`files.py`), so the format's package loads light."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .. import all_dialects

SUFFIX = ".eval.json"
TS_SUFFIX = ".eval.ts"
SUFFIXES = (SUFFIX, TS_SUFFIX)
DIALECT = "conversations"


def _not_ours() -> set[str]:
    """The folders other formats keep their files in (`OwnsFolders`): not walked into."""
    from ..base import OwnsFolders

    return {folder for dialect in all_dialects() if dialect.name != DIALECT and isinstance(dialect, OwnsFolders)
            for folder in dialect.folders}


def eval_files(evals: Path, on_error: Any = None) -> Iterator[Path]:
    """The conversation files under `evals/`, in a stable order; links to folders are not followed."""
    not_ours = _not_ours()
    for folder, dirs, files in os.walk(evals, onerror=on_error):
        dirs[:] = sorted(d for d in dirs if d not in not_ours and not d.startswith("."))
        for name in sorted(files):
            if name.endswith(SUFFIXES) and not name.startswith("."):
                yield Path(folder) / name
