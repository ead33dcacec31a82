"""The files `workbench init` creates: the same names and shapes Studio Web seeds (seed 003 §1)."""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from typing import Any

from . import jsonio
from .project import EVALS_DIR, EVALUATORS_DIR, SETS_DIR

EVALUATOR_FILE = "exact-match-evaluator"
SET_FILE = "evaluation-set"


def evaluator_document() -> dict[str, Any]:
    return {
        "version": "1.0",
        "id": f"exact-match-{uuid.uuid4().hex[:8]}",
        "name": "Exact Match",
        "description": "Strict deep-equal of the raw output against expectedOutput",
        "evaluatorTypeId": "uipath-exact-match",
        "evaluatorConfig": {
            "name": "Exact Match",
            "targetOutputKey": "*",
            "defaultEvaluationCriteria": {"expectedOutput": {}},
        },
    }


def eval_set_document() -> dict[str, Any]:
    return {
        "version": "1.0",
        "id": str(uuid.uuid4()),
        "name": "Default",
        "evaluatorRefs": [EVALUATOR_FILE],
        "evaluations": [],
    }


def _create(path: Path, document: dict[str, Any]) -> bool:
    """Write `document` to `path` only if nothing is there (O_EXCL: no race with another writer)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        return False
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(jsonio.dumps(document, indent=True) + "\n")
    return True


def init_project(root: Path) -> tuple[list[str], list[str]]:
    """Create the seeded files that are missing. Returns (created, kept) relative paths."""
    scope = root / EVALS_DIR / "default"
    files = [
        (scope / EVALUATORS_DIR / f"{EVALUATOR_FILE}.json", evaluator_document()),
        (scope / SETS_DIR / f"{SET_FILE}.json", eval_set_document()),
    ]
    created, kept = [], []
    for path, document in files:
        (created if _create(path, document) else kept).append(path.relative_to(root).as_posix())
    return created, kept
