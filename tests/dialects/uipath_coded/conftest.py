"""Fixtures of the `uipath-coded` tests.

* `uipath_sdk` (session): a `coded_sdk.UiPathSdk` — the venv with UiPath's real SDK at the pinned version
  (`.python`, `.cli` = its `uipath` program, `.env()` = the environment to run it in, telemetry off). Found by
  `WORKBENCH_UIPATH_SDK=/path/to/python`, else at the default location of `scripts/uipath_sdk_venv.py` (which
  makes it: tests never install). Absent: the test is skipped with a reason naming that script — unless
  `WORKBENCH_TESTS_NEED_UIPATH=1` (CI), then it fails.
* `conformance_project` (function): the conformance project (`coded_sdk_project.py`: uipath.json, main.py,
  seven evaluators, the set `evaluations/eval-sets/conformance.json`) written in `tmp_path / "conformance"`,
  with no workbench.toml. `coded_sdk_project.build_conformance_project(root, interpreter=...)` makes one whose
  `[runner] command` names an interpreter; `EXPECTED_SCORES` there is what the SDK gave for it (the same module
  builds the edges, shapes and generated projects).

Run the SDK on a project with `coded_sdk.run_sdk_eval(sdk, root, SET_FILE)` and read it with `sdk_scores`.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from coded_sdk import NEED_ENV, UiPathSdk, find_sdk
from coded_sdk_project import build_conformance_project


@pytest.fixture(scope="session")
def uipath_sdk() -> UiPathSdk:
    found = find_sdk()
    if isinstance(found, str):
        if os.environ.get(NEED_ENV) == "1":
            pytest.fail(f"{NEED_ENV}=1 but {found}")
        pytest.skip(found)
    return found


@pytest.fixture
def conformance_project(tmp_path: Path) -> Path:
    return build_conformance_project(tmp_path / "conformance")
