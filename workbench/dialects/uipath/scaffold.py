"""The files `workbench init` creates for UiPath evals: the same names and shapes Studio Web seeds (seed 003
§1), in the scope the project already uses — and, in a project that has no target yet, a starter target
(`agent.py`, run by the `workbench.toml` beside it) with one complete row, so `init && run` is green."""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from typing import Any

from ...scaffold import (
    SETTINGS_FILE,
    STARTER_SETTINGS_TEXT,
    STARTER_TARGET,
    STARTER_TARGET_TEXT,
    Written,
    json_bytes,
    settings_source,
)
from ..base import EVALS_DIR, Scaffolded
from .layout import DEFAULT_WORKFLOW, EVAL_FILES_DIR, EVALUATORS_DIR, SETS_DIR

EVALUATOR_FILE = "exact-match-evaluator"
SET_FILE = "evaluation-set"
DEFAULT_SCOPE = "default"


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


def starter_row() -> dict[str, Any]:
    """The one row a new project starts with: what the starter target answers (its id is a fresh uuid,
    as Studio Web writes them)."""
    return {
        "id": str(uuid.uuid4()),
        "name": "greets Ada by name",
        "inputs": {"name": "Ada"},
        "evaluationCriterias": {EVALUATOR_FILE: {"expectedOutput": {"greeting": "Hello, Ada!"}}},
    }


def eval_set_document(rows: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {
        "version": "1.0",
        "id": str(uuid.uuid4()),
        "name": "Default",
        "evaluatorRefs": [EVALUATOR_FILE],
        "evaluations": rows or [],
    }


def seed_scope(root: Path) -> str:
    """The scope init writes into: `default` unless the project already uses another one (seed 003 §1)
    — a folder of evals/ holding eval-sets/, evaluators/ or eval-files/. With several and no `default`,
    the first by name."""
    try:
        entries = sorted(os.scandir(root / EVALS_DIR), key=lambda e: e.name)
    except OSError:
        return DEFAULT_SCOPE
    used = [e.name for e in entries if not e.name.startswith(".") and e.is_dir(follow_symlinks=False)
            and any(os.path.isdir(os.path.join(e.path, part)) for part in (SETS_DIR, EVALUATORS_DIR, EVAL_FILES_DIR))]
    return DEFAULT_SCOPE if not used or DEFAULT_SCOPE in used else used[0]


def _has_files(folder: Path) -> bool:
    """Whether anything but empty folders is under `folder` (a link counts; none is followed)."""
    return any(files or any(os.path.islink(os.path.join(top, d)) for d in folders)
               for top, folders, files in os.walk(folder))


def _why_no_starter(root: Path) -> str | None:
    """Why this project gets no starter target, or None when it has no target of its own yet."""
    if os.path.lexists(root / DEFAULT_WORKFLOW):
        return f"{DEFAULT_WORKFLOW} is the target: uip runs it"
    source = settings_source(root)
    if source is not None:
        return f"{source.name} already says how to run the target"
    if (root / EVALS_DIR).is_symlink() or _has_files(root / EVALS_DIR):
        return "the project already has eval files"
    return None


def init_project(root: Path) -> Scaffolded:
    """Create the seeded files that are missing (and the starter target, in a project without one).
    `created`, `kept` (they exist) and `skipped` (each with why) name files relative to `root`."""
    scope = seed_scope(root)
    no_starter = _why_no_starter(root)
    done = Written(root)
    prefix = f"{EVALS_DIR}/{scope}"
    done.create(f"{prefix}/{EVALUATORS_DIR}/{EVALUATOR_FILE}.json", json_bytes(evaluator_document()))
    set_path = f"{prefix}/{SETS_DIR}/{SET_FILE}.json"
    others = [p for p in (root / prefix / SETS_DIR).glob("*.json") if p.name != f"{SET_FILE}.json"]
    if others and not os.path.lexists(root / set_path):
        done.skip(set_path, "the project already has eval sets")
    else:
        done.create(set_path, json_bytes(eval_set_document(None if no_starter else [starter_row()])))
    if no_starter is None:
        done.create(STARTER_TARGET, STARTER_TARGET_TEXT.encode("utf-8"))
        done.create(SETTINGS_FILE, STARTER_SETTINGS_TEXT.encode("utf-8"))
    else:
        missing = [name for name in (STARTER_TARGET, SETTINGS_FILE) if not os.path.lexists(root / name)]
        done.kept += [name for name in (STARTER_TARGET, SETTINGS_FILE) if name not in missing]
        if missing:
            done.skip(", ".join(missing), no_starter)
    return Scaffolded(done.created, done.kept, done.skipped, _next_steps(no_starter, set_path))


def _next_steps(no_starter: str | None, set_path: str) -> str:
    if no_starter is None:
        return (f"Next: `workbench run` runs the row in {set_path} against {STARTER_TARGET} (it passes), or "
                f"`workbench` opens the TUI. Then make {STARTER_TARGET} call your agent and add rows.")
    if no_starter.startswith(DEFAULT_WORKFLOW):
        return (f"Next: add rows to {set_path} (inputs and expectedOutput keys spelled as {DEFAULT_WORKFLOW}'s "
                "input.schema and output.schema spell them), then `workbench run`.")
    return f"Next: add rows to {set_path}, then `workbench run`."
