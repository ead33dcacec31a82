"""The criterion each evaluator scores a row with, by `uipath eval`'s rules (`Dialect.criterion_for`): refs the
row has no key for are skipped, null and {} mean the evaluator's defaultEvaluationCriteria, a row-level
expectedOutput reaches only output evaluators (the criterion's own wins), anything else is an ERROR."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import pytest

from workbench.dialects import dialect_for
from workbench.model import EvaluatorDef, Row
from workbench.scoring import scorer_of
from workbench.scoring.base import Scorer

CODED = dialect_for("uipath-coded")


class OutputScorer(Scorer):
    type_id = "test-output"
    uses_expected_output: ClassVar[bool] = True


class TraceScorer(Scorer):
    type_id = "test-trace"


def evaluator(default: Any = None, type_id: str = "uipath-exact-match") -> EvaluatorDef:
    config: dict[str, Any] = {} if default is None else {"defaultEvaluationCriteria": default}
    return EvaluatorDef(scope="evaluations", ref="E", path=Path("e.json"), id="E", name="E", type_id=type_id,
                        config=config, raw={}, dialect="uipath-coded")


def row(criteria: dict[str, Any], **entry: Any) -> Row:
    return Row(id="r", name="r", inputs={}, criteria=criteria, index=0,
               raw={"id": "r", "inputs": {}, "evaluationCriterias": criteria, **entry})


def test_a_ref_the_row_has_no_key_for_is_skipped() -> None:
    assert CODED.criterion_for(row({"Other": {}}), "E", evaluator({"expectedOutput": 1}), OutputScorer()) is None


@pytest.mark.parametrize("written", [None, {}])
def test_null_and_empty_mean_the_default(written: Any) -> None:
    default = {"expectedOutput": {"answer": "x"}}
    assert CODED.criterion_for(row({"E": written}), "E", evaluator(default), TraceScorer()) == default


@pytest.mark.parametrize("written", [None, {}])
def test_null_without_a_default_is_an_error_that_says_how_to_fix_it(written: Any) -> None:
    why = CODED.criterion_for(row({"E": written}), "E", evaluator(), TraceScorer())
    shown = "null" if written is None else "{}"
    assert why == (f"evaluationCriterias['E'] is {shown}, which means the defaultEvaluationCriteria of evaluator "
                   "'E', and it has none: write this row's criterion here, or give the evaluator one in its "
                   "evaluatorConfig")


def test_a_criterion_that_is_not_an_object_is_an_error() -> None:
    why = CODED.criterion_for(row({"E": "yes"}), "E", evaluator(), OutputScorer())
    assert why == ("evaluationCriterias['E'] must be an object or null (null: the evaluator's "
                   "defaultEvaluationCriteria), e.g. {\"expectedOutput\": ...}")


def test_the_rows_expected_output_fills_a_null_criterion_of_an_output_evaluator() -> None:
    found = CODED.criterion_for(row({"E": None}, expectedOutput={"answer": "row"}), "E",
                                evaluator({"expectedOutput": {"answer": "default"}}), OutputScorer())
    assert found == {"expectedOutput": {"answer": "row"}}


def test_the_rows_expected_output_is_added_but_the_criterions_own_wins() -> None:
    scorer = OutputScorer()
    added = CODED.criterion_for(row({"E": {"other": 1}}, expectedOutput="row"), "E", evaluator(), scorer)
    assert added == {"other": 1, "expectedOutput": "row"}
    own = CODED.criterion_for(row({"E": {"expectedOutput": "own"}}, expectedOutput="row"), "E", evaluator(), scorer)
    assert own == {"expectedOutput": "own"}


def test_the_rows_expected_output_does_not_reach_other_evaluators() -> None:
    default = {"toolCallsOrder": ["a"]}
    found = CODED.criterion_for(row({"E": None}, expectedOutput={"answer": "row"}), "E", evaluator(default),
                                TraceScorer())
    assert found == default


def test_the_written_criterion_is_not_changed_in_place() -> None:
    criteria = {"E": {"other": 1}}
    CODED.criterion_for(row(criteria, expectedOutput="row"), "E", evaluator(), OutputScorer())
    assert criteria == {"E": {"other": 1}}


def test_the_formats_own_scorers_say_which_compare_the_output() -> None:
    """exact match and json similarity are output evaluators in the SDK (OutputEvaluationCriteria); contains
    and the tool-call ones are not, so a row's expectedOutput never reaches them."""
    uses = {type_id: getattr(scorer_of(evaluator(type_id=type_id)), "uses_expected_output", None)
            for type_id in ("uipath-exact-match", "uipath-json-similarity", "uipath-contains",
                            "uipath-tool-call-order")}
    assert uses == {"uipath-exact-match": True, "uipath-json-similarity": True, "uipath-contains": False,
                    "uipath-tool-call-order": False}
