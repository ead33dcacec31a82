"""Issue 26's proof: on the conformance project, workbench's score of EVERY (row, evaluator) equals the one
`uipath eval` (UiPath's SDK, the pinned version) gives, to 1e-9, and neither side has a pair the other lacks.
The same on the edges project (negated, strict order, tool-call count/args/output, evaluators that raise), where
also a pair is an ERROR in workbench exactly when the SDK's evaluator raised (it reports those as 0).

Both run the rows in the SDK venv's Python: `uipath eval` as a user runs it, and `workbench run --json` with
`[runner] command = [<that python>]`, so the agent's `@traced` tool spans are recorded by the real SDK on both
sides. Each side gets its own copy of the project (nothing one writes can change the other's run).
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from coded_sdk import UiPathSdk, run_in_group, run_sdk_eval, sdk_errors, sdk_scores
from coded_sdk_project import (
    CONFIGS_SET_FILE,
    EDGE_EVALUATOR_IDS,
    EDGE_ROW_ID_OF_NAME,
    EDGE_ROWS,
    EDGE_ROWS_THE_AGENT_FAILS,
    EDGES_SET_FILE,
    EVALUATOR_IDS,
    EXPECTED_SCORES,
    ROW_ID_OF_NAME,
    SET_FILE,
    SHAPES_NOT_JSON,
    SHAPES_SET_FILE,
    build_conformance_project,
    build_edges_project,
    build_shapes_project,
)
from helpers.cli import cli_env

# one worker for the module, so its one SDK run (a module fixture) is made once under `--dist loadgroup`
pytestmark = [pytest.mark.xdist_group("uipath-sdk-conformance"),
              pytest.mark.process("workbench and the SDK each in a process group of its own, killed on timeout")]
TOLERANCE = 1e-9
WORKBENCH_TIMEOUT = 180.0

Key = tuple[str, str]  # (row id, evaluator id)


@dataclass
class Side:
    """One side's results: every pair's score, and the pairs that could not be scored."""

    scores: dict[Key, float] = field(default_factory=dict)
    errors: set[Key] = field(default_factory=set)


def sdk_side(doc: dict[str, Any], row_ids: dict[str, str]) -> Side:
    def key(pair: tuple[str, str]) -> Key:
        return row_ids[pair[0]], pair[1]

    return Side({key(pair): score for pair, score in sdk_scores(doc).items()}, {key(pair) for pair in sdk_errors(doc)})


def workbench_side(doc: dict[str, Any], set_file: str) -> Side:
    side = Side()
    for result in doc["results"]:
        if not result["set"].endswith(Path(set_file).name):
            continue
        key = (result["row_id"], result["evaluator"])
        assert key not in side.scores, f"workbench reported {key} twice"
        side.scores[key] = float(result["score"])
        if result["verdict"] == "ERROR":
            side.errors.add(key)
    return side


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


def mismatches(ours: dict[Key, float], theirs: dict[Key, float]) -> list[str]:
    """Every pair whose score differs, or that one side has and the other lacks, in words."""
    lines = [f"{key}: only the SDK has it ({theirs[key]})" for key in theirs.keys() - ours.keys()]
    lines += [f"{key}: only workbench has it ({ours[key]})" for key in ours.keys() - theirs.keys()]
    lines += [f"{key}: workbench {ours[key]!r}, the SDK {theirs[key]!r}" for key in ours.keys() & theirs.keys()
              if abs(ours[key] - theirs[key]) > TOLERANCE]
    return sorted(lines)


@pytest.fixture(scope="module")
def sdk_run(uipath_sdk: UiPathSdk, tmp_path_factory: pytest.TempPathFactory) -> Side:
    """The SDK's results on the conformance project (one `uipath eval` for the module)."""
    root = build_conformance_project(tmp_path_factory.mktemp("sdk") / "conformance")
    return sdk_side(run_sdk_eval(uipath_sdk, root, SET_FILE), ROW_ID_OF_NAME)


def test_the_fixture_passes_and_fails_every_evaluator() -> None:
    for evaluator in EVALUATOR_IDS:
        scores = [score for (_, ident), score in EXPECTED_SCORES.items() if ident == evaluator]
        assert 1.0 in scores, f"no row passes {evaluator}"
        assert any(score < 1.0 for score in scores), f"no row fails {evaluator}"
    graded = {ident for (_, ident), score in EXPECTED_SCORES.items() if 0.0 < score < 1.0}
    assert {"JsonSimilarity", "ToolOrder", "ToolOrderReversed"} <= graded


def test_the_sdk_still_gives_the_recorded_scores(sdk_run: Side) -> None:
    assert mismatches(sdk_run.scores, EXPECTED_SCORES) == []
    assert sdk_run.errors == set()


def test_workbench_scores_every_result_as_the_sdk(uipath_sdk: UiPathSdk, sdk_run: Side, tmp_path: Path) -> None:
    root = build_conformance_project(tmp_path / "conformance", interpreter=str(uipath_sdk.python))
    code, doc = workbench_run(root)
    ours = workbench_side(doc, SET_FILE)
    errors = [f"{r['row_id']} [{r['evaluator']}]: {r['detail']}" for r in doc["results"] if r["verdict"] == "ERROR"]
    assert errors == [], "workbench could not score these (the SDK did):\n" + "\n".join(errors)
    assert mismatches(ours.scores, sdk_run.scores) == []
    assert code == 1, f"some results fail, so run exits 1, not {code}"


def test_workbench_scores_the_edges_as_the_sdk(uipath_sdk: UiPathSdk, tmp_path: Path) -> None:
    theirs = sdk_side(run_sdk_eval(uipath_sdk, build_edges_project(tmp_path / "sdk"), EDGES_SET_FILE),
                      EDGE_ROW_ID_OF_NAME)
    _, doc = workbench_run(build_edges_project(tmp_path / "wb", interpreter=str(uipath_sdk.python)))
    ours = workbench_side(doc, EDGES_SET_FILE)
    scored = {key: score for key, score in theirs.scores.items() if key[0] not in EDGE_ROWS_THE_AGENT_FAILS}
    assert mismatches({k: v for k, v in ours.scores.items() if k[0] not in EDGE_ROWS_THE_AGENT_FAILS}, scored) == []
    assert {k for k in ours.errors if k[0] not in EDGE_ROWS_THE_AGENT_FAILS} == theirs.errors
    assert theirs.errors, "the edges project has evaluators that raise"
    for row in EDGE_ROWS:
        if row["id"] in EDGE_ROWS_THE_AGENT_FAILS:
            # the SDK gives every evaluator of the set a 0 (even those the row has no criterion for); workbench an
            # ERROR to each evaluator the row names, with the agent's error as the reason
            assert {k: v for k, v in theirs.scores.items() if k[0] == row["id"]} == {
                (row["id"], ident): 0.0 for ident in EDGE_EVALUATOR_IDS}
            assert {k for k in ours.scores if k[0] == row["id"]} == {(row["id"], i) for i in row["evaluationCriterias"]}
            assert {k for k in ours.errors if k[0] == row["id"]} == {(row["id"], i) for i in row["evaluationCriterias"]}
    # evaluatorConfigs, when a set has them, say which evaluators score its rows (not evaluatorRefs)
    sdk_configs = sdk_side(run_sdk_eval(uipath_sdk, tmp_path / "sdk", CONFIGS_SET_FILE), EDGE_ROW_ID_OF_NAME)
    assert {ident for _, ident in sdk_configs.scores} == {"NegatedExact", "Count"}
    assert mismatches(workbench_side(doc, CONFIGS_SET_FILE).scores, sdk_configs.scores) == []


def test_workbench_sees_the_output_the_sdk_sees_whatever_main_returns(uipath_sdk: UiPathSdk, tmp_path: Path) -> None:
    doc = run_sdk_eval(uipath_sdk, build_shapes_project(tmp_path / "sdk"), SHAPES_SET_FILE)
    theirs = sdk_side(doc, {name: name for name, _ in sdk_scores(doc)})
    _, ours_doc = workbench_run(build_shapes_project(tmp_path / "wb", interpreter=str(uipath_sdk.python)))
    ours = workbench_side(ours_doc, SHAPES_SET_FILE)
    json_only = {k: v for k, v in ours.scores.items() if k[0] not in SHAPES_NOT_JSON}
    assert mismatches(json_only, {k: v for k, v in theirs.scores.items() if k[0] not in SHAPES_NOT_JSON}) == []
    # `result` is missing from an object's output (the runtime puts only a non-object there): both say so
    assert {k for k in ours.errors if k[0] not in SHAPES_NOT_JSON} == {k for k in theirs.errors
                                                                        if k[0] not in SHAPES_NOT_JSON}
    assert ("model", "ExactResult") in theirs.errors and ("str", "ExactResult") not in theirs.errors
    # a value that is not JSON: the SDK scores its Python text (here Contains finds 'Paris' in "Out(answer='Paris'
    # ...)"); workbench refuses to guess and makes each of the row's results an ERROR
    not_json = {k for k in ours.scores if k[0] in SHAPES_NOT_JSON}
    assert not_json and not_json <= ours.errors
    assert any(score == 1.0 for k, score in theirs.scores.items() if k[0] in SHAPES_NOT_JSON)
