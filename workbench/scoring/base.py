"""What every evaluator type implements, and what it is given to score one row."""

from __future__ import annotations

from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from ..config import Config
from ..model import EvaluatorDef, Verdict


@dataclass(slots=True)
class ScoreInput:
    """One row's run, seen by one evaluator."""

    evaluator: EvaluatorDef
    criterion: dict[str, Any]
    output: Any
    trace: list[dict[str, Any]] = field(default_factory=list)
    duration_ms: float = 0.0
    config: Config | None = None


@dataclass(slots=True)
class Score:
    verdict: Verdict
    score: float
    detail: str = ""
    expected: Any = None

    @classmethod
    def passed(cls, detail: str = "", expected: Any = None) -> Score:
        return cls(Verdict.PASS, 1.0, detail, expected)

    @classmethod
    def failed(cls, detail: str, expected: Any = None, score: float = 0.0) -> Score:
        return cls(Verdict.FAIL, score, detail, expected)

    @classmethod
    def error(cls, detail: str, expected: Any = None) -> Score:
        return cls(Verdict.ERROR, 0.0, detail, expected)


class CriterionError(ValueError):
    """The row's criterion (or the evaluator's config) can't be used: an ERROR, not a FAIL."""


class Scorer(Protocol):
    type_id: ClassVar[str]

    def check_config(self, evaluator: EvaluatorDef) -> str | None:
        """A reason the evaluator file can't be used, or None."""

    def score(self, data: ScoreInput) -> Score | Awaitable[Score]:
        """The verdict for one row; may be a coroutine for evaluators that call out (judges)."""
