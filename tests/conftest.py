"""Fixtures and hooks only. Tests sit in one folder per feature (tests/tui/, tests/dialects/<name>/, ...);
the helpers live in the `tests/helpers/` package (`pythonpath = ["tests"]` in pyproject.toml puts this
folder on sys.path, so tests anywhere import them as `from helpers.project import make_project, row`):

* `helpers.project` — fixture projects (`make_project`, `row`, `evaluator`, `COMMAND_CONFIG`, ...)
* `helpers.cli` — run the real CLI in a fresh interpreter (`run_workbench`, `run_json`, `cli_env`, ...) or,
  where only its output and exit code matter, in this process (`invoke_workbench`, `invoke_json`)
* `helpers.paths` — where examples/, tests/fixtures/ and workbench/ are
* `helpers.checks` — `tree_digest` (nothing was written), `process_alive`
* `helpers.tui`, `helpers.watch`, `helpers.writeback`, `helpers.hardening` — per-area harnesses

The fixtures below hand out the same functions for tests that prefer fixtures to imports.
"""

from __future__ import annotations

import signal

import pytest
from helpers.cli import run_workbench
from helpers.project import make_project

# A run started in the background (`cmd &` in a script, nohup, some CI and IDE runners) inherits SIGINT
# ignored, and so would every workbench the tests start: the Ctrl-C tests would wait for an exit that
# never comes. The tests stand in for a terminal's Ctrl-C, so they get Python's own handler back
# (xdist workers import this file too, and the children they start then get the default action).
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(name="make_project")
def _make_project_fixture():
    return make_project


@pytest.fixture(name="run_workbench")
def _run_workbench_fixture():
    return run_workbench
