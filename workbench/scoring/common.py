"""Helpers every evaluator family shares: thresholds, config flags, selecting one value, text folding."""

from __future__ import annotations

import unicodedata
from typing import Any

from .. import jsonio
from ..compare import is_number
from ..model import EvaluatorDef, Verdict
from ..output_paths import MISSING, WHOLE, SelectionError, normalize_target, select
from .base import CriterionError, Score, ScoreInput

DEFAULT_THRESHOLD = 1.0
# Scores are sums of fractions; 0.7999999999 must still reach a threshold of 0.8.
_EPSILON = 1e-9


def check_threshold(evaluator: EvaluatorDef) -> str | None:
    if "passThreshold" not in evaluator.config:
        return None
    value = evaluator.config["passThreshold"]
    if not is_number(value) or not 0 <= value <= 1:
        return f"evaluatorConfig.passThreshold must be a number between 0 and 1, not {show(value)}"
    return None


def pass_threshold(data: ScoreInput) -> float:
    """`evaluatorConfig.passThreshold`, else `[scoring] pass_threshold`, else 1.0."""
    value = data.evaluator.config.get("passThreshold")
    if is_number(value):
        return float(value)
    if data.config is not None:
        return data.config.scoring.pass_threshold
    return DEFAULT_THRESHOLD


def graded(score: float, data: ScoreInput, detail: str = "", expected: Any = None) -> Score:
    """PASS when `score` reaches the pass threshold; the detail always says both numbers."""
    score = max(0.0, min(1.0, float(score)))
    threshold = pass_threshold(data)
    verdict = Verdict.PASS if score + _EPSILON >= threshold else Verdict.FAIL
    head = f"score {score:.2f} {'≥' if verdict is Verdict.PASS else '<'} pass threshold {threshold:g}"
    return Score(verdict, score, f"{head}\n{detail}" if detail else head, expected)


def boolean(ok: bool, detail: str = "", expected: Any = None) -> Score:
    return Score.passed(detail, expected) if ok else Score.failed(detail, expected)


def check_flags(evaluator: EvaluatorDef, *keys: str) -> str | None:
    """A complaint about the first of `keys` in evaluatorConfig that is present but not a boolean."""
    for key in keys:
        if key in evaluator.config and not isinstance(evaluator.config[key], bool):
            return f"evaluatorConfig.{key} must be true or false, not {show(evaluator.config[key])}"
    return None


def flag(evaluator: EvaluatorDef, key: str, default: bool = False) -> bool:
    value = evaluator.config.get(key, default)
    return value if isinstance(value, bool) else default


def check_single_target(evaluator: EvaluatorDef) -> str | None:
    """For evaluators that look at one value: targetOutputKey must be "*" or one dotted path."""
    try:
        paths = normalize_target(evaluator.target_output_key)
    except SelectionError as exc:
        return str(exc)
    if len(paths) != 1:
        return (f"{evaluator.type_id} looks at one value, so targetOutputKey must be \"*\" or one dotted "
                f"path, not a list of {len(paths)}")
    return None


def target_path(evaluator: EvaluatorDef) -> str:
    paths = normalize_target(evaluator.target_output_key)
    return paths[0] if len(paths) == 1 else WHOLE


def selected(data: ScoreInput) -> tuple[str, Any]:
    """(path, value) of the output under the evaluator's single targetOutputKey; value may be MISSING."""
    path = target_path(data.evaluator)
    return path, select(data.output, path)


def missing_output(path: str, expected: Any = None) -> Score:
    return Score.failed(f"{path}: missing from the actual output", expected)


def require(criterion: dict[str, Any], key: str, ref: str, example: str) -> Any:
    """`criterion[key]`, or CriterionError naming the row's criterion and an example of the field."""
    if key not in criterion:
        present = ", ".join(repr(k) for k in criterion) or "none"
        raise CriterionError(f"evaluationCriterias[{ref!r}] has no {key!r} (fields present: {present}); "
                             f"write e.g. {{{example}}}")
    return criterion[key]


def as_text(value: Any) -> str:
    """A string as itself; anything else as compact JSON text (what a reader would search in)."""
    return value if isinstance(value, str) else jsonio.dumps(value)


def fold(text: str, *, ignore_case: bool = False, ignore_accents: bool = False) -> str:
    """Text normalised for comparison: `é` → `e` when ignoring accents, casefolded when ignoring case."""
    if ignore_accents:
        decomposed = unicodedata.normalize("NFKD", text)
        text = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    if ignore_case:
        text = text.casefold()
    return text


def show(value: Any, limit: int = 80) -> str:
    """A short JSON rendering of a value for details; MISSING reads as `nothing`."""
    if value is MISSING:
        return "nothing"
    return jsonio.preview(value, limit)
