"""The files `workbench init` creates for UiPath evals: the same names and shapes Studio Web seeds (seed 003 §1)."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

from ...scaffold import create_json
from ..base import EVALS_DIR
from .layout import EVALUATORS_DIR, SETS_DIR

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


def init_project(root: Path) -> tuple[list[str], list[str], list[str]]:
    """Create the seeded files that are missing. Returns relative paths: (created, kept because they
    exist, skipped — the empty eval set when the project already has eval sets of its own)."""
    scope = root / EVALS_DIR / "default"
    evaluator_path = scope / EVALUATORS_DIR / f"{EVALUATOR_FILE}.json"
    set_path = scope / SETS_DIR / f"{SET_FILE}.json"
    created: list[str] = []
    kept: list[str] = []
    skipped: list[str] = []
    others = [p for p in (scope / SETS_DIR).glob("*.json") if p.name != set_path.name]
    for path, document in ((evaluator_path, evaluator_document()), (set_path, eval_set_document())):
        relative = path.relative_to(root).as_posix()
        if path == set_path and others and not path.exists():
            skipped.append(relative)
        elif create_json(path, document):
            created.append(relative)
        else:
            kept.append(relative)
    return created, kept, skipped
