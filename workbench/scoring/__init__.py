"""Evaluator types by `evaluatorTypeId`. An unknown type is an ERROR, never silently exact match."""

from __future__ import annotations

from ..model import EvaluatorDef
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


def _dialect_scorers(name: str = "") -> dict[str, Scorer]:
    """The evaluator types the formats bring (each dialect registers its own): only format `name`'s when
    given, else every format's."""
    from ..dialects import all_dialects

    return {scorer.type_id: scorer for dialect in all_dialects() if not name or dialect.name == name
            for scorer in dialect.scorers()}


def supported_types() -> list[str]:
    """Every evaluator type: the core's and every format's."""
    return accepted_types()


def accepted_types(dialect: str = "") -> list[str]:
    """The evaluator types an evaluator of format `dialect` may name: the core's and that format's own (every
    format's when the format is not known)."""
    return sorted({*SCORERS, *_dialect_scorers(dialect)})


def scorer_for(type_id: str, dialect: str = "") -> Scorer | None:
    """The scorer of an evaluator type. For an evaluator of format `dialect`, that format's own scorer of
    the id comes first, even where the core has one of the same id (a format whose files use the same type
    ids with other rules), then the core's — never another format's (its types are its own: `accepted_types`).
    Of a format not known: the core's, then any format's."""
    if dialect:
        own = _dialect_scorers(dialect).get(type_id)
        return own if own is not None else SCORERS.get(type_id)
    found = SCORERS.get(type_id)
    return found if found is not None else _dialect_scorers().get(type_id)


def scorer_of(evaluator: EvaluatorDef) -> Scorer | None:
    """The scorer of one evaluator: `scorer_for` its type id, in the format that loaded it."""
    return scorer_for(evaluator.type_id, evaluator.dialect)


def unsupported_message(type_id: str, dialect: str = "") -> str:
    """Why an evaluator of format `dialect` can't score: its type, the format's own words for a type it knows
    but can't score (`Dialect.unsupported_type`), and the types it does accept — not other formats' own."""
    from ..dialects import all_dialects

    words = next((said for d in all_dialects() if dialect and d.name == dialect
                  if (said := d.unsupported_type(type_id))), None)
    lead = f"unsupported evaluator type {type_id!r}" + (f": {words}" if words else "")
    return f"{lead}; supported types: {', '.join(accepted_types(dialect))}"


__all__ = ["CriterionError", "Score", "ScoreInput", "Scorer", "accepted_types", "scorer_for", "scorer_of",
           "supported_types", "unsupported_message"]
