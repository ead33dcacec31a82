"""uipath-contains: searchText in the selected output; caseSensitive and negated as the SDK defines."""

from __future__ import annotations

import asyncio
import inspect
from pathlib import Path
from typing import Any

from workbench.engine import wrap_output
from workbench.model import EvaluatorDef, Verdict
from workbench.scoring import CriterionError, Score, ScoreInput, scorer_for

TYPE = "uipath-contains"
OUTPUT = {"reply": "Your Ticket TKT-123 was created", "count": 12345}


def evaluator(config: dict[str, Any]) -> EvaluatorDef:
    return EvaluatorDef("default", "ev", Path("ev.json"), None, None, TYPE, config, {})


def score(criterion: dict[str, Any], output: Any = OUTPUT, **config: Any) -> Score:
    ev = evaluator(config)
    scorer = scorer_for(TYPE)
    assert scorer is not None and scorer.check_config(ev) is None
    try:
        result = scorer.score(ScoreInput(ev, criterion, wrap_output(output)))
        return asyncio.run(result) if inspect.isawaitable(result) else result
    except CriterionError as exc:
        return Score.error(str(exc))


def test_case_insensitive_by_default():
    result = score({"searchText": "ticket tkt-123"}, targetOutputKey="reply")
    assert (result.verdict, result.score) == (Verdict.PASS, 1.0)


def test_case_sensitive_fails_on_other_case():
    result = score({"searchText": "ticket"}, targetOutputKey="reply", caseSensitive=True)
    assert (result.verdict, result.score) == (Verdict.FAIL, 0.0)
    assert "does not contain \"ticket\"" in result.detail


def test_negated_passes_when_text_is_absent_and_fails_when_present():
    assert score({"searchText": "error"}, targetOutputKey="reply", negated=True).verdict is Verdict.PASS
    present = score({"searchText": "TKT"}, targetOutputKey="reply", negated=True)
    assert present.verdict is Verdict.FAIL and "negated" in present.detail


def test_whole_output_is_searched_as_json_text():
    assert score({"searchText": '"count":12345'}).verdict is Verdict.PASS


def test_numbers_are_searched_as_text():
    assert score({"searchText": "234"}, targetOutputKey="count").verdict is Verdict.PASS


def test_bare_string_output_is_under_result():
    assert score({"searchText": "hello"}, "Hello world", targetOutputKey="result").verdict is Verdict.PASS


def test_missing_path_fails_naming_it():
    result = score({"searchText": "x"}, targetOutputKey="summary")
    assert result.verdict is Verdict.FAIL and "summary: missing" in result.detail


def test_missing_or_empty_search_text_is_an_error():
    assert "searchText" in score({}).detail
    assert score({}).verdict is Verdict.ERROR
    assert score({"searchText": ""}).verdict is Verdict.ERROR
    assert score({"searchText": 5}).verdict is Verdict.ERROR


def test_bad_config_is_reported_up_front():
    scorer = scorer_for(TYPE)
    assert scorer is not None
    assert "caseSensitive" in (scorer.check_config(evaluator({"caseSensitive": "yes"})) or "")
    assert "one dotted path" in (scorer.check_config(evaluator({"targetOutputKey": ["a", "b"]})) or "")
    assert "passThreshold" in (scorer.check_config(evaluator({"passThreshold": 2})) or "")
