"""Workbench's coded scorers against the SDK's own evaluator classes, case by case: many generated (evaluator
config, criterion, output, tool spans) cases (`coded_cases.py`) of the seven deterministic types, each scored by
`uipath` 2.14.44 (`sdk_batch_scorer.py`, one process in the SDK venv for the whole batch) and by
`coded_scorers()`. Every case must agree: the same score to 1e-9, or an ERROR in workbench exactly where the
SDK's evaluator raised or refused the case.

The cases come from a seeded generator rather than Hypothesis: one SDK process scores them all (a process per
example would take minutes), and a failure names a case index that the same seed makes again.
"""

from __future__ import annotations

import asyncio
import collections
import inspect
import json
from collections.abc import Awaitable
from pathlib import Path
from typing import Any

import pytest
from coded_cases import BUILDERS, Case, generated_cases
from coded_sdk import UiPathSdk, run_in_group

from workbench.dialects.uipath_coded.layout import DIALECT, SCOPE
from workbench.dialects.uipath_coded.scorers import coded_scorers
from workbench.model import EvaluatorDef, Verdict
from workbench.scoring.base import CriterionError, Score, ScoreInput, Scorer

PER_TYPE = 250
# one worker for the module, so its one SDK run (a module fixture) is made once under `--dist loadgroup`
pytestmark = pytest.mark.xdist_group("uipath-sdk-differential")
TOLERANCE = 1e-9
BATCH_SCORER = Path(__file__).with_name("sdk_batch_scorer.py")

Answer = tuple[str, Any]  # ("score", float) or ("error", why)


def sdk_answers(sdk: UiPathSdk, cases: list[Case], tmp_path: Path) -> list[Answer]:
    batch = tmp_path / "cases.json"
    batch.write_text(json.dumps(cases), encoding="utf-8")
    proc = run_in_group([str(sdk.python), str(BATCH_SCORER), str(batch)], cwd=tmp_path, env=sdk.env(), timeout=300)
    assert proc.returncode == 0, proc.stderr
    return [("error", a["error"]) if "error" in a else ("score", a["score"]) for a in json.loads(proc.stdout)]


def evaluator_of(doc: dict[str, Any]) -> EvaluatorDef:
    """The evaluator as the loader makes it from its file."""
    return EvaluatorDef(scope=SCOPE, ref=doc["id"], path=Path("evaluations/evaluators/e.json"), id=doc["id"],
                        name=doc["name"], type_id=doc["evaluatorTypeId"], config=doc["evaluatorConfig"], raw=doc,
                        dialect=DIALECT)


def trace_of(spans: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The row's trace as child_main records it: one event per span, its attributes under `span`."""
    return [{"type": "tool_call" if "tool.name" in s["attributes"] else "span", "name": s["name"], "args": {},
             "output": None, "span": {"name": s["name"], "attributes": s["attributes"]}} for s in spans]


async def awaited(pending: Awaitable[Score]) -> Score:
    return await pending


def workbench_answer(scorer: Scorer, case: Case) -> Answer:
    evaluator = evaluator_of(case["evaluator"])
    reason = scorer.check_config(evaluator)
    if reason is not None:
        return "error", reason
    try:
        score = scorer.score(ScoreInput(evaluator, case["criterion"], case["output"], trace_of(case["spans"])))
        if inspect.isawaitable(score):
            score = asyncio.run(awaited(score))
    except CriterionError as exc:
        return "error", str(exc)
    assert not inspect.isawaitable(score)
    return ("error", score.detail) if score.verdict is Verdict.ERROR else ("score", score.score)


def agree(ours: Answer, theirs: Answer) -> bool:
    if ours[0] != theirs[0]:
        return False
    return ours[0] == "error" or abs(ours[1] - theirs[1]) <= TOLERANCE


@pytest.fixture(scope="module")
def cases() -> list[Case]:
    return generated_cases(list(BUILDERS), PER_TYPE)


@pytest.fixture(scope="module")
def sdk_results(uipath_sdk: UiPathSdk, cases: list[Case], tmp_path_factory: pytest.TempPathFactory) -> list[Answer]:
    return sdk_answers(uipath_sdk, cases, tmp_path_factory.mktemp("differential"))


def test_the_cases_reach_every_outcome_of_every_type(cases: list[Case], sdk_results: list[Answer]) -> None:
    outcomes: dict[str, set[str]] = collections.defaultdict(set)
    for case, (kind, value) in zip(cases, sdk_results, strict=True):
        outcome = kind if kind == "error" else ("pass" if value == 1.0 else "zero" if value == 0.0 else "graded")
        outcomes[case["evaluator"]["evaluatorTypeId"]].add(outcome)
    for type_id in BUILDERS:
        assert {"pass", "zero"} <= outcomes[type_id], type_id
    for type_id in ("uipath-exact-match", "uipath-contains", "uipath-json-similarity"):
        assert "error" in outcomes[type_id], type_id
    for type_id in ("uipath-json-similarity", "uipath-tool-call-order", "uipath-tool-call-count",
                    "uipath-tool-call-args", "uipath-tool-call-output"):
        assert "graded" in outcomes[type_id], type_id


def test_every_case_scores_as_the_sdk_scores_it(cases: list[Case], sdk_results: list[Answer]) -> None:
    scorers = {scorer.type_id: scorer for scorer in coded_scorers()}
    wrong = []
    for index, (case, sdk) in enumerate(zip(cases, sdk_results, strict=True)):
        ours = workbench_answer(scorers[case["evaluator"]["evaluatorTypeId"]], case)
        if not agree(ours, sdk):
            wrong.append(f"case {index}: workbench {ours!r:.200}, the SDK {sdk!r:.200}\n  {json.dumps(case):.600}")
    assert wrong == [], f"{len(wrong)} of {len(cases)} cases disagree:\n" + "\n".join(wrong[:15])
