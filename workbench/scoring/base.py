"""What every evaluator type implements, and what it is given to score one row."""

from __future__ import annotations

from collections.abc import Awaitable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from ..model import EvaluatorDef, Result, Verdict
from ..output_paths import split_path

if TYPE_CHECKING:
    from ..config import Config


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


class Scorer:
    """One evaluator type. Its capabilities are class attributes, so a new type is one class: nothing
    elsewhere keeps a list of which types compare `expectedOutput` or have a set-level metric."""

    type_id: ClassVar[str]
    uses_expected_output: ClassVar[bool] = False
    """Scored against the criterion's `expectedOutput`: `accept` can write one from an output."""
    structural: ClassVar[bool] = False
    """Compares `expectedOutput` key by key, so its keys must be the output's (checked against the
    workflow's output.schema by `check`)."""
    compares: ClassVar[str] = ""
    """What it compares, in words, when that is not the output at `targetOutputKey` (a type scored from the
    trace says which part of it); empty: the output. The TUI's detail and evaluators tab show it."""
    extra_output_ignored: ClassVar[bool] = False
    """Keys and array items the output has beyond `expectedOutput` cost nothing (only the expected side's leaves
    count), so they are no difference to show as a reason (the agent's `row` lists them as ignored)."""
    default_criterion_allowed: ClassVar[bool] = True
    """A row without its own criterion is scored with `evaluatorConfig.defaultEvaluationCriteria`; exact
    match needs the row's own expectation (seed 003 rule 2)."""

    def check_config(self, evaluator: EvaluatorDef) -> str | None:
        """A reason the evaluator file can't be used, or None."""
        return None

    def path_tokens(self, path: str) -> list[str | int]:
        """The keys (str) and list indexes (int) one `targetOutputKey` path walks, as this type reads it: accept
        and add-row build an expectation by the same reading the score used. Seed 003's: dotted keys only."""
        return list(split_path(path))

    def score(self, data: ScoreInput) -> Score | Awaitable[Score]:
        """The verdict for one row; may be a coroutine for evaluators that call out (judges)."""
        raise NotImplementedError

    def set_metric(self, evaluator: EvaluatorDef, results: Sequence[Result]) -> SetMetric | None:
        """A metric over a whole set's results (precision, recall, F-score), when this type has one and
        the evaluator asks for it."""
        return None


@dataclass(frozen=True, slots=True)
class SetMetric:
    """One set-level number (precision, recall, F-score) and how many rows it is computed over."""

    name: str  # e.g. "f-score", "precision (macro)"
    value: float
    rows: int

    def describe(self) -> str:
        return f"{self.name} {self.value:.2f} over {self.rows} rows"
