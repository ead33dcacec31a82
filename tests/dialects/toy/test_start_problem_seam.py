"""A format's `ChecksStart` (issue 38 point 5): what stops its rows from starting at all is `check`'s error and
what `run` refuses to start on, said once before any row — as for a target whose program can't start — and
nothing when it answers None. Shown with the quiz format (tests/helpers/quiz_format/) and a subclass saying
its rows can't start while a file `needs-sdk` is in the project."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers.cli import invoke_workbench
from helpers.quiz_format import QuizDialect
from test_toy_dialect import quiz_project

from workbench.actions.checks import check_runnable
from workbench.config import Config, ConfigError, load_config
from workbench.dialects import added_dialect
from workbench.dialects.base import ChecksStart
from workbench.model import Problem, Severity

SAID = "answer.py imports the quiz SDK, which this Python lacks: pip install quiz-sdk"


class StartingQuiz(QuizDialect):
    asked = 0

    def start_problem(self, root: Path, config: Config) -> Problem | None:
        StartingQuiz.asked += 1
        if not (root / "needs-sdk").exists():
            return None
        # said as a warning on purpose: rows that can't start are an error all the same (`start_problems`)
        return Problem("answer.py", SAID, Severity.WARNING)


@pytest.fixture
def quiz() -> Iterator[StartingQuiz]:
    with added_dialect(StartingQuiz()) as dialect:
        yield dialect


def test_it_is_a_capability(quiz: StartingQuiz) -> None:
    assert isinstance(quiz, ChecksStart) and not isinstance(QuizDialect(), ChecksStart)


def test_check_fails_with_it_and_run_refuses_before_any_row(quiz: StartingQuiz, tmp_path: Path) -> None:
    root = quiz_project(tmp_path / "project")
    (root / "needs-sdk").write_text("", encoding="utf-8")
    check = invoke_workbench("check", str(root))
    assert check.returncode == 1
    assert check.stdout.splitlines()[0] == f"problem: answer.py: {SAID}"
    assert json.loads(invoke_workbench("check", str(root), "--json").stdout)["passed"] is False
    run = invoke_workbench("run", str(root))
    assert run.returncode == 2 and run.stdout == "", run.stdout
    assert run.stderr.count(SAID) == 1 and f"answer.py: {SAID}" in run.stderr


def test_none_is_nothing_to_say(quiz: StartingQuiz, tmp_path: Path) -> None:
    root = quiz_project(tmp_path / "project")
    StartingQuiz.asked = 0
    assert invoke_workbench("check", str(root)).stdout.startswith("check passed")
    assert invoke_workbench("run", str(root)).returncode == 1  # its usual verdicts: one row fails
    assert StartingQuiz.asked == 2


def test_watch_the_tui_and_the_agent_refuse_before_any_row(quiz: StartingQuiz, tmp_path: Path) -> None:
    """`check_runnable` is what `watch`, `open` (the TUI) and the agent's writes ask before their first row."""
    root = quiz_project(tmp_path / "project")
    (root / "needs-sdk").write_text("", encoding="utf-8")
    with pytest.raises(ConfigError) as refused:
        check_runnable(load_config(root), watching=True)
    assert str(refused.value) == f"answer.py: {SAID}" and refused.value.file == root / "answer.py"
