"""Evaluator types by `evaluatorTypeId`. An unknown type is an ERROR, never silently exact match."""

from __future__ import annotations

from .base import CriterionError, Score, ScoreInput, Scorer
from .exact_match import ExactMatch

SCORERS: dict[str, Scorer] = {scorer.type_id: scorer for scorer in (ExactMatch(),)}


def supported_types() -> list[str]:
    return sorted(SCORERS)


def scorer_for(type_id: str) -> Scorer | None:
    return SCORERS.get(type_id)


def unsupported_message(type_id: str) -> str:
    return f"unsupported evaluator type {type_id!r}; supported types: {', '.join(supported_types())}"


__all__ = ["CriterionError", "Score", "ScoreInput", "Scorer", "scorer_for", "supported_types",
           "unsupported_message"]
