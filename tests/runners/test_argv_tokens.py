"""The words a `[runner] command` may hold that workbench fills in where the command starts: `{python}` is the
interpreter running workbench, `{workbench}/a/b.py` a file of workbench's own package wherever it is installed
(a format's child bootstrap: on a Ray worker workbench lives elsewhere than on the driver)."""

from __future__ import annotations

import sys
from pathlib import Path

import workbench
from workbench.config import Config
from workbench.rescoring.world import argv_files
from workbench.runners.base import expand_argv

PACKAGE = Path(workbench.__file__).resolve().parent


def test_python_and_package_files_are_filled_in_and_nothing_else() -> None:
    argv = ["{python}", "{workbench}/worker_main.py", "{workbench}", "x{workbench}/y", "{python}x"]
    assert expand_argv(argv) == [sys.executable, str(PACKAGE / "worker_main.py"), "{workbench}", "x{workbench}/y",
                                 "{python}x"]


def test_a_package_file_the_command_names_is_fingerprinted_by_its_content(tmp_path: Path) -> None:
    config = Config(root=tmp_path)
    config.runner.command = ["{python}", "{workbench}/worker_main.py", "main.py"]
    assert argv_files(config) == [str(PACKAGE / "worker_main.py")]
