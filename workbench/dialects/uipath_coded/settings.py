"""The coded-agent format's section of workbench.toml, `[uipath-coded]`, and the `[runner]` such a project gets
without one (`RUNNER_DEFAULTS`, asked by `config.load_config`).

A coded agent project already says how its rows run: `uipath.json` names the entry point, and the SDK runs it in
the project's own Python. So `workbench run` works there with no workbench.toml: each row goes to a warm worker
(`child_main.py`, run by the project's interpreter) that executes the entry point as `uipath eval` does. The
`[runner]` table still rules what it says: `command` names the interpreter (e.g. [".venv/bin/python"]), and a
`kind` or `callable` of its own replaces all of this.

The SDK reports only scores; workbench's verdict is PASS when a score reaches `pass_threshold` (or the
evaluator's own entry in `thresholds`). Boolean evaluators (exact match, contains, strict order) score 0 or 1,
so they pass only at 1 whatever the threshold.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import Field

from ...config import ConfigError
from ...settings.base import Rate, Section, Text
from ...settings.sections import RunnerConfig
from .layout import EVALUATIONS_DIR, PROJECT_FILE, SECTION
from .project_file import ProjectFileError, choose_entry, read_project_file

if TYPE_CHECKING:
    from ...config import Config

CHILD_MAIN = Path(__file__).resolve().with_name("child_main.py")
WORKBENCH_PYTHON = "{python}"
VENV_PYTHONS = (Path(".venv") / "bin" / "python", Path(".venv") / "Scripts" / "python.exe")


class CodedConfig(Section):
    """UiPath coded agent evals (uipath.json + evaluations/eval-sets/*.json)."""

    entrypoint: Text | None = Field(default=None, description=(
        "The uipath.json function each row runs (unset: \"main\", else the only one)"))
    pass_threshold: Rate = Field(default=1.0, description=(
        "A result passes when its score is at least this (boolean evaluators score only 0 or 1)"))
    thresholds: dict[Text, Rate] = Field(default_factory=dict, description=(
        "Per evaluator id, the score its results pass at, in place of pass_threshold"))


SECTIONS = {SECTION: CodedConfig}


def is_coded_project(root: Path) -> bool:
    """`uipath.json` beside an `evaluations/` folder: the layout `uipath eval` reads."""
    return os.path.lexists(root / PROJECT_FILE) and (root / EVALUATIONS_DIR).is_dir()


def RUNNER_DEFAULTS(root: Path, config: Config) -> RunnerConfig | None:
    """The `[runner]` of a coded agent project whose settings don't choose a kind or a callable: a worker
    pool running `child_main.py` in the project's interpreter on the entry point uipath.json names. None for
    any other project. ConfigError (naming uipath.json) when uipath.json can't say which function runs."""
    runner = config.runner
    if runner.kind or runner.callable or not is_coded_project(root):
        return None
    try:
        entry = choose_entry(read_project_file(root), config.section(CodedConfig).entrypoint)
    except ProjectFileError as exc:
        raise ConfigError(str(exc)) from None
    command = [*interpreter(root, runner.command), str(CHILD_MAIN), str(entry.path(root)), entry.function]
    return runner.model_copy(update={"kind": "worker", "command": command})


def interpreter(root: Path, command: list[str] | None) -> list[str]:
    """The project's Python: `[runner] command` (a path in it made absolute against the root), else the
    project's `.venv` (its python is a link on purpose: not resolved), else workbench's own."""
    if command:
        first = command[0]
        if WORKBENCH_PYTHON not in first and not os.path.isabs(first) and ("/" in first or os.sep in first):
            first = str(root / first)
        return [first, *command[1:]]
    for venv_python in VENV_PYTHONS:
        if (root / venv_python).is_file():
            return [str(root / venv_python)]
    return [WORKBENCH_PYTHON]


__all__ = ["CHILD_MAIN", "RUNNER_DEFAULTS", "SECTIONS", "CodedConfig", "interpreter", "is_coded_project"]
