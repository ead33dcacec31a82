"""Where UiPath evals live in a project (seed 003 §1): `evals/<SCOPE>/eval-sets/*.json` rows scored by
`evals/<SCOPE>/evaluators/*.json`, with `eval-files/` for the files rows refer to; `Workflow.json`, whose
declared schemas `contract.py` checks rows against."""

from __future__ import annotations

from pathlib import Path

SETS_DIR = "eval-sets"
EVALUATORS_DIR = "evaluators"
EVAL_FILES_DIR = "eval-files"
DEFAULT_WORKFLOW = "Workflow.json"


def workflow_path(root: Path, workflow: str | None) -> Path:
    """The workflow file `[runner] workflow` names (Workflow.json by default)."""
    return root / (workflow or DEFAULT_WORKFLOW)
