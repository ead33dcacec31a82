"""A new user's first hour, message by message (H12's pass over issues 22 and 23): what workbench tells
a user to type or paste must work as given, and a message that names a file or a setting names the one
that is really at fault."""

from __future__ import annotations

from pathlib import Path

from helpers.cli import invoke_workbench
from helpers.project import make_project, row


def test_the_config_run_asks_for_runs_when_pasted_as_given(tmp_path: Path) -> None:
    """No workbench.toml: the snippet `run` prints, pasted into the file it names, runs the rows — its
    interpreter needs no `python3` on PATH, and it pins no concurrency below the default."""
    root = make_project(tmp_path / "p", sets={"s": [row("a", {"output": {"n": 1}}, {"n": 1})]},
                        files={"agent.py": "import json, sys\nprint(json.dumps(json.load(sys.stdin)['output']))\n"})
    first = invoke_workbench("run", str(root))
    assert first.returncode == 2
    head, _, snippet = first.stderr.partition(f"Add this to {root / 'workbench.toml'}:\n\n")
    assert snippet and "no way to run the target" in head
    assert "concurrency =" not in snippet
    (root / "workbench.toml").write_text(snippet.strip() + "\n")
    second = invoke_workbench("run", str(root))
    assert second.returncode == 0, second.stdout + second.stderr
    assert "1 passed, 0 failed, 0 errors" in second.stdout
