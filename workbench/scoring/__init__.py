"""Evaluator types by `evaluatorTypeId`. An unknown type is an ERROR, never silently exact match."""

from __future__ import annotations

from .assertions import Assertions
from .base import CriterionError, Score, ScoreInput, Scorer
from .classification import BinaryClassification, MulticlassClassification
from .contains import Contains
from .exact_match import ExactMatch
from .json_similarity import JsonSimilarity
from .llm_judge import SemanticSimilarityJudge, StrictJsonSimilarityJudge
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
    )
}


def _dialect_scorers() -> dict[str, Scorer]:
    """The evaluator types the formats bring (each dialect registers its own)."""
    from ..dialects import all_dialects

    return {scorer.type_id: scorer for dialect in all_dialects() for scorer in dialect.scorers()}


def supported_types() -> list[str]:
    return sorted({*SCORERS, *_dialect_scorers()})


def scorer_for(type_id: str) -> Scorer | None:
    """The scorer of an evaluator type: a core one, else one a format registered."""
    found = SCORERS.get(type_id)
    return found if found is not None else _dialect_scorers().get(type_id)


def unsupported_message(type_id: str) -> str:
    return f"unsupported evaluator type {type_id!r}; supported types: {', '.join(supported_types())}"


__all__ = ["CriterionError", "Score", "ScoreInput", "Scorer", "scorer_for", "supported_types",
           "unsupported_message"]
