"""Tool-call evaluators, scored from the row's trace (`tool_call` events, in order). Graded.

Semantics follow the UiPath SDK: when both the expectation and the trace's calls are empty the score is
1, when exactly one side is empty it is 0.

- `uipath-tool-call-order` (`toolCallsOrder`: names): longest common subsequence / expected length;
  `strict` demands the exact sequence.
- `uipath-tool-call-count` (`toolCallsCount`: {name: [op, n]} with op one of = == != > < >= <=, or a
  bare n for =): fraction of tools whose count holds; `strict` scores 0 unless all hold.
- `uipath-tool-call-args` (`toolCalls`: [{name, args}]): fraction of expected calls matched by a
  distinct actual call of that name with equal args (`subset`: expected args a subset of the actual
  ones); `strict` scores 0 unless all match. Values compare by the exact-match rules.
- `uipath-tool-call-output` (`toolOutputs`: [{name, output}]): the same, on each call's `output`.
"""

from __future__ import annotations

import operator
from collections import Counter
from collections.abc import Callable
from typing import Any, ClassVar

from .. import jsonio
from ..compare import strict_equal
from ..model import EvaluatorDef
from ..output_paths import MISSING
from ..trace import ToolCall, tool_calls
from .base import CriterionError, Score, ScoreInput, Scorer
from .common import check_flags, check_threshold, flag, graded, require, show

COMPARATORS: dict[str, Callable[[int, int], bool]] = {
    "=": operator.eq, "==": operator.eq, "!=": operator.ne,
    ">": operator.gt, "<": operator.lt, ">=": operator.ge, "<=": operator.le,
}


def lcs(actual: list[str], expected: list[str]) -> list[str]:
    """A longest common subsequence of two name lists."""
    rows, cols = len(actual), len(expected)
    table = [[0] * (cols + 1) for _ in range(rows + 1)]
    for i in range(rows - 1, -1, -1):
        for j in range(cols - 1, -1, -1):
            table[i][j] = (table[i + 1][j + 1] + 1 if actual[i] == expected[j]
                           else max(table[i + 1][j], table[i][j + 1]))
    out, i, j = [], 0, 0
    while i < rows and j < cols:
        if actual[i] == expected[j]:
            out.append(actual[i])
            i, j = i + 1, j + 1
        elif table[i + 1][j] >= table[i][j + 1]:
            i += 1
        else:
            j += 1
    return out


def empty_case(expected_empty: bool, actual_empty: bool) -> tuple[float, list[str]] | None:
    """The SDK's rule for empty sides: both empty scores 1, exactly one empty scores 0; else None."""
    if expected_empty and actual_empty:
        return 1.0, ["no tool calls expected and none in the trace"]
    if expected_empty:
        return 0.0, ["no tool calls expected, but the trace has some (one side empty scores 0)"]
    if actual_empty:
        return 0.0, ["tool calls expected, but the trace has none (one side empty scores 0); does the "
                     "target append tool_call events to the file named by $WORKBENCH_TRACE?"]
    return None


class _ToolCallScorer(Scorer):
    type_id: ClassVar[str]
    flags: ClassVar[tuple[str, ...]] = ("strict",)

    def check_config(self, evaluator: EvaluatorDef) -> str | None:
        return check_flags(evaluator, *self.flags) or check_threshold(evaluator)

    def score(self, data: ScoreInput) -> Score:
        found = tool_calls(data.trace)
        score, lines, expected = self.measure(data, found.calls)
        if found.note():
            lines.append(found.note())
        return graded(score, data, "\n".join(lines), expected)

    def measure(self, data: ScoreInput, calls: list[ToolCall]) -> tuple[float, list[str], Any]:
        raise NotImplementedError


def _list_criterion(data: ScoreInput, key: str, example: str) -> list[Any]:
    value = require(data.criterion, key, data.evaluator.ref, example)
    if not isinstance(value, list):
        raise CriterionError(f"evaluationCriterias[{data.evaluator.ref!r}].{key} must be an array, "
                             f"not {show(value)}")
    return value


class ToolCallOrder(_ToolCallScorer):
    type_id: ClassVar[str] = "uipath-tool-call-order"
    compares: ClassVar[str] = "the order of the trace's tool calls (toolCallsOrder)"

    def measure(self, data: ScoreInput, calls: list[ToolCall]) -> tuple[float, list[str], Any]:
        expected = _list_criterion(data, "toolCallsOrder", '"toolCallsOrder": ["lookupUser", "createTicket"]')
        if not all(isinstance(name, str) for name in expected):
            raise CriterionError(f"evaluationCriterias[{data.evaluator.ref!r}].toolCallsOrder must list tool "
                                 "names (strings)")
        actual = [call.name for call in calls]
        lines = [f"expected order: {show(expected, 200)}", f"actual order:   {show(actual, 200)}"]
        empty = empty_case(not expected, not actual)
        if empty is not None:
            return empty[0], [*empty[1], *lines], expected
        if actual == expected:
            return 1.0, lines, expected
        if flag(data.evaluator, "strict"):
            return 0.0, ["strict: the calls must be exactly the expected sequence", *lines], expected
        common = lcs(actual, expected)
        lines.append(f"longest common subsequence: {show(common, 200)} ({len(common)} of {len(expected)})")
        return len(common) / len(expected), lines, expected


def _whole(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def _count_rule(name: str, rule: Any, ref: str) -> tuple[str, int]:
    if isinstance(rule, list):
        op, count = (rule[0], rule[1]) if len(rule) == 2 else (None, None)
    else:
        op, count = "=", rule
    number = _whole(count)
    if isinstance(op, str) and op in COMPARATORS and number is not None:
        return op, number
    raise CriterionError(f"evaluationCriterias[{ref!r}].toolCallsCount[{name!r}] must be [operator, count] "
                         f"such as [\">=\", 1] (operators: {' '.join(COMPARATORS)}), not {show(rule)}")


class ToolCallCount(_ToolCallScorer):
    type_id: ClassVar[str] = "uipath-tool-call-count"
    compares: ClassVar[str] = "how often the trace calls each tool (toolCallsCount)"

    def measure(self, data: ScoreInput, calls: list[ToolCall]) -> tuple[float, list[str], Any]:
        ref = data.evaluator.ref
        raw = require(data.criterion, "toolCallsCount", ref, '"toolCallsCount": {"lookupUser": ["=", 1]}')
        if not isinstance(raw, dict):
            raise CriterionError(f"evaluationCriterias[{ref!r}].toolCallsCount must be an object of "
                                 f"{{tool: [operator, count]}}, not {show(raw)}")
        rules = {name: _count_rule(name, rule, ref) for name, rule in raw.items()}
        counts = Counter(call.name for call in calls)
        empty = empty_case(not rules, not counts)
        if empty is not None:
            return empty[0], empty[1], raw
        lines, held = [], 0
        for name, (op, count) in rules.items():
            ok = COMPARATORS[op](counts.get(name, 0), count)
            held += ok
            lines.append(f"{'ok  ' if ok else 'FAIL'} {name}: called {counts.get(name, 0)} time(s), "
                         f"expected {op} {count}")
        if flag(data.evaluator, "strict") and held < len(rules):
            return 0.0, ["strict: every count must hold", *lines], raw
        return held / len(rules), lines, raw


def _matches(data: ScoreInput, expected: list[tuple[str, Any]], calls: list[ToolCall],
             equal: Callable[[Any, ToolCall], bool], what: str) -> tuple[float, list[str]]:
    """Greedy matching: each expected (name, value) takes the first unused actual call that equals it."""
    used: set[int] = set()
    lines, matched = [], 0
    for position, (name, value) in enumerate(expected):
        same_name = [i for i, call in enumerate(calls) if call.name == name and i not in used]
        hit = next((i for i in same_name if equal(value, calls[i])), None)
        if hit is not None:
            used.add(hit)
            matched += 1
            lines.append(f"ok   [{position}] {name}: {what} match call #{hit + 1}")
        elif same_name:
            seen = "; ".join(show(_shown(calls[i], what), 60) for i in same_name[:3])
            lines.append(f"FAIL [{position}] {name}: expected {what} {show(value, 100)}, the calls had {seen}")
        else:
            lines.append(f"FAIL [{position}] {name}: no (unmatched) call to {name} in the trace")
    if flag(data.evaluator, "strict") and matched < len(expected):
        return 0.0, ["strict: every expected call must match", *lines]
    return matched / len(expected), lines


def _shown(call: ToolCall, what: str) -> Any:
    return call.args if what == "args" else call.output


def _args_equal(expected: dict[str, Any], actual: dict[str, Any], subset: bool) -> bool:
    if not subset and expected.keys() != actual.keys():
        return False
    return all(key in actual and strict_equal(actual[key], value) for key, value in expected.items())


def _output_equal(expected: Any, actual: Any) -> bool:
    """Exact-match equality; a string on one side may also be the other side's value as JSON text."""
    if actual is MISSING:
        return False
    if strict_equal(actual, expected):
        return True
    for text, value in ((expected, actual), (actual, expected)):
        if isinstance(text, str) and not isinstance(value, str):
            try:
                return strict_equal(jsonio.loads(text), value)
            except jsonio.JsonError:
                return False
    return False


class ToolCallArgs(_ToolCallScorer):
    type_id: ClassVar[str] = "uipath-tool-call-args"
    compares: ClassVar[str] = "the arguments of the trace's tool calls (toolCalls)"
    flags: ClassVar[tuple[str, ...]] = ("strict", "subset")

    def measure(self, data: ScoreInput, calls: list[ToolCall]) -> tuple[float, list[str], Any]:
        ref = data.evaluator.ref
        raw = _list_criterion(data, "toolCalls", '"toolCalls": [{"name": "lookupUser", "args": {"id": 7}}]')
        expected: list[tuple[str, Any]] = []
        for index, item in enumerate(raw):
            args = item.get("args", item.get("arguments", {})) if isinstance(item, dict) else None
            if not isinstance(item, dict) or not isinstance(item.get("name"), str) or not isinstance(args, dict):
                raise CriterionError(f"evaluationCriterias[{ref!r}].toolCalls[{index}] must be "
                                     f"{{\"name\": \"tool\", \"args\": {{...}}}}, not {show(item)}")
            expected.append((item["name"], args))
        empty = empty_case(not expected, not calls)
        if empty is not None:
            return empty[0], empty[1], raw
        subset = flag(data.evaluator, "subset")
        score, lines = _matches(data, expected, calls, lambda v, c: _args_equal(v, c.args, subset), "args")
        if not subset:
            lines.append("(args must be equal; set evaluatorConfig.subset to allow extra actual args)")
        return score, lines, raw


class ToolCallOutput(_ToolCallScorer):
    type_id: ClassVar[str] = "uipath-tool-call-output"
    compares: ClassVar[str] = "the outputs of the trace's tool calls (toolOutputs)"

    def measure(self, data: ScoreInput, calls: list[ToolCall]) -> tuple[float, list[str], Any]:
        ref = data.evaluator.ref
        raw = _list_criterion(data, "toolOutputs", '"toolOutputs": [{"name": "lookupUser", "output": {...}}]')
        expected: list[tuple[str, Any]] = []
        for index, item in enumerate(raw):
            if not isinstance(item, dict) or not isinstance(item.get("name"), str) or "output" not in item:
                raise CriterionError(f"evaluationCriterias[{ref!r}].toolOutputs[{index}] must be "
                                     f"{{\"name\": \"tool\", \"output\": ...}}, not {show(item)}")
            expected.append((item["name"], item["output"]))
        empty = empty_case(not expected, not calls)
        if empty is not None:
            return empty[0], empty[1], raw
        score, lines = _matches(data, expected, calls, lambda v, c: _output_equal(v, c.output), "output")
        return score, lines, raw
