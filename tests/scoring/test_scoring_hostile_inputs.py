"""Hostile criteria, configs, outputs and traces: a scorer answers or raises CriterionError, nothing else."""

from __future__ import annotations

import asyncio
import inspect
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workbench.config import Config
from workbench.model import EvaluatorDef
from workbench.scoring import CriterionError, ScoreInput, scorer_for, supported_types

pytestmark = pytest.mark.hardening

KEYS = st.sampled_from([
    "path", "equals", "contains", "not_contains", "matches", "in", "exists", "gte", "lte", "tool_called",
    "params", "tool_not_called", "tool_call_order", "duration_ms", "tokens", "anyOf", "name", "ignore_case",
    "checks", "searchText", "expectedOutput", "expectedClass", "toolCallsOrder", "toolCallsCount", "toolCalls",
    "toolOutputs", "args", "output", "result", "classes", "positiveClass", "targetOutputKey", "strict", "subset",
    "prompt", "caseSensitive", "negated", "metricType", "averaging", "passThreshold",
])
LEAF = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False),
                 st.text(max_size=8))
JSON = st.recursive(
    LEAF, lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(KEYS, inner, max_size=4)),
    max_leaves=25)
EVENT = st.one_of(
    st.dictionaries(KEYS, JSON, max_size=3),
    st.fixed_dictionaries({"type": st.sampled_from(["tool_call", "usage"]),
                           "name": st.one_of(st.text(max_size=3), LEAF),
                           "args": JSON, "output": JSON, "tokens": LEAF}),
)


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(supported_types()), st.dictionaries(KEYS, JSON, max_size=4),
       st.dictionaries(KEYS, JSON, max_size=5), JSON, st.lists(EVENT, max_size=5))
def test_scorers_never_raise_anything_but_criterion_errors(type_id: str, config: dict[str, Any],
                                                          criterion: dict[str, Any], output: Any,
                                                          trace: list[dict[str, Any]]):
    evaluator = EvaluatorDef("default", "ev", Path("ev.json"), None, None, type_id, config, {})
    scorer = scorer_for(type_id)
    assert scorer is not None
    if scorer.check_config(evaluator):
        return
    data = ScoreInput(evaluator, criterion, output if isinstance(output, dict) else {"result": output}, trace,
                      5.0, Config(root=Path(".")))
    try:
        result = scorer.score(data)
        if inspect.isawaitable(result):
            result = asyncio.run(result)
    except CriterionError:
        return
    assert 0.0 <= result.score <= 1.0 and isinstance(result.detail, str)
