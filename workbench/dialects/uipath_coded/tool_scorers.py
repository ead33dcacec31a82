"""The tool-call evaluator types of a coded agent, scored from the row's spans (`tool_spans.py`) as the SDK
2.14.44 scores them.

For all four: no expected calls and none made scores 1; only one of the two empty scores 0 (so expecting
a tool to be called 0 times fails when no tool is called at all).

- order (`toolCallsOrder`: keys): the longest common subsequence of the calls and the expected keys,
  over the number expected; `strict`: 1 only for exactly the expected calls in that order.
- count (`toolCallsCount`: {key: [comparator, n]}): the share of keys whose count holds (a key is looked
  up as written, then sanitised; a tool not called counts 0); `strict`: 0 unless all hold.
- args (`toolCalls`: [{name, args, id?}]): the share of expected calls matched by a distinct call of that
  tool whose arguments hold every expected argument (extra arguments are allowed, with or without
  `subset`); `strict`: 0 unless all match.
- output (`toolOutputs`: [{name, output, id?}]): the same on the output text; `strict`: 0 at the first
  call of an expected tool whose output differs.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from ...scoring.base import Score, ScoreInput
from . import scorer_fields as fields
from .scorer_base import CodedScorer, Unscorable, boolean, graded
from .tool_spans import ToolSpan, is_json_string, matches_expected, matches_key, sanitize, tool_spans

COMPARATORS: dict[str, Callable[[int, int], bool]] = {
    ">": operator.gt, "<": operator.lt, ">=": operator.ge, "<=": operator.le,
    "=": operator.eq, "==": operator.eq, "!=": operator.ne,
}
_TRACE = "the tool calls in the trace (spans with tool.name)"


def empty_sides(expected: Sequence[Any] | dict[str, Any], calls: Sequence[ToolSpan]) -> tuple[float, str] | None:
    """The SDK's rule when either side is empty; None when both have calls."""
    if not expected and not calls:
        return 1.0, "no tool calls expected and none made"
    if not expected:
        return 0.0, f"no tool calls expected, but {len(calls)} made (one side empty scores 0)"
    if not calls:
        return 0.0, "tool calls expected, but none made (one side empty scores 0); are the tools traced with " \
                    "@traced(span_type=\"tool\")?"
    return None


class ToolScorer(CodedScorer):
    """A tool-call type: the row's calls (`spans`: what `tool_spans` reads of them) against the criterion's
    expected ones (`expected`); both empty or one empty is the SDK's rule (`empty_sides`), else `compare`."""

    compares: ClassVar[str] = _TRACE
    spans: ClassVar[dict[str, bool]] = {}
    expects: ClassVar[str]
    """The criterion's field of the expected calls (`tool_calls_order`, ...)."""

    def judge(self, data: ScoreInput, settings: Any, criterion: Any) -> Score:
        score, detail = self.measure(settings, criterion, data.trace)
        if settings.strict:
            return boolean(score, detail, self.shown(criterion))
        return graded(data, score, detail, self.shown(criterion))

    def measure(self, settings: Any, criterion: Any, trace: list[dict[str, Any]]) -> tuple[float, str]:
        calls, expected = tool_spans(trace, **self.spans), self.expected(criterion)
        empty = empty_sides(expected, calls)
        if empty is not None:
            return empty
        return self.compare(settings, expected, calls)

    def expected(self, criterion: Any) -> Any:
        return getattr(criterion, self.expects)

    def compare(self, settings: Any, expected: Any, calls: Sequence[ToolSpan]) -> tuple[float, str]:
        raise NotImplementedError


Holds = Callable[[ToolSpan, Any], bool]


def first_unused(calls: Sequence[ToolSpan], used: set[int], want: Any, holds: Holds | None = None) -> int | None:
    """The first call not yet paired with an expected one that is of `want`'s tool (its name, and its id when it
    names one) and for which `holds(call, want)`; None when there is none."""
    for index, call in enumerate(calls):
        if index not in used and matches_expected(call, want.name, want.id) and (holds is None or holds(call, want)):
            return index
    return None


def paired(expected: Sequence[Any], calls: Sequence[ToolSpan], holds: Holds) -> tuple[set[int], list[Any]]:
    """Each expected call paired with the first call left of its tool that `holds` for it: the paired calls'
    indexes, and the expected calls left unpaired."""
    used: set[int] = set()
    missed = []
    for want in expected:
        index = first_unused(calls, used, want, holds)
        if index is None:
            missed.append(want)
        else:
            used.add(index)
    return used, missed


def matched_words(matched: int, expected: int, what: str, missed: list[str]) -> str:
    unmatched = f"; not matched: {', '.join(missed)}" if missed else ""
    return f"{matched} of {expected} expected {what} matched{unmatched}"


def longest_common(calls: Sequence[ToolSpan], expected: Sequence[str]) -> list[str]:
    """The expected keys of a longest common subsequence of the calls and `expected`."""
    rows, cols = len(calls), len(expected)
    table = [[0] * (cols + 1) for _ in range(rows + 1)]
    for i in range(1, rows + 1):
        for j in range(1, cols + 1):
            table[i][j] = (table[i - 1][j - 1] + 1 if matches_key(calls[i - 1], expected[j - 1])
                           else max(table[i - 1][j], table[i][j - 1]))
    found: list[str] = []
    i, j = rows, cols
    while i > 0 and j > 0:
        if matches_key(calls[i - 1], expected[j - 1]):
            found.append(expected[j - 1])
            i, j = i - 1, j - 1
        elif table[i - 1][j] > table[i][j - 1]:
            i -= 1
        else:
            j -= 1
    return found[::-1]


class CodedToolCallOrder(ToolScorer):
    type_id: ClassVar[str] = "uipath-tool-call-order"
    expects: ClassVar[str] = "tool_calls_order"
    config_fields = fields.OrderConfig
    criterion_fields = fields.OrderCriterion
    example = '"toolCallsOrder": ["lookup", "weather"]'

    def compare(self, settings: Any, expected: Any, calls: Sequence[ToolSpan]) -> tuple[float, str]:
        made = f"calls {[call.key for call in calls]}"
        if settings.strict:
            exact = len(calls) == len(expected) and all(map(matches_key, calls, expected))
            return float(exact), f"strict: {made} {'are' if exact else 'are not'} exactly {expected}"
        common = longest_common(calls, expected)
        return len(common) / len(expected), f"LCS {common} of expected {expected}; {made}"

    def shown(self, criterion: Any) -> Any:
        return self.expected(criterion)


class CodedToolCallCount(ToolScorer):
    type_id: ClassVar[str] = "uipath-tool-call-count"
    expects: ClassVar[str] = "tool_calls_count"
    config_fields = fields.CountConfig
    criterion_fields = fields.CountCriterion
    example = '"toolCallsCount": {"lookup": ["=", 1], "weather": [">=", 1]}'

    def compare(self, settings: Any, expected: Any, calls: Sequence[ToolSpan]) -> tuple[float, str]:
        counts: dict[str, int] = {}
        for call in calls:
            counts[call.key] = counts.get(call.key, 0) + 1
        held, lines = 0.0, []
        for key, (comparator, wanted) in expected.items():
            count = counts.get(key)
            if count is None:
                count = counts.get(sanitize(key), 0)
            if comparator not in COMPARATORS:
                raise Unscorable(f"toolCallsCount[{key!r}] has the comparator {comparator!r}; use one of "
                                 f"{' '.join(COMPARATORS)}")
            ok = COMPARATORS[comparator](count, wanted)
            lines.append(f"{key}: {count} {'✓' if ok else '✗'} {comparator} {wanted}")
            if settings.strict and not ok:
                return 0.0, f"strict: {lines[-1]}"
            held += float(ok)
        return held / len(expected), f"{held:g} of {len(expected)} counts hold: {'; '.join(lines)}"

    def shown(self, criterion: Any) -> Any:
        return {key: list(pair) for key, pair in self.expected(criterion).items()}


class _ExpectedCalls(ToolScorer):
    """The args and output types: each expected call paired with a distinct call of its tool that `holds` for it."""

    what: ClassVar[str]

    def holds(self, call: ToolSpan, want: Any) -> bool:
        raise NotImplementedError

    def missed(self, want: Any) -> str:
        raise NotImplementedError

    def compare(self, settings: Any, expected: Any, calls: Sequence[ToolSpan]) -> tuple[float, str]:
        used, missed = paired(expected, calls, self.holds)
        said = matched_words(len(used), len(expected), self.what, [self.missed(want) for want in missed])
        if settings.strict:
            return float(len(used) == len(expected)), f"strict: {said}"
        return len(used) / len(expected), said

    def shown(self, criterion: Any) -> Any:
        return [item.model_dump(exclude_none=True) for item in self.expected(criterion)]


class CodedToolCallArgs(_ExpectedCalls):
    type_id: ClassVar[str] = "uipath-tool-call-args"
    expects: ClassVar[str] = "tool_calls"
    spans: ClassVar[dict[str, bool]] = {"args": True}
    what: ClassVar[str] = "calls"
    config_fields = fields.ArgsConfig
    criterion_fields = fields.ArgsCriterion
    example = '"toolCalls": [{"name": "lookup", "args": {"city": "Paris"}}]'

    def holds(self, call: ToolSpan, want: Any) -> bool:
        """Every expected argument is there with its value (extra arguments are allowed)."""
        return all(key in call.args and call.args[key] == value for key, value in want.args.items())

    def missed(self, want: Any) -> str:
        return f"{want.name} {want.args}"


class CodedToolCallOutput(_ExpectedCalls):
    type_id: ClassVar[str] = "uipath-tool-call-output"
    expects: ClassVar[str] = "tool_outputs"
    spans: ClassVar[dict[str, bool]] = {"outputs": True}
    what: ClassVar[str] = "outputs"
    config_fields = fields.ToolOutputConfig
    criterion_fields = fields.ToolOutputsCriterion
    example = '"toolOutputs": [{"name": "weather", "output": "sunny"}]'

    def holds(self, call: ToolSpan, want: Any) -> bool:
        return call.output == want.output

    def missed(self, want: Any) -> str:
        return f"{want.name} {want.output!r:.80}"

    def compare(self, settings: Any, expected: Any, calls: Sequence[ToolSpan]) -> tuple[float, str]:
        """`strict`: 0 at the first call left of an expected tool whose output differs (not any call of it).
        A miss says the outputs it was compared with, as compared: a string the tool returned is its JSON
        text, quotes included (the SDK compares the span's text), which is why `"Nairobi"` misses Nairobi."""
        if not settings.strict:
            used, missed = paired(expected, calls, self.holds)
            words = [f"{self.missed(want)} (compared with {_outputs_of(want, calls, used)})" for want in missed]
            said = matched_words(len(used), len(expected), self.what, words)
            return len(used) / len(expected), said + _json_text_note(calls, used, missed)
        used = set()
        for want in expected:
            index = first_unused(calls, used, want)
            if index is None:
                return 0.0, f"strict: no call of {want.name} left to match"
            if not self.holds(calls[index], want):
                note = _json_text_note([calls[index]], set(), [want])
                return 0.0, (f"strict: {want.name} output {calls[index].output!r:.120}, expected "
                             f"{want.output!r:.120}{note}")
            used.add(index)
        return 1.0, matched_words(len(used), len(expected), self.what, [])


def _left_of(want: Any, calls: Sequence[ToolSpan], used: set[int]) -> list[ToolSpan]:
    return [call for index, call in enumerate(calls)
            if index not in used and matches_expected(call, want.name, want.id)]


def _outputs_of(want: Any, calls: Sequence[ToolSpan], used: set[int]) -> str:
    """The outputs of `want`'s tool's calls left unpaired, as the scorer compared them."""
    left = _left_of(want, calls, used)
    if not left:
        return "no call of it left" if any(matches_expected(c, want.name, want.id) for c in calls) else "no call of it"
    shown = ", ".join(f"{call.output!r:.80}" for call in left[:3])
    more = f" and {len(left) - 3} more" if len(left) > 3 else ""
    return f"its output{'s' if len(left) > 1 else ''} {shown}{more}"


def _json_text_note(calls: Sequence[ToolSpan], used: set[int], missed: list[Any]) -> str:
    """Said when an output compared with a missed expected one is a string's JSON text."""
    if any(is_json_string(call.output) for want in missed for call in _left_of(want, calls, used)):
        return "; a string a tool returns is compared as its JSON text, quotes included, as the SDK compares it"
    return ""
