"""Issue 26's proof: on the conformance project, workbench's score of EVERY (row, evaluator) equals the one
`uipath eval` (UiPath's SDK, the pinned version) gives, to 1e-9, and neither side has a pair the other lacks.

Both run the rows in the SDK venv's Python: `uipath eval` as a user runs it, and `workbench run --json` with
`[runner] command = [<that python>]`, so the agent's `@traced` tool spans are recorded by the real SDK on both
sides. Each side gets its own copy of the project (nothing one writes can change the other's run).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from coded_sdk import UiPathSdk, run_in_group, run_sdk_eval, sdk_scores
from coded_sdk_project import (
    EVALUATOR_IDS,
    EXPECTED_SCORES,
    ROW_ID_OF_NAME,
    SET_FILE,
    build_conformance_project,
)
from helpers.cli import cli_env

TOLERANCE = 1e-9
WORKBENCH_TIMEOUT = 180.0

Scores = dict[tuple[str, str], float]


def sdk_scores_by_row_id(doc: dict[str, Any]) -> Scores:
    return {(ROW_ID_OF_NAME[name], evaluator): score for (name, evaluator), score in sdk_scores(doc).items()}


def workbench_run(root: Path) -> tuple[int, dict[str, Any]]:
    """`workbench run --json` on `root` in a fresh interpreter (its own process group, killed on timeout)."""
    proc = run_in_group([sys.executable, "-m", "workbench", "run", "--json", str(root)], cwd=root,
                        env=cli_env(UIPATH_TELEMETRY_ENABLED="false"), timeout=WORKBENCH_TIMEOUT)
    try:
        doc: dict[str, Any] = json.loads(proc.stdout)
    except json.JSONDecodeError:
        pytest.fail(f"workbench run --json printed no JSON (exit {proc.returncode})\nstdout:\n{proc.stdout}\n"
                    f"stderr:\n{proc.stderr}")
    return proc.returncode, doc


def mismatches(ours: Scores, theirs: Scores) -> list[str]:
    """Every pair whose score differs, or that one side has and the other lacks, in words."""
    lines = [f"{key}: only the SDK has it ({theirs[key]})" for key in theirs.keys() - ours.keys()]
    lines += [f"{key}: only workbench has it ({ours[key]})" for key in ours.keys() - theirs.keys()]
    lines += [f"{key}: workbench {ours[key]!r}, the SDK {theirs[key]!r}" for key in ours.keys() & theirs.keys()
              if abs(ours[key] - theirs[key]) > TOLERANCE]
    return sorted(lines)


@pytest.fixture(scope="module")
def sdk_run(uipath_sdk: UiPathSdk, tmp_path_factory: pytest.TempPathFactory) -> Scores:
    """The SDK's scores of the conformance project (one `uipath eval` for the module)."""
    root = build_conformance_project(tmp_path_factory.mktemp("sdk") / "conformance")
    return sdk_scores_by_row_id(run_sdk_eval(uipath_sdk, root, SET_FILE))


def test_the_fixture_passes_and_fails_every_evaluator() -> None:
    for evaluator in EVALUATOR_IDS:
        scores = [score for (_, ident), score in EXPECTED_SCORES.items() if ident == evaluator]
        assert 1.0 in scores, f"no row passes {evaluator}"
        assert any(score < 1.0 for score in scores), f"no row fails {evaluator}"
    graded = {ident for (_, ident), score in EXPECTED_SCORES.items() if 0.0 < score < 1.0}
    assert {"JsonSimilarity", "ToolOrder", "ToolOrderReversed"} <= graded


def test_the_sdk_still_gives_the_recorded_scores(sdk_run: Scores) -> None:
    assert mismatches(sdk_run, EXPECTED_SCORES) == []


def test_workbench_scores_every_result_as_the_sdk(uipath_sdk: UiPathSdk, sdk_run: Scores, tmp_path: Path) -> None:
    root = build_conformance_project(tmp_path / "conformance", interpreter=str(uipath_sdk.python))
    code, doc = workbench_run(root)
    results = [r for r in doc["results"] if r["set"].endswith("conformance.json")]
    errors = [f"{r['row_id']} [{r['evaluator']}]: {r['detail']}" for r in results if r["verdict"] == "ERROR"]
    assert errors == [], "workbench could not score these (the SDK did):\n" + "\n".join(errors)
    ours: Scores = {}
    for result in results:
        key = (result["row_id"], result["evaluator"])
        assert key not in ours, f"workbench reported {key} twice"
        ours[key] = float(result["score"])
    assert mismatches(ours, sdk_run) == []
    assert code == 1, f"some results fail, so run exits 1, not {code}"
