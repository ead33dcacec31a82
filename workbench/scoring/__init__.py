"""Evaluator types by `evaluatorTypeId`. An unknown type is an ERROR, never silently exact match."""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping

from ..model import EvaluatorDef
from .base import CriterionError, Score, ScoreInput, Scorer

# type id -> "module:Class" of the core's scorers. A scorer's module is imported when its type is first asked
# for, so a run whose evaluators are all exact match never imports the LLM judge and its HTTP client
# (tests/scoring/test_scorer_registry.py checks each class's `type_id` against its key here).
CORE_SCORERS: dict[str, str] = {
    "uipath-exact-match": "workbench.scoring.exact_match:ExactMatch",
    "uipath-contains": "workbench.scoring.contains:Contains",
    "uipath-json-similarity": "workbench.scoring.json_similarity:JsonSimilarity",
    "uipath-binary-classification": "workbench.scoring.classification:BinaryClassification",
    "uipath-multiclass-classification": "workbench.scoring.classification:MulticlassClassification",
    "uipath-tool-call-order": "workbench.scoring.tool_calls:ToolCallOrder",
    "uipath-tool-call-count": "workbench.scoring.tool_calls:ToolCallCount",
    "uipath-tool-call-args": "workbench.scoring.tool_calls:ToolCallArgs",
    "uipath-tool-call-output": "workbench.scoring.tool_calls:ToolCallOutput",
    "uipath-llm-judge-output-semantic-similarity": "workbench.scoring.llm_judge:SemanticSimilarityJudge",
    "uipath-llm-judge-output-strict-json-similarity": "workbench.scoring.llm_judge:StrictJsonSimilarityJudge",
    "workbench-assertions": "workbench.scoring.assertions:Assertions",
}


class _LazyScorers(Mapping[str, Scorer]):
    """The core's scorers by type id, each made (its module imported) on first use and kept."""

    def __init__(self, entries: dict[str, str]) -> None:
        self._entries = entries
        self._made: dict[str, Scorer] = {}

    def __getitem__(self, type_id: str) -> Scorer:
        if type_id not in self._made:
            module, _, name = self._entries[type_id].partition(":")
            self._made[type_id] = getattr(importlib.import_module(module), name)()
        return self._made[type_id]

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, type_id: object) -> bool:
        return type_id in self._entries


SCORERS: Mapping[str, Scorer] = _LazyScorers(CORE_SCORERS)


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


def unsupported_message(type_id: str, dialect: str = "", file: str = "") -> str:
    """Why an evaluator of format `dialect` can't score: its type, the format's own words for a type it knows
    but can't score (`Words.unsupported_type`), and the types it does accept — not other formats' own. A type
    close to one it accepts is a typo: then the evaluator's `file` and the type it meant (issue 38)."""
    import difflib

    from ..dialects import all_dialects

    words = next((said for d in all_dialects() if dialect and d.name == dialect
                  if d.words.unsupported_type is not None and (said := d.words.unsupported_type(type_id))), None)
    accepted = accepted_types(dialect)
    close = [] if words else difflib.get_close_matches(type_id, accepted, n=1, cutoff=0.8)
    if close:
        where = f" in {file}" if file else ""
        return f"unsupported evaluator type {type_id!r}{where}: did you mean \"{close[0]}\"?"
    lead = f"unsupported evaluator type {type_id!r}" + (f": {words}" if words else "")
    return f"{lead}; supported types: {', '.join(accepted)}"


__all__ = ["CORE_SCORERS", "SCORERS", "CriterionError", "Score", "ScoreInput", "Scorer", "accepted_types", "scorer_for",
           "scorer_of", "supported_types", "unsupported_message"]
