"""`uipath-exact-match`: strict deep-equal of the raw output under `targetOutputKey` (seed 003 rule 4)."""

from __future__ import annotations

from typing import Any, ClassVar

from .. import jsonio
from ..compare import explain, strict_equal
from ..model import EvaluatorDef
from ..output_paths import MISSING, SelectionError, normalize_target, select_pairs
from .base import CriterionError, Score, ScoreInput, Scorer


def expected_output(criterion: dict[str, Any], ref: str) -> Any:
    """`expectedOutput` from a row's criterion; a JSON string is parsed (seed 003 rule 2)."""
    if "expectedOutput" not in criterion:
        raise CriterionError(f"evaluationCriterias[{ref!r}] has no \"expectedOutput\"")
    expected = criterion["expectedOutput"]
    if isinstance(expected, str):
        try:
            return jsonio.loads(expected)
        except jsonio.JsonError:
            return expected  # a plain string; compared as such (and it explains itself on FAIL)
    return expected


class ExactMatch(Scorer):
    type_id: ClassVar[str] = "uipath-exact-match"
    uses_expected_output: ClassVar[bool] = True
    structural: ClassVar[bool] = True
    default_criterion_allowed: ClassVar[bool] = False  # the row's own expectation (seed 003 rule 2)

    def check_config(self, evaluator: EvaluatorDef) -> str | None:
        try:
            normalize_target(evaluator.target_output_key)
        except SelectionError as exc:
            return str(exc)
        return None

    def score(self, data: ScoreInput) -> Score:
        expected = expected_output(data.criterion, data.evaluator.ref)
        return compare_selected(data.output, expected, data.evaluator.target_output_key)


def compare_selected(actual: Any, expected: Any, target: Any) -> Score:
    """Exact match of every path `target` selects; a path missing on both sides fails."""
    pairs = select_pairs(actual, expected, target)
    if not pairs:
        return Score.failed("targetOutputKey is an empty list: nothing selected to compare", expected)
    problems: list[str] = []
    for pair in pairs:
        prefix = "" if pair.is_whole else pair.path
        if pair.actual is MISSING and pair.expected is MISSING:
            problems.append(f"{pair.path}: missing from both the output and expectedOutput "
                            "(a path missing on both sides fails)")
        elif pair.actual is MISSING:
            problems.append(f"{pair.path}: missing from the actual output")
        elif pair.expected is MISSING:
            problems.append(f"{pair.path}: missing from expectedOutput")
        elif not strict_equal(pair.actual, pair.expected):
            problems.extend(explain(pair.actual, pair.expected, prefix))
    if not problems:
        return Score.passed(expected=expected)
    if isinstance(expected, str) and isinstance(actual, dict):
        problems.append("expectedOutput is a plain string, but the output is always an object (a bare "
                        "value is wrapped as {\"result\": ...}); write the expected object instead")
    return Score.failed("\n".join(problems), expected)
