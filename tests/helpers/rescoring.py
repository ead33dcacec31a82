"""`workbench run --reuse` as a user runs it (in this process), with what `workbench check` foresaw for each row
just before: the verdicts are asserted first (what matters most, and what an older workbench without explanations gets
wrong too), then the reasons."""

from __future__ import annotations

import json
from pathlib import Path

from helpers.cli import cli_env, invoke_json, invoke_workbench


def foreseen(root: Path) -> dict[str, str]:
    """What `workbench check` says `run --reuse` would do with each row now ({} when it can't say)."""
    proc = invoke_workbench("check", str(root), "--json", env=cli_env())
    try:
        rows = json.loads(proc.stdout).get("reuse", {}).get("rows", [])
    except (json.JSONDecodeError, AttributeError):
        return {}
    return {r["row_id"]: r["reason"] for r in rows}


def run_reuse(root: Path) -> tuple[list[tuple[str, bool]], dict[str, str]]:
    """Each result's (verdict, re-scored?) of `run --reuse`, and check's reason for each row before it."""
    why = foreseen(root)
    _, doc = invoke_json("run", str(root), "--reuse", env=cli_env())
    return [(r["verdict"], bool(r.get("reused"))) for r in doc["results"]], why
