"""The evaluator types of a coded agent's `evaluations/evaluators/*.json`, scored as `uipath eval` (SDK 2.14.44)
scores them; workbench adds the verdict (`scorer_base.py`).

Output types (`uipath-exact-match`, `uipath-json-similarity`, `uipath-contains`, classification) compare the
output under `targetOutputKey` (`outputs.py`); with `lineByLineEvaluator` each line of it is scored apart
and the score is their mean. The tool-call types are in `tool_scorers.py`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from ...model import EvaluatorDef, Result
from ...scoring.base import CriterionError, Score, ScoreInput, Scorer, SetMetric
from . import scorer_fields as fields
from .class_metrics import binary_metric, label_pairs, multiclass_metric
from .outputs import WHOLE, SelectionError, actual_value, expected_value, path_parts, py_str
from .scorer_base import CodedScorer, Unscorable, boolean, clip, graded, where
from .similarity import similarity
from .tool_scorers import CodedToolCallArgs, CodedToolCallCount, CodedToolCallOrder, CodedToolCallOutput


def split_lines(value: Any, delimiter: str, key: str) -> list[str]:
    """A selected value's non-blank lines, as the SDK splits them."""
    if key != WHOLE and isinstance(value, dict) and key in value:
        value = value[key]
    if not delimiter:
        raise Unscorable("evaluatorConfig.lineDelimiter is empty, so the output can't be split into lines")
    return [line for line in py_str(value).split(delimiter) if line.strip()]


def wrap_line(line: str, key: str) -> Any:
    """One line in the shape the whole output had: itself for "*", else `{key: line}`."""
    return line if key == WHOLE else {key: line}


class OutputScorer(CodedScorer):
    """A type that compares the selected output; `measure` gives (score, words) for one output."""

    boolean_result: ClassVar[bool] = False

    def judge(self, data: ScoreInput, settings: Any, criterion: Any) -> Score:
        key = settings.target_output_key
        if settings.line_by_line_evaluator and not isinstance(key, list):
            score, detail = self.by_line(data, settings, criterion)
            return graded(data, score, detail, self.shown(criterion))
        score, detail = self.measure(settings, criterion, data.output)
        if self.boolean_result:
            return boolean(score, detail, self.shown(criterion))
        return graded(data, score, detail, self.shown(criterion))

    def measure(self, settings: Any, criterion: Any, output: Any) -> tuple[float, str]:
        raise NotImplementedError

    def path_tokens(self, path: str) -> list[str | int]:
        """targetOutputKey as the SDK walks it (`items[1].name`: an index), so accept writes what is compared."""
        return path_parts(path)

    def line_source(self, settings: Any, criterion: Any) -> Any:
        """What the expectation's lines are split from."""
        return expected_value(criterion.expected_output, settings.target_output_key)

    def line_criterion(self, criterion: Any, expected_line: Any) -> Any:
        return criterion.model_copy(update={"expected_output": expected_line})

    def by_line(self, data: ScoreInput, settings: Any, criterion: Any) -> tuple[float, str]:
        """The mean of the lines' scores; a line the SDK can't score counts 0 (no lines at all: 0)."""
        key = settings.target_output_key
        actual = split_lines(actual_value(data.output, key), settings.line_delimiter, key)
        expected = split_lines(self.line_source(settings, criterion), settings.line_delimiter, key)
        scores = []
        for index in range(max(len(actual), len(expected))):
            got = actual[index] if index < len(actual) else ""
            want = expected[index] if index < len(expected) else ""
            try:
                line_score, _ = self.measure(settings, self.line_criterion(criterion, wrap_line(want, key)),
                                             wrap_line(got, key))
            except (SelectionError, Unscorable):
                line_score = 0.0
            scores.append(line_score)
        mean = sum(scores) / len(scores) if scores else 0.0
        shown = ", ".join(f"{score:.3g}" for score in scores[:20]) + (", …" if len(scores) > 20 else "")
        return mean, (f"line by line: mean of {len(scores)} lines ({len(actual)} in the output, "
                      f"{len(expected)} expected): [{shown}]")


def folded(settings: Any, *texts: str) -> tuple[str, ...]:
    """The texts as compared: lower-cased unless `caseSensitive`."""
    return texts if settings.case_sensitive else tuple(text.lower() for text in texts)


def negatable(settings: Any, held: bool, said: str, otherwise: str) -> tuple[float, str]:
    """(score, words) of a boolean comparison; `negated` flips it (passing only `otherwise`)."""
    if settings.negated:
        return float(not held), f"{said}; negated: passes only when {otherwise}"
    return float(held), said


class ExpectedOutputScorer(OutputScorer):
    """A type whose criterion is an `expectedOutput` (the row's own reaches it when the criterion has none)."""

    uses_expected_output: ClassVar[bool] = True
    criterion_fields = fields.OutputCriterion

    def shown(self, criterion: Any) -> Any:
        return criterion.expected_output


class CodedExactMatch(ExpectedOutputScorer):
    """Text equality (Python's `str()` of both, lower-cased unless `caseSensitive`) when either side is a
    string, else Python `==` (so `true` equals `1`); `negated` flips it."""

    type_id: ClassVar[str] = "uipath-exact-match"
    boolean_result: ClassVar[bool] = True
    config_fields = fields.ExactMatchConfig
    example = '"expectedOutput": {"answer": "Paris"}'

    def measure(self, settings: Any, criterion: Any, output: Any) -> tuple[float, str]:
        key = settings.target_output_key
        actual = actual_value(output, key)
        expected = expected_value(criterion.expected_output, key)
        if isinstance(actual, str) or isinstance(expected, str):
            got, want = folded(settings, py_str(actual), py_str(expected))
            same = got == want
            how = "as text" if settings.case_sensitive else "as text, ignoring case"
        else:
            same = actual == expected
            how = "as values, numbers as floats"
        said = (f"{where(key)} equals {clip(py_str(expected))} ({how})" if same else
                f"{where(key)} is {clip(py_str(actual))}, expected {clip(py_str(expected))} ({how})")
        return negatable(settings, same, said, "they differ")


class CodedJsonSimilarity(ExpectedOutputScorer):
    """The share of the expectation's leaves found in the output (`similarity.py`)."""

    type_id: ClassVar[str] = "uipath-json-similarity"
    extra_output_ignored: ClassVar[bool] = True
    config_fields = fields.JsonSimilarityConfig
    example = '"expectedOutput": {"answer": "Paris", "a": 10}'

    def measure(self, settings: Any, criterion: Any, output: Any) -> tuple[float, str]:
        key = settings.target_output_key
        expected = expected_value(criterion.expected_output, key)
        found = similarity(expected, actual_value(output, key))
        return found.score, f"matched {found.matched:.4g} of {found.total:.4g} leaves in {where(key)}"


class CodedContains(OutputScorer):
    """`searchText` in Python's `str()` of the selected output, lower-cased unless `caseSensitive`."""

    type_id: ClassVar[str] = "uipath-contains"
    boolean_result: ClassVar[bool] = True
    config_fields = fields.ContainsConfig
    criterion_fields = fields.ContainsCriterion
    example = '"searchText": "Paris"'

    def measure(self, settings: Any, criterion: Any, output: Any) -> tuple[float, str]:
        key = settings.target_output_key
        text, search = folded(settings, py_str(actual_value(output, key)), criterion.search_text)
        found = search in text
        how = "" if settings.case_sensitive else " (ignoring case)"
        said = (f"{where(key)} contains {clip(criterion.search_text)}{how}" if found else
                f"{where(key)} does not contain {clip(criterion.search_text)}{how}: {clip(text)}")
        return negatable(settings, found, said, "it is absent")

    def line_source(self, settings: Any, criterion: Any) -> Any:
        return criterion.search_text

    def line_criterion(self, criterion: Any, expected_line: Any) -> Any:
        return criterion  # the SDK searches every line for the whole searchText

    def shown(self, criterion: Any) -> Any:
        return criterion.search_text


class _Classification(OutputScorer):
    """1 when Python's `str()` of the selected output equals `expectedClass`, ignoring case."""

    boolean_result: ClassVar[bool] = True
    criterion_fields = fields.ClassCriterion
    example = '"expectedClass": "positive"'

    def classes(self, settings: Any, predicted: str, expected: str) -> None:
        """Unscorable when the labels don't fit the evaluator's config."""

    def measure(self, settings: Any, criterion: Any, output: Any) -> tuple[float, str]:
        predicted = py_str(actual_value(output, settings.target_output_key)).lower()
        expected = criterion.expected_class.lower()
        self.classes(settings, predicted, expected)
        if predicted == expected:
            return 1.0, f"predicted {clip(predicted)}, as expected (ignoring case)"
        return 0.0, f"predicted {clip(predicted)}, expected {clip(expected)} (ignoring case)"

    def line_source(self, settings: Any, criterion: Any) -> Any:
        raise Unscorable(f"{self.type_id} can't be scored line by line (the SDK fails on it too); remove "
                         "lineByLineEvaluator")

    def shown(self, criterion: Any) -> Any:
        return criterion.expected_class

    def set_metric(self, evaluator: EvaluatorDef, results: Sequence[Result]) -> SetMetric | None:
        """The SDK's score for the whole set (its `reduce_scores`)."""
        try:
            settings = self.settings_of(evaluator)
        except CriterionError:
            return None
        return self.reduce(settings, label_pairs(evaluator, settings.target_output_key, results))

    def reduce(self, settings: Any, pairs: Sequence[tuple[str, str]]) -> SetMetric | None:
        raise NotImplementedError


class CodedBinaryClassification(_Classification):
    type_id: ClassVar[str] = "uipath-binary-classification"
    config_fields = fields.BinaryConfig

    def reduce(self, settings: Any, pairs: Sequence[tuple[str, str]]) -> SetMetric | None:
        return binary_metric(settings, pairs)

    def classes(self, settings: Any, predicted: str, expected: str) -> None:
        if not settings.positive_class:
            raise Unscorable("evaluatorConfig.positiveClass is empty; name the positive class")


class CodedMulticlassClassification(_Classification):
    type_id: ClassVar[str] = "uipath-multiclass-classification"
    config_fields = fields.MulticlassConfig

    def reduce(self, settings: Any, pairs: Sequence[tuple[str, str]]) -> SetMetric | None:
        return multiclass_metric(settings, pairs)

    def classes(self, settings: Any, predicted: str, expected: str) -> None:
        labels = [label.lower() for label in settings.classes]
        for side, label in (("expected class", expected), ("predicted class", predicted)):
            if label not in labels:
                raise Unscorable(f"the {side} {label!r} is not one of evaluatorConfig.classes {labels}")


HOSTED_ONLY = ("uipath-llm-judge-trajectory-similarity", "uipath-llm-judge-trajectory-simulation")


def hosted_only(type_id: str) -> str | None:
    """Why an evaluator of this type can't be scored here, for the SDK's LLM judges that only UiPath's hosted
    models run (no scorer is registered for them: other formats' unknown-type message stays as it is)."""
    if type_id not in HOSTED_ONLY:
        return None
    return ("an LLM judge that runs only on UiPath's hosted models, which workbench can't call; workbench "
            "scores uipath-llm-judge-output-semantic-similarity and uipath-llm-judge-output-strict-json-similarity "
            "with its [judge] instead")


def coded_scorers() -> tuple[Scorer, ...]:
    """Every evaluator type of the format, for `Dialect.scorers()`."""
    return (CodedExactMatch(), CodedContains(), CodedJsonSimilarity(), CodedBinaryClassification(),
            CodedMulticlassClassification(), CodedToolCallOrder(), CodedToolCallCount(), CodedToolCallArgs(),
            CodedToolCallOutput())
