"""Each command imports only what its work needs (issue 33): `--help`, `run` on the project `workbench init` makes
(no LLM judge), `check` and `history` load no Textual, Ray, MCP SDK, HTTP client, judge, agent, watcher or report
code they don't use, and `--help` not even the settings (pydantic) or the engine.

A fresh interpreter per command is the point here (what one start imports), so these cross the process boundary:
`workbench.cli.main(argv)` runs in `python -c`, then `sys.modules` is read. What the bare interpreter has loaded
before workbench (a site hook's imports) is not workbench's and is left out.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.cli import cli_env, invoke_workbench

# Never for these commands: the TUI, a cluster's connection, the agent interface and its SDK, HTTP clients (httpx
# and the judge's retries are imported when an HTTP judge is asked) and the LLM judge, the file watcher, the report
# builders nobody asked for, and the formats' heavy parts on a project that has none of their files (a UiPath project
# without Workflow.json, no replays, scenarios, conversations or coded agent).
NEVER = ("textual", "ray", "mcp", "httpx", "httpcore", "tenacity", "stamina", "urllib.request", "http.client",
         "requests", "anthropic", "openai", "watchfiles", "workbench.tui", "workbench.agent",
         "workbench.cluster.connection", "workbench.cluster.ray_runner", "workbench.scoring.llm_judge",
         "workbench.scoring.judge_client", "workbench.scoring.judge_http",
         "workbench.report.html", "workbench.report.markdown", "workbench.report.junit",
         "workbench.dialects.uipath.contract", "workbench.dialects.replays.executor",
         "workbench.dialects.scenarios.loader", "workbench.dialects.scenarios.gate_run",
         "workbench.dialects.conversations.files", "workbench.dialects.conversations.player",
         "workbench.dialects.conversations.scorer", "workbench.dialects.uipath_coded.loader",
         "workbench.dialects.uipath_coded.sdk_check")
# `--help` prints a table: no settings to validate, nothing to run or record.
NEVER_FOR_HELP = (*NEVER, "pydantic", "pydantic_core", "workbench.config", "workbench.settings", "workbench.engine",
                  "workbench.history", "workbench.cluster", "workbench.runners.process", "workbench.runners.command",
                  "workbench.project", "sqlite3", "asyncio")

_SNIPPET = """
import json, os, sys
before = set(sys.modules)
os.chdir(sys.argv[1])
from workbench.cli import main
code = 0
try:
    main(sys.argv[3:], standalone_mode=False)
except SystemExit as exc:
    code = exc.code or 0
with open(sys.argv[2], "w") as out:
    json.dump({"code": code, "before": sorted(before), "after": sorted(sys.modules)}, out)
"""


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project `workbench init` makes, run once (so `history` has an iteration to list)."""
    root = tmp_path_factory.mktemp("init-project")
    assert invoke_workbench("init", str(root)).returncode == 0
    assert invoke_workbench("run", "-q", str(root)).returncode == 0
    return root


def imported_by(root: Path, tmp_path: Path, *argv: str) -> set[str]:
    """The modules `workbench ARGV` imports in a fresh interpreter started in `root`, beyond the bare
    interpreter's; the command must succeed."""
    dump = tmp_path / "modules.json"
    proc = subprocess.run([sys.executable, "-c", _SNIPPET, str(root), str(dump), *argv], env=cli_env(),
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and dump.exists(), proc.stderr
    found = json.loads(dump.read_text())
    assert found["code"] == 0, f"workbench {' '.join(argv)} exited {found['code']}:\n{proc.stdout}\n{proc.stderr}"
    return set(found["after"]) - set(found["before"])


def loaded(modules: set[str], prefixes: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if any(m == p or m.startswith(p + ".") for p in prefixes))


def test_help_imports_no_command_and_no_settings(project: Path, tmp_path: Path):
    modules = imported_by(project, tmp_path, "--help")
    assert "workbench.cli" in modules and "workbench.dialects" in modules  # it ran, and named the formats
    assert not loaded(modules, ("workbench.cli.",)), "--help imports no command's module"
    assert not loaded(modules, NEVER_FOR_HELP)


def test_run_on_the_init_project_imports_only_running_and_scoring(project: Path, tmp_path: Path):
    modules = imported_by(project, tmp_path, "run", "-q")
    assert {"workbench.engine", "workbench.history", "workbench.scoring.exact_match"} <= modules  # it ran and scored
    assert not loaded(modules, NEVER)
    assert "importlib.metadata" not in modules  # pydantic's plugin lookup is skipped (settings/no_plugins.py)


def test_check_imports_no_runner_of_rows(project: Path, tmp_path: Path):
    modules = imported_by(project, tmp_path, "check")
    assert "workbench.actions.project_check" in modules
    assert not loaded(modules, NEVER)


def test_history_imports_no_engine_code_it_does_not_show(project: Path, tmp_path: Path):
    modules = imported_by(project, tmp_path, "history")
    assert "workbench.history" in modules
    assert not loaded(modules, (*NEVER, "workbench.runners.preload", "workbench.runners.command"))
