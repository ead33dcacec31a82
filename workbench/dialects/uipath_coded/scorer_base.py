"""What every coded evaluator type shares: its config and criterion checked as the SDK checks them, the
verdict at `[uipath-coded]`'s thresholds, and the words of its details.

The verdict: PASS when the score reaches the threshold (`thresholds[<evaluator id>]`, else `pass_threshold`,
default 1; a score within 1e-9 below it counts, as sums of fractions aren't exact). Results that can only be 0
or 1 (exact match, contains, and the tool-call types with `strict`) pass only at 1. What the SDK can't score
(a key not in the output, an unreadable span) is an ERROR, as it is an error result there.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, ValidationError

from ...model import EvaluatorDef, Verdict
from ...scoring.base import CriterionError, Score, ScoreInput, Scorer
from . import scorer_fields as fields
from .outputs import WHOLE, SelectionError
from .settings import CodedConfig
from .tool_spans import SpanError

DEFAULT_THRESHOLD = 1.0
_EPSILON = 1e-9


class Unscorable(ValueError):
    """The SDK's evaluator raises on this row (an error result there): an ERROR here, with these words."""


def evaluator_id(evaluator: EvaluatorDef) -> str:
    return evaluator.id or evaluator.ref


def threshold(data: ScoreInput) -> float:
    """The score this evaluator's results pass at."""
    if data.config is None:
        return DEFAULT_THRESHOLD
    section = data.config.section(CodedConfig)
    return section.thresholds.get(evaluator_id(data.evaluator), section.pass_threshold)


def graded(data: ScoreInput, score: float, detail: str, expected: Any = None) -> Score:
    limit = threshold(data)
    ok = score + _EPSILON >= limit
    head = f"score {score:.4g} {'≥' if ok else '<'} threshold {limit:g}"
    return Score(Verdict.PASS if ok else Verdict.FAIL, score, f"{head}: {detail}", expected)


def boolean(score: float, detail: str, expected: Any = None) -> Score:
    return Score(Verdict.PASS if score >= 1.0 else Verdict.FAIL, score, detail, expected)


def clip(text: str, limit: int = 120) -> str:
    """A compared text for a detail: Python's repr, cut to `limit` characters."""
    shown = repr(text)
    return shown if len(shown) <= limit else shown[:limit - 1] + "…"


def where(key: Any) -> str:
    if isinstance(key, list):
        return f"the output's keys {key}"
    return "the output" if key == WHOLE else f"the output at {key!r}"


class CodedScorer(Scorer):
    """An SDK evaluator type: its config and criterion declared in `scorer_fields`, checked as the SDK checks
    them; `judge` scores a row with both."""

    config_fields: ClassVar[type[BaseModel]]
    criterion_fields: ClassVar[type[BaseModel]]
    example: ClassVar[str]
    """A criterion of this type, for messages: `"searchText": "Paris"`."""

    def check_config(self, evaluator: EvaluatorDef) -> str | None:
        try:
            self.settings_of(evaluator)
        except CriterionError as exc:
            return str(exc)
        return None

    def settings_of(self, evaluator: EvaluatorDef) -> Any:
        raw = dict(evaluator.config)
        if evaluator.name is not None:
            raw["name"] = evaluator.name  # the SDK gives the file's top-level name to its config
        try:
            return self.config_fields.model_validate(raw)
        except ValidationError as exc:
            raise CriterionError(fields.problem(exc, "evaluatorConfig")) from None

    def criterion_of(self, data: ScoreInput, settings: Any) -> Any:
        """The row's criterion, or (null or {}) the evaluator's defaultEvaluationCriteria."""
        return self.validated(evaluator_id(data.evaluator), data.criterion, settings)

    def criterion_problem(self, evaluator: EvaluatorDef, criterion: Any) -> str | None:
        """Why the SDK would refuse this criterion (what `criterion_of` raises), or None; None too when the
        evaluator's config itself is wrong (that is its own ERROR)."""
        try:
            settings = self.settings_of(evaluator)
        except CriterionError:
            return None
        try:
            self.validated(evaluator_id(evaluator), criterion, settings)
        except CriterionError as exc:
            return str(exc)
        return None

    def validated(self, ident: str, criterion: Any, settings: Any) -> Any:
        """`criterion` (of evaluator `ident`) as this type's fields, else CriterionError saying what is wrong."""
        if not criterion:
            if settings.default_evaluation_criteria is None:
                raise CriterionError(f"evaluationCriterias[{ident!r}] is empty and evaluator {ident!r} has no "
                                     f"defaultEvaluationCriteria; write e.g. {{{self.example}}}")
            return settings.default_evaluation_criteria
        try:
            return self.criterion_fields.model_validate(criterion)
        except ValidationError as exc:
            raise CriterionError(f"{fields.problem(exc, f'evaluationCriterias[{ident!r}]')}; write e.g. "
                                 f"{{{self.example}}}") from None

    def score(self, data: ScoreInput) -> Score:
        settings = self.settings_of(data.evaluator)
        criterion = self.criterion_of(data, settings)
        try:
            return self.judge(data, settings, criterion)
        except (SelectionError, SpanError, Unscorable) as exc:
            return Score.error(f"{evaluator_id(data.evaluator)}: {exc}", self.shown(criterion))
        except RecursionError:
            return Score.error(f"{evaluator_id(data.evaluator)}: a value is nested too deeply to compare",
                               self.shown(criterion))

    def judge(self, data: ScoreInput, settings: Any, criterion: Any) -> Score:
        raise NotImplementedError

    def shown(self, criterion: Any) -> Any:
        """What the report shows as this row's expectation."""
        return None
