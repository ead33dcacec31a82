"""The tool-call evaluator types of a coded agent, scored from the row's spans (`tool_spans.py`) as the SDK
2.14.44 scores them: the core's computations (`scoring/tool_calls.py`: `order_score`, `count_holds`,
`pair_calls`, `args_hold`, `share`, `empty_case`) with the SDK's rules passed in.

For all four: no expected calls and none made scores 1; only one of the two empty scores 0 (so expecting
a tool to be called 0 times fails when no tool is called at all).

The SDK's rules, kept here:
- a call stands for an expected key or `{name, id?}` by `tool_spans.matches_key` / `matches_expected` (its id
  when it has one, else its sanitised name);
- count: a key is looked up as written, then sanitised (a tool not called counts 0); a comparator outside
  `COMPARATORS` is an ERROR (the criterion's declaration takes any text, as the SDK's does);
- args: every expected argument must be there with a Python-equal value; extra arguments are allowed, with or
  without `subset`;
- output: the output text must be equal; `strict`: 0 at the first call left of an expected tool whose output
  differs (not any call of it).
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any, ClassVar

from ...scoring.base import Score, ScoreInput
from ...scoring.tool_calls import COMPARATORS, args_hold, count_holds, empty_case, order_score, pair_calls, share
from . import scorer_fields as fields
from .scorer_base import CodedScorer, Unscorable, boolean, graded
from .tool_spans import ToolSpan, is_json_string, matches_expected, matches_key, sanitize, tool_spans

_TRACE = "the tool calls in the trace (spans with tool.name)"
_NONE_MADE = "are the tools traced with @traced(span_type=\"tool\")?"


class ToolScorer(CodedScorer):
    """A tool-call type: the row's calls (`spans`: what `tool_spans` reads of them) against the criterion's
    expected ones (`expected`); both empty or one empty is the SDK's rule (`empty_case`), else `compare`."""

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
        empty = empty_case(not expected, not calls, _NONE_MADE)
        if empty is not None:
            return empty[0], "; ".join(empty[1])
        return self.compare(settings, expected, calls)

    def expected(self, criterion: Any) -> Any:
        return getattr(criterion, self.expects)

    def compare(self, settings: Any, expected: Any, calls: Sequence[ToolSpan]) -> tuple[float, str]:
        raise NotImplementedError


def of_tool(call: ToolSpan, want: Any) -> bool:
    """Is `call` of the tool an expected `{name, id?}` names?"""
    return matches_expected(call, want.name, want.id)


def matched_words(matched: int, expected: int, what: str, missed: list[str]) -> str:
    unmatched = f"; not matched: {', '.join(missed)}" if missed else ""
    return f"{matched} of {expected} expected {what} matched{unmatched}"


class CodedToolCallOrder(ToolScorer):
    type_id: ClassVar[str] = "uipath-tool-call-order"
    expects: ClassVar[str] = "tool_calls_order"
    config_fields = fields.OrderConfig
    criterion_fields = fields.OrderCriterion
    example = '"toolCallsOrder": ["lookup", "weather"]'

    def compare(self, settings: Any, expected: Any, calls: Sequence[ToolSpan]) -> tuple[float, str]:
        made = f"calls {[call.key for call in calls]}"
        score, common = order_score(calls, expected, settings.strict, matches_key)
        if common is None:
            return score, f"strict: {made} {'are' if score else 'are not'} exactly {expected}"
        return score, f"LCS {common} of expected {expected}; {made}"

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
        held, lines = 0, []
        for key, (comparator, wanted) in expected.items():
            count = counts.get(key)
            if count is None:
                count = counts.get(sanitize(key), 0)
            if comparator not in COMPARATORS:
                raise Unscorable(f"toolCallsCount[{key!r}] has the comparator {comparator!r}; use one of "
                                 f"{' '.join(COMPARATORS)}")
            ok = count_holds(comparator, count, wanted)
            lines.append(f"{key}: {count} {'✓' if ok else '✗'} {comparator} {wanted}")
            if settings.strict and not ok:
                return 0.0, f"strict: {lines[-1]}"  # the SDK stops at the first count that fails
            held += ok
        return share(held, len(expected), False), f"{held:g} of {len(expected)} counts hold: {'; '.join(lines)}"

    def shown(self, criterion: Any) -> Any:
        return {key: list(pair) for key, pair in self.expected(criterion).items()}


class _ExpectedCalls(ToolScorer):
    """The args and output types: each expected call paired with a distinct call of its tool that `holds` for it."""

    what: ClassVar[str]

    def holds(self, call: ToolSpan, want: Any) -> bool:
        raise NotImplementedError

    def missed(self, want: Any) -> str:
        raise NotImplementedError

    def paired(self, expected: Any, calls: Sequence[ToolSpan], first_of_tool: bool = False
               ) -> tuple[set[int], list[Any], list[tuple[int | None, bool]]]:
        """The core's pairing (`pair_calls`) with this type's rules: the calls paired with an expected one that
        holds, the expected calls left unpaired, and the pairs."""
        pairs = pair_calls(expected, calls, of_tool, self.holds, first_of_tool=first_of_tool)
        used = {hit for hit, held in pairs if hit is not None and held}
        return used, [want for want, (_, held) in zip(expected, pairs, strict=True) if not held], pairs

    def compare(self, settings: Any, expected: Any, calls: Sequence[ToolSpan]) -> tuple[float, str]:
        used, missed, _ = self.paired(expected, calls)
        said = matched_words(len(used), len(expected), self.what, [self.missed(want) for want in missed])
        score = share(len(used), len(expected), settings.strict)
        return score, f"strict: {said}" if settings.strict else said

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
        return args_hold(want.args, call.args, True, operator.eq)

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
            used, missed, _ = self.paired(expected, calls)
            words = [f"{self.missed(want)} (compared with {_outputs_of(want, calls, used)})" for want in missed]
            said = matched_words(len(used), len(expected), self.what, words)
            return share(len(used), len(expected), False), said + _json_text_note(calls, used, missed)
        used, missed, pairs = self.paired(expected, calls, first_of_tool=True)
        for want, (index, held) in zip(expected, pairs, strict=True):
            if index is None:
                return 0.0, f"strict: no call of {want.name} left to match"
            if not held:
                note = _json_text_note([calls[index]], set(), [want])
                return 0.0, (f"strict: {want.name} output {calls[index].output!r:.120}, expected "
                             f"{want.output!r:.120}{note}")
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
