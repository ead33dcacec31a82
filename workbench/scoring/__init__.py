"""Evaluator types by `evaluatorTypeId`. An unknown type is an ERROR, never silently exact match."""

from __future__ import annotations

from .assertions import Assertions
from .base import CriterionError, Score, ScoreInput, Scorer
from .classification import BinaryClassification, MulticlassClassification
from .contains import Contains
from .conversation import ConversationScorer
from .exact_match import ExactMatch
from .json_similarity import JsonSimilarity
from .llm_judge import SemanticSimilarityJudge, StrictJsonSimilarityJudge
from .replay_expect import ReplayExpect
from .scenario_expect import ScenarioExpect
from .tool_calls import ToolCallArgs, ToolCallCount, ToolCallOrder, ToolCallOutput

SCORERS: dict[str, Scorer] = {
    scorer.type_id: scorer
    for scorer in (
        ExactMatch(),
        Contains(),
        JsonSimilarity(),
        BinaryClassification(),
        MulticlassClassification(),
        ToolCallOrder(),
        ToolCallCount(),
        ToolCallArgs(),
        ToolCallOutput(),
        SemanticSimilarityJudge(),
        StrictJsonSimilarityJudge(),
        Assertions(),
        ConversationScorer(),
        ReplayExpect(),
        ScenarioExpect(),
    )
}


def supported_types() -> list[str]:
    return sorted(SCORERS)


def scorer_for(type_id: str) -> Scorer | None:
    return SCORERS.get(type_id)


def unsupported_message(type_id: str) -> str:
    return f"unsupported evaluator type {type_id!r}; supported types: {', '.join(supported_types())}"


__all__ = ["CriterionError", "Score", "ScoreInput", "Scorer", "scorer_for", "supported_types",
           "unsupported_message"]
