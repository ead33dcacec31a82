"""Fixtures and hooks only. The test helpers live in the `tests/helpers/` package (this folder is on
sys.path, so tests import them as `from helpers.project import make_project, row`):

* `helpers.project` — fixture projects (`make_project`, `row`, `evaluator`, `COMMAND_CONFIG`, ...)
* `helpers.cli` — run the real CLI in a fresh interpreter (`run_workbench`, `run_json`, `cli_env`, ...)
* `helpers.checks` — `tree_digest` (nothing was written), `process_alive`
* `helpers.tui`, `helpers.watch`, `helpers.writeback`, `helpers.hardening` — per-area harnesses

The fixtures below hand out the same functions for tests that prefer fixtures to imports.
"""

from __future__ import annotations

import pytest
from helpers.cli import run_workbench
from helpers.project import make_project


@pytest.fixture(name="make_project")
def _make_project_fixture():
    return make_project


@pytest.fixture(name="run_workbench")
def _run_workbench_fixture():
    return run_workbench
