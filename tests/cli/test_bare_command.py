"""Issue 22 point 5: the bare `workbench` command takes `open`'s options without a PATH, as the README says:
`workbench --tag smoke`, `workbench --no-watch`, `workbench --cluster local` open the TUI on the project
found from the current folder. The TUI itself is not started here: what it would be opened with is recorded."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers.cli import invoke_workbench
from helpers.paths import EXAMPLES
from helpers.project import COMMAND_CONFIG, make_project, row

from workbench.config import Config


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """What `open` would launch the TUI with, one entry per launch."""
    import workbench.cli.open as open_module

    launches: list[dict[str, Any]] = []

    def launch(config: Config, *, watch: bool = True, welcome: str | None = None) -> None:
        launches.append({"root": config.root, "watch": watch, "tags": config.overrides.tags,
                         "cluster": config.cluster.address, "engine": config.cluster.engine})

    monkeypatch.setattr(open_module, "launch_tui", launch)
    return launches


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path / "p", sets={"s": [row("one", {"output": 1}, 1)]}, config=COMMAND_CONFIG)


def test_bare_tag_opens_the_tui_on_the_project_of_the_current_folder(opened: list[dict[str, Any]],
                                                                   tmp_path: Path) -> None:
    import shutil

    root = tmp_path / "support-bot"
    shutil.copytree(EXAMPLES / "support-bot", root)
    proc = invoke_workbench("--tag", "smoke", cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert opened == [{"root": root, "watch": True, "tags": ("smoke",), "cluster": None, "engine": None}]


def test_bare_no_watch_and_path_after_options(opened: list[dict[str, Any]], project: Path) -> None:
    assert invoke_workbench("--no-watch", cwd=project).returncode == 0
    assert invoke_workbench("--no-watch", str(project), cwd=project.parent).returncode == 0
    assert [(o["root"], o["watch"]) for o in opened] == [(project, False), (project, False)]


def test_bare_cluster_sets_the_cluster(opened: list[dict[str, Any]], project: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    import workbench.actions.checks as checks

    monkeypatch.setattr(checks, "check_cluster", lambda config: None)  # no Ray started for a flag test
    proc = invoke_workbench("--cluster", "local", cwd=project)
    assert proc.returncode == 0, proc.stderr
    assert [(o["engine"], o["cluster"]) for o in opened] == [("ray", "local")]


def test_the_group_keeps_its_own_options_and_commands(opened: list[dict[str, Any]], project: Path) -> None:
    assert "COMMAND" in invoke_workbench("--help").stdout
    assert "version" in invoke_workbench("--version").stdout
    assert invoke_workbench("check", cwd=project).returncode == 0
    bad = invoke_workbench("--no-such-flag", cwd=project)
    assert bad.returncode == 2 and "--no-such-flag" in bad.stderr
    assert opened == []
