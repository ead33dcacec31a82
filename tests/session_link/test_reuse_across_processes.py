"""What differs between the person's TUI or `watch` process and an agent's or another terminal's `run`
must not make `run --reuse` re-run rows it can prove unchanged — and what can change a target's answer
still must. (The end-to-end case is in test_agent_joins_watch.py.)"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.session_link import Counted

from workbench.config import load_config
from workbench.rescoring.world import environment
from workbench.runners.base import target_env

KEY = b"k" * 32


def test_every_target_sees_the_project_folder_as_pwd_wherever_workbench_was_started(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = load_config(Counted(tmp_path).root)
    monkeypatch.setenv("PWD", "/somewhere/the/tui/was/started")
    first = environment(config, KEY)
    assert target_env(config)["PWD"] == str(config.root)
    monkeypatch.setenv("PWD", str(tmp_path))
    assert environment(config, KEY) == first


@pytest.mark.parametrize("name", ["KITTY_WINDOW_ID", "WEZTERM_PANE", "GPG_TTY", "SHELL_SESSION_ID", "WT_SESSION"])
def test_which_terminal_tab_a_command_was_typed_in_is_not_part_of_the_world(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    config = load_config(Counted(tmp_path).root)
    monkeypatch.setenv(name, "1")
    first = environment(config, KEY)
    monkeypatch.setenv(name, "2")
    assert environment(config, KEY) == first


@pytest.mark.parametrize("name", ["COLUMNS", "LINES", "CLAUDECODE", "MODE"])
def test_what_a_program_may_answer_differently_by_still_is(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           name: str) -> None:
    config = load_config(Counted(tmp_path).root)
    monkeypatch.setenv(name, "1")
    first = environment(config, KEY)
    monkeypatch.setenv(name, "2")
    assert environment(config, KEY) != first
