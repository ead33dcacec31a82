"""What an expectation is: decoding a JSON-string `expectedOutput`, comparing, building one from output."""

from __future__ import annotations

from typing import Any

from .. import jsonio
from ..compare import strict_equal
from ..model import EvaluatorDef
from ..output_paths import MISSING, WHOLE, SelectionError, normalize_target, resolve, set_at, split_path
from ..scoring import scorer_of
from .errors import WritebackError
from .render import inline, render
from .style import Style


def uses_expected_output(evaluator: EvaluatorDef) -> bool:
    """Whether the evaluator's type is scored against `expectedOutput` (only such expectations can be
    accepted): a capability of its scorer."""
    scorer = scorer_of(evaluator)
    return scorer is not None and scorer.uses_expected_output


def not_expected_output(evaluator: EvaluatorDef) -> str:
    return (f"evaluator {evaluator.ref} ({evaluator.type_id}) does not compare the output with expectedOutput, "
            "so there is no expectation to write for it")


def target_paths(evaluator: EvaluatorDef) -> list[str]:
    """The paths the evaluator compares; `[WHOLE]` when it compares the whole output."""
    try:
        paths = normalize_target(evaluator.target_output_key)
    except SelectionError as exc:
        raise WritebackError(f"evaluator {evaluator.ref}: {exc}") from None
    return [WHOLE] if WHOLE in paths else paths


def decode(raw: Any) -> tuple[Any, bool]:
    """The expectation as scorers see it, and whether the file holds it as a JSON string."""
    if isinstance(raw, str):
        try:
            return jsonio.loads(raw), True
        except jsonio.JsonError:
            return raw, False
    return raw, False


def default_expectation(evaluator: EvaluatorDef | None) -> list[Any]:
    """The evaluator's `defaultEvaluationCriteria.expectedOutput`, as a list of none or one."""
    default = evaluator.config.get("defaultEvaluationCriteria") if evaluator is not None else None
    return [default["expectedOutput"]] if isinstance(default, dict) and "expectedOutput" in default else []


def same(recorded: Any, raw_on_disk: Any, evaluator: EvaluatorDef | None = None,
         sources: list[Any] | None = None) -> bool:
    """Whether the expectation on disk is still the one a recorded result was scored against. A row
    with no expectation of its own may have been scored against one of `sources` (the format's
    `WritesRows.expected_sources`; by default the evaluator's defaultEvaluationCriteria)."""
    if raw_on_disk is not MISSING:
        return strict_equal(decode(recorded)[0], decode(raw_on_disk)[0])
    candidates: list[Any] = [None, *(default_expectation(evaluator) if sources is None else sources)]
    return any(strict_equal(decode(recorded)[0], decode(candidate)[0]) for candidate in candidates)


def encode_like(old: str, value: Any) -> str:
    """`value` as JSON text spaced like the JSON string `old` was (compact, `json.dumps` or indented)."""
    spaced = '": ' in old or ', "' in old
    style = Style(colon=": " if spaced else ":", comma=", " if spaced else ",", object_pad="", array_pad="",
                  inline_objects=False, inline_arrays=False)
    if "\n" in old:
        return render(value, style, "", 0)
    return inline(value, style)


def missing_path(path: str, evaluator: str) -> WritebackError:
    return WritebackError(f"the output has no {path!r}, which evaluator {evaluator} compares; an expectation "
                          "can't make a path missing from the output pass")


def path_tokens(evaluator: EvaluatorDef, path: str) -> list[str | int]:
    """The keys and list indexes `path` walks, as the evaluator's type reads its targetOutputKey
    (`Scorer.path_tokens`: `items[1].name` is an index to a format whose scorer says so)."""
    scorer = scorer_of(evaluator)
    return scorer.path_tokens(path) if scorer is not None else list(split_path(path))


def selected(actual: Any, evaluator: EvaluatorDef) -> Any:
    """A fresh expectation from `actual`: the whole output, or only the paths the evaluator compares."""
    paths = target_paths(evaluator)
    if paths == [WHOLE]:
        return actual
    expected: Any = {}
    for path in paths:
        tokens = path_tokens(evaluator, path)
        value = resolve(actual, tokens)
        if value is MISSING:
            raise missing_path(path, evaluator.ref)
        expected = set_at(expected, tokens, value, actual)
    return expected
