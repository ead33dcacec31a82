"""Run the real `workbench` CLI the way a user does, in a fresh interpreter, and read what it printed.

``run_workbench("run", str(root))`` never raises on exit codes; ``run_json`` adds ``--json`` and parses the
document; ``verdicts`` and ``result_for`` pick results out of it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from helpers.project import EXACT


def cli_env(**extra: str) -> dict[str, str]:
    """The environment for a CLI subprocess: no colour, no progress line, nothing inherited that matters."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("WORKBENCH_", "FORCE_COLOR"))}
    env.update({"NO_COLOR": "1", "WORKBENCH_NO_PROGRESS": "1", "PYTHONIOENCODING": "utf-8"})
    env.update(extra)
    return env


def run_workbench(*args: str, cwd: Path | None = None, env: Mapping[str, str] | None = None,
                  timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """`workbench ARGS...` in a fresh interpreter, as a user would run it; never raises on exit codes."""
    return subprocess.run([sys.executable, "-m", "workbench", *args], cwd=cwd, env=dict(env or cli_env()),
                          capture_output=True, text=True, timeout=timeout, encoding="utf-8", errors="replace")


def run_json(*args: str, **kwargs: Any) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    """`workbench run ... --json`; returns the process and the parsed document."""
    proc = run_workbench(*args, "--json", **kwargs)
    try:
        doc = json.loads(proc.stdout)
    except json.JSONDecodeError:
        pytest.fail(f"--json printed no JSON document (exit {proc.returncode})\nstdout:\n{proc.stdout}\n"
                    f"stderr:\n{proc.stderr}")
    return proc, doc


def verdicts(doc: Mapping[str, Any]) -> dict[str, str]:
    """{"row name [evaluator]": verdict} from a --json document."""
    return {f"{r['row_name']} [{r['evaluator']}]": r["verdict"] for r in doc["results"]}


def result_for(doc: Mapping[str, Any], row_name: str, evaluator_ref: str = EXACT) -> dict[str, Any]:
    matches = [r for r in doc["results"] if r["row_name"] == row_name and r["evaluator"] == evaluator_ref]
    assert len(matches) == 1, f"expected one result for {row_name!r} [{evaluator_ref}], got {doc['results']}"
    return matches[0]
