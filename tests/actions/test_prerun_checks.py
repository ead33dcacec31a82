"""The pre-run checks `open`, `watch` and `run` share: project loads, target runnable, watch paths exist."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.project import COMMAND_CONFIG, make_project, row

from workbench.actions.checks import check_runnable
from workbench.config import ConfigError, load_config
from workbench.project import ProjectError


def test_a_runnable_project_comes_back_loaded(tmp_path: Path) -> None:
    root = make_project(tmp_path, sets={"qa": [row("a", {"output": 1}, {"result": 1})]}, config=COMMAND_CONFIG)
    project = check_runnable(load_config(root), watching=True)
    assert [s.stem for s in project.sets] == ["qa"] and project.sets[0].rows[0].name == "a"


def test_a_folder_without_evals_says_so_before_anything_about_the_runner(tmp_path: Path) -> None:
    with pytest.raises(ProjectError) as caught:
        check_runnable(load_config(tmp_path), watching=False)  # no evals/ and no way to run either
    assert caught.value.exit_code == 2


def test_a_project_without_a_way_to_run_the_target_is_refused(tmp_path: Path) -> None:
    root = make_project(tmp_path, sets={"qa": [row("a", {}, {})]})
    with pytest.raises(ConfigError, match="no way to run the target"):
        check_runnable(load_config(root), watching=False)


def test_watch_paths_are_checked_only_when_watching(tmp_path: Path) -> None:
    root = make_project(tmp_path, sets={"qa": [row("a", {}, {})]},
                        config={"runner": COMMAND_CONFIG, "watch": {"paths": ["missing"]}})
    config = load_config(root)
    assert check_runnable(config, watching=False).sets
    with pytest.raises(ConfigError, match=r"\[watch\] paths lists 'missing', which does not exist"):
        check_runnable(config, watching=True)
