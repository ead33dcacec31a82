"""The registry: every type the issue names is supported; anything else is an ERROR listing them."""

from __future__ import annotations

from pathlib import Path

from workbench.model import EvaluatorDef
from workbench.scoring import scorer_for, supported_types, unsupported_message

EXPECTED_TYPES = {
    "uipath-exact-match", "uipath-contains", "uipath-json-similarity",
    "uipath-binary-classification", "uipath-multiclass-classification",
    "uipath-tool-call-order", "uipath-tool-call-count", "uipath-tool-call-args", "uipath-tool-call-output",
    "uipath-llm-judge-output-semantic-similarity", "uipath-llm-judge-output-strict-json-similarity",
    "workbench-assertions",
    "workbench-replay-expect",  # the `expect` of scripted replays (seed 001)
    "workbench-conversation",  # the `conversation` evaluator of conversation evals (seed 002)
    "workbench-scenario-expect",  # the `expect` of scenarios (seed 000)
}


def test_every_type_is_registered_and_accepts_a_bare_config():
    assert set(supported_types()) == EXPECTED_TYPES
    for type_id in EXPECTED_TYPES:
        scorer = scorer_for(type_id)
        assert scorer is not None and scorer.type_id == type_id
        assert scorer.check_config(EvaluatorDef("default", "ev", Path("ev.json"), None, None, type_id, {}, {})) is None


def test_unknown_types_are_named_with_the_supported_list():
    assert scorer_for("uipath-llm-judge-trajectory-similarity") is None
    message = unsupported_message("uipath-llm-judge-trajectory-similarity")
    assert "unsupported evaluator type 'uipath-llm-judge-trajectory-similarity'" in message
    assert all(type_id in message for type_id in EXPECTED_TYPES)
