"""Tool-call evaluators, scored from the row's trace (`tool_call` events, in order). Graded.

The computations of the four types (`order_score`, `count_holds`, `pair_calls`, `args_hold`, `share`,
`empty_case`) are the one implementation every format scores them with; what a call is, which call stands for an
expected one and when two values are equal are passed in. This module's scorers are seed 003's.

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
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, TypeVar

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


Call = TypeVar("Call")
Want = TypeVar("Want")


def lcs(actual: Sequence[Call], expected: Sequence[str],
        same: Callable[[Call, str], bool] = operator.eq) -> list[str]:
    """The expected names of a longest common subsequence of the calls and `expected`, a call standing for an
    expected name when `same(call, name)` (by default: the call is that name)."""
    rows, cols = len(actual), len(expected)
    table = [[0] * (cols + 1) for _ in range(rows + 1)]
    for i in range(rows - 1, -1, -1):
        for j in range(cols - 1, -1, -1):
            table[i][j] = (table[i + 1][j + 1] + 1 if same(actual[i], expected[j])
                           else max(table[i + 1][j], table[i][j + 1]))
    out, i, j = [], 0, 0
    while i < rows and j < cols:
        if same(actual[i], expected[j]):
            out.append(expected[j])
            i, j = i + 1, j + 1
        elif table[i + 1][j] >= table[i][j + 1]:
            i += 1
        else:
            j += 1
    return out


def order_score(actual: Sequence[Call], expected: Sequence[str], strict: bool,
                same: Callable[[Call, str], bool] = operator.eq) -> tuple[float, list[str] | None]:
    """`uipath-tool-call-order` of two non-empty sides: (score, the longest common subsequence, None under
    `strict`). Strict: 1 only for exactly the expected calls in that order; else the subsequence's length over the
    number expected."""
    if strict:
        exact = len(actual) == len(expected) and all(map(same, actual, expected))
        return float(exact), None
    common = lcs(actual, expected, same)
    return len(common) / len(expected), common


def count_holds(comparator: str, count: int, wanted: int) -> bool:
    """Does a tool's `count` of calls hold `[comparator, wanted]` (comparators: `COMPARATORS`)?"""
    return COMPARATORS[comparator](count, wanted)


def share(held: int, total: int, strict: bool) -> float:
    """The share of the expected things that held; `strict`: 0 unless all did (`total` > 0)."""
    if strict:
        return float(held == total)
    return held / total


def args_hold(expected: Mapping[str, Any], actual: Mapping[str, Any], subset: bool,
              equal: Callable[[Any, Any], bool]) -> bool:
    """Every expected argument is there with an `equal` value; without `subset` the call has no others."""
    if not subset and expected.keys() != actual.keys():
        return False
    return all(key in actual and equal(actual[key], value) for key, value in expected.items())


def pair_calls(expected: Sequence[Want], calls: Sequence[Call], of_tool: Callable[[Call, Want], bool],
               holds: Callable[[Call, Want], bool], *, first_of_tool: bool = False) -> list[tuple[int | None, bool]]:
    """`uipath-tool-call-args`' and `-output`'s pairing: for each expected call in order, (the index of the call
    paired with it, whether it holds). Each takes the first call not yet paired that is of its tool
    (`of_tool`) and for which `holds`; (None, False) when there is none. With `first_of_tool` it takes the first
    call not yet paired that is of its tool, held or not (a call that doesn't hold is used up all the same)."""
    used: set[int] = set()
    pairs: list[tuple[int | None, bool]] = []
    for want in expected:
        hit = next((i for i, call in enumerate(calls) if i not in used and of_tool(call, want)
                    and (first_of_tool or holds(call, want))), None)
        if hit is None:
            pairs.append((None, False))
            continue
        used.add(hit)
        pairs.append((hit, True if not first_of_tool else holds(calls[hit], want)))
    return pairs


def empty_case(expected_empty: bool, actual_empty: bool,
               none_made: str = "does the target append tool_call events to the file named by $WORKBENCH_TRACE?"
               ) -> tuple[float, list[str]] | None:
    """The SDK's rule for empty sides: both empty scores 1, exactly one empty scores 0; else None. `none_made`:
    the hint when calls were expected and none were made (how the format's trace records them)."""
    if expected_empty and actual_empty:
        return 1.0, ["no tool calls expected and none in the trace"]
    if expected_empty:
        return 0.0, ["no tool calls expected, but the trace has some (one side empty scores 0)"]
    if actual_empty:
        return 0.0, [f"tool calls expected, but the trace has none (one side empty scores 0); {none_made}"]
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
        score, common = order_score(actual, expected, flag(data.evaluator, "strict"))
        if common is None:
            if score < 1:
                lines.insert(0, "strict: the calls must be exactly the expected sequence")
        elif score < 1:
            lines.append(f"longest common subsequence: {show(common, 200)} ({len(common)} of {len(expected)})")
        return score, lines, expected


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
            ok = count_holds(op, counts.get(name, 0), count)
            held += ok
            lines.append(f"{'ok  ' if ok else 'FAIL'} {name}: called {counts.get(name, 0)} time(s), "
                         f"expected {op} {count}")
        strict = flag(data.evaluator, "strict")
        if strict and held < len(rules):
            lines.insert(0, "strict: every count must hold")
        return share(held, len(rules), strict), lines, raw


def _matches(data: ScoreInput, expected: list[tuple[str, Any]], calls: list[ToolCall],
             equal: Callable[[Any, ToolCall], bool], what: str) -> tuple[float, list[str]]:
    """Each expected (name, value) takes the first unused actual call of that name that equals it."""
    pairs = pair_calls(expected, calls, lambda call, want: call.name == want[0],
                       lambda call, want: equal(want[1], call))
    used: set[int] = set()
    lines = []
    for position, ((name, value), (hit, _)) in enumerate(zip(expected, pairs, strict=True)):
        same_name = [i for i, call in enumerate(calls) if call.name == name and i not in used]
        if hit is not None:
            used.add(hit)
            lines.append(f"ok   [{position}] {name}: {what} match call #{hit + 1}")
        elif same_name:
            seen = "; ".join(show(_shown(calls[i], what), 60) for i in same_name[:3])
            lines.append(f"FAIL [{position}] {name}: expected {what} {show(value, 100)}, the calls had {seen}")
        else:
            lines.append(f"FAIL [{position}] {name}: no (unmatched) call to {name} in the trace")
    matched, strict = sum(held for _, held in pairs), flag(data.evaluator, "strict")
    if strict and matched < len(expected):
        lines.insert(0, "strict: every expected call must match")
    return share(matched, len(expected), strict), lines


def _shown(call: ToolCall, what: str) -> Any:
    return call.args if what == "args" else call.output


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
        score, lines = _matches(data, expected, calls, lambda v, c: args_hold(v, c.args, subset, strict_equal), "args")
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
