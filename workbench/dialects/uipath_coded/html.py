"""A coded agent row's detail, as the HTML report draws it (`HasHtmlDetail.html_detail`) and as plain facts the TUI's
`CodedAgentView` draws too: for an output evaluator, the expected value beside the actual one at its
`targetOutputKey` (as `uipath eval` selects them: numbers as floats); for a tool-call evaluator, the calls it
expects beside the calls recorded from the row's spans (name, arguments, output), in the order they ended;
then the row's inputs and the whole output."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ... import jsonio
from ...model import EvaluatorDef, Result, Row, Verdict
from ...scoring import scorer_of
from ..detail import Block, RowDetail, differing_paths, json_block, sides, step, steps_block, text_block
from .criteria import coded_criterion
from .outputs import WHOLE, SelectionError, actual_value, expected_value
from .tool_spans import SpanError, tool_spans

TOOL_PREFIX = "uipath-tool-call-"
BOOLEAN_TYPES = frozenset({"uipath-exact-match", "uipath-contains"})
SEARCH_TYPE = "uipath-contains"


def is_tool_evaluator(type_id: str | None) -> bool:
    """Scored from the row's tool calls (its spans), not from its output."""
    return bool(type_id) and str(type_id).startswith(TOOL_PREFIX)


def options(evaluator: EvaluatorDef | None) -> list[str]:
    """The evaluatorConfig switches that change the comparison, in words."""
    if evaluator is None:
        return []
    config, words = evaluator.config, []
    if evaluator.type_id in BOOLEAN_TYPES:
        words.append("case-sensitive" if config.get("caseSensitive") is True else "not case-sensitive")
    for key, word in (("negated", "negated"), ("strict", "strict"), ("subset", "subset")):
        if config.get(key) is True:
            words.append(word)
    return words


def criterion_of(row: Row | None, ref: str, evaluator: EvaluatorDef | None) -> dict[str, Any] | None:
    """The criterion the row is scored with by `ref` (its own, the evaluator's default, the row's
    expectedOutput injected), or None when there is none to show."""
    if row is None or evaluator is None:
        return None
    scorer = scorer_of(evaluator)
    if scorer is None:
        return None
    found = coded_criterion(row, ref, evaluator, scorer)
    return found if isinstance(found, dict) else None


@dataclass(frozen=True, slots=True)
class Compared:
    """What an output evaluator compares: the titles of the two sides ("Expected (capital)"), their values
    (None: nothing to show on that side) and why a side can't be shown."""

    expected_title: str
    expected: Any
    actual_title: str
    actual: Any
    problem: str = ""


def _key_words(key: Any) -> str:
    if isinstance(key, list):
        return ", ".join(str(part) for part in key)
    return "the whole output" if key == WHOLE else str(key)


def compared(evaluator: EvaluatorDef | None, criterion: dict[str, Any] | None, result: Result | None) -> Compared:
    """The two sides an output evaluator compares, selected as the SDK selects them."""
    key = evaluator.target_output_key if evaluator is not None else WHOLE
    what, problems = _key_words(key), []
    expected: Any = None
    expected_title = f"Expected ({what})"
    if criterion is not None and evaluator is not None and evaluator.type_id == SEARCH_TYPE:
        expected, expected_title = criterion.get("searchText"), "Expected in it (searchText)"
    elif criterion is not None and "expectedOutput" in criterion:
        try:
            expected = expected_value(criterion["expectedOutput"], key)
        except SelectionError as exc:
            problems.append(str(exc))
    elif result is not None and result.expected is not None:
        expected = result.expected
    actual: Any = None
    if result is not None and result.actual is not None:
        try:
            actual = actual_value(result.actual, key)
        except SelectionError as exc:
            problems.append(str(exc))
    return Compared(expected_title, expected, f"Actual ({what})", actual, "; ".join(problems))


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One recorded tool call: its name (and `tool.id`), arguments and output as the span holds them, and the
    output's text as the tool-call-output evaluator compares it (`compared`: a string's JSON text, quotes
    included)."""

    name: str
    id: str | None
    args: dict[str, Any]
    output: Any
    compared: str = ""


def recorded_calls(trace: list[dict[str, Any]]) -> list[ToolCall]:
    """The row's tool calls, in the order their spans ended: the spans the tool-call evaluators read."""
    calls = []
    for event in trace:
        try:
            found = tool_spans([event], args=True, outputs=True)
        except SpanError:
            found = []
        for call in found:
            output = event.get("output") if isinstance(event, dict) else None
            calls.append(ToolCall(call.name, call.id, call.args, output, call.output))
    return calls


_HEADINGS = {"order": "Expected order", "count": "Expected counts", "args": "Expected calls and arguments",
             "output": "Expected outputs"}


def expected_heading(type_id: str | None) -> str:
    """What a tool-call evaluator's expectation is called: `Expected order` for tool-call-order."""
    return _HEADINGS.get(str(type_id).removeprefix(TOOL_PREFIX), "Expected")


def expected_calls(type_id: str | None, criterion: dict[str, Any] | None) -> list[str]:
    """What a tool-call evaluator expects, one line per expected call (or count)."""
    if criterion is None:
        return []
    if type_id == f"{TOOL_PREFIX}order":
        order = criterion.get("toolCallsOrder")
        return [" → ".join(str(name) for name in order)] if isinstance(order, list) and order else []
    if type_id == f"{TOOL_PREFIX}count":
        counts = criterion.get("toolCallsCount")
        return [f"{name}: {_count_words(rule)}" for name, rule in counts.items()] if isinstance(counts, dict) else []
    listed = criterion.get("toolCalls" if type_id == f"{TOOL_PREFIX}args" else "toolOutputs")
    lines = []
    for item in listed if isinstance(listed, list) else []:
        if not isinstance(item, dict):
            continue
        name = str(item.get("id") or item.get("name"))
        detail = item.get("args") if "args" in item else item.get("output")
        lines.append(f"{name} {one_value(detail)}" if detail is not None else name)
    return lines


_COUNT_WORDS = {"=": "exactly", "==": "exactly", ">=": "at least", ">": "more than", "<=": "at most",
                "<": "fewer than", "!=": "not"}


def _count_words(rule: Any) -> str:
    """`[">=", 2]` as "at least 2"."""
    if isinstance(rule, list | tuple) and len(rule) == 2 and isinstance(rule[0], str):
        return f"{_COUNT_WORDS.get(rule[0], rule[0])} {one_value(rule[1])}"
    return one_value(rule)


def one_value(value: Any, limit: int = 200) -> str:
    """A value on one line, as JSON (a string without quotes stays readable: its JSON form)."""
    text = jsonio.dumps(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def call_text(call: ToolCall) -> str:
    """A call as it was made: `find_capital(country="France")` (an id after the name: `search#call_1(...)`)."""
    name = call.name if call.id is None else f"{call.name}#{call.id}"
    return f"{name}({', '.join(f'{key}={one_value(value, 80)}' for key, value in call.args.items())})"


OUTPUT_TYPE = f"{TOOL_PREFIX}output"
JSON_TEXT_NOTE = "a string a tool returns is compared as its JSON text, quotes included (as the SDK compares it)"


def compared_text(call: ToolCall) -> str:
    """The output as tool-call-output compares it, on one line as JSON ("" when there is none): `"\\"Nairobi\\""`
    for a tool that returned the string Nairobi."""
    return one_value(call.compared) if call.compared else ""


def output_text(call: ToolCall) -> str:
    """What the tool returned, on one line ("" when its span recorded nothing)."""
    return "" if call.output is None else one_value(call.output)


# -- the HTML report's blocks --------------------------------------------------------------------------


def _output_blocks(detail: RowDetail, criterion: dict[str, Any] | None) -> list[Block]:
    result = detail.result
    sides_of = compared(detail.evaluator, criterion, result)
    blocks: list[Block] = []
    if sides_of.problem:
        blocks.append(text_block("Compared", sides_of.problem, "error"))
    differ = (differing_paths(sides_of.actual, sides_of.expected)
              if result.verdict is Verdict.FAIL and sides_of.actual is not None else [])
    blocks.append(sides(sides_of.expected_title, sides_of.expected, sides_of.actual_title, sides_of.actual,
                        differ=differ))
    return blocks


def _tool_blocks(detail: RowDetail, criterion: dict[str, Any] | None) -> list[Block]:
    result = detail.result
    expected = expected_calls(result.evaluator_type, criterion)
    blocks = [text_block(expected_heading(result.evaluator_type), "\n".join(expected) if expected else "(none written)",
                         "" if expected else "dim")]
    calls = recorded_calls(result.trace)
    items = [step(str(number), "", [call_text(call), output_text(call)]) for number, call in enumerate(calls, 1)]
    blocks.append(steps_block(f"Tool calls recorded ({len(calls)})", ["call", "output"], items))
    return blocks


def detail_blocks(detail: RowDetail) -> list[Block]:
    """Inputs, then what the evaluator compared: expected | actual at its key, or the tool calls."""
    result = detail.result
    inputs = result.inputs or (detail.row.inputs if detail.row is not None else {})
    criterion = criterion_of(detail.row, result.evaluator, detail.evaluator)
    words = options(detail.evaluator)
    blocks = [json_block("Inputs", inputs)]
    if words:
        blocks.append(text_block("Options", ", ".join(words), "dim"))
    if is_tool_evaluator(result.evaluator_type):
        blocks += _tool_blocks(detail, criterion)
    else:
        blocks += _output_blocks(detail, criterion)
    blocks.append(json_block("Output", result.actual, collapsed=True))
    return blocks

