"""The row detail of a UiPath coded agent eval (`uipath eval`'s evaluations/): for the evaluator picked in the
tabs, its id, type and score, why it scored so (the scorer's words: a graded score against its threshold, the
longest common subsequence of tool calls, the matched leaves...), then what it compared — the expected
value beside the actual one at its targetOutputKey for an output evaluator, the expected tool calls and the
ones recorded from the row's spans (name, arguments, output) for a tool-call evaluator — then every
evaluator of the row with its score, the inputs and the whole output."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Static

from ...dialects.detail import differing_paths
from ...dialects.uipath_coded.html import (
    JSON_TEXT_NOTE,
    OUTPUT_TYPE,
    Compared,
    call_text,
    compared,
    compared_text,
    criterion_of,
    expected_calls,
    expected_heading,
    is_tool_evaluator,
    options,
    output_text,
    recorded_calls,
)
from ...dialects.uipath_coded.tool_spans import is_json_string
from ...model import Result, Verdict
from ...report.text import format_duration
from ...textsafe import one_line, printable
from ..json_view import render_json
from ..labels import verdict_text
from .base import DetailContext, DetailView

_SHOWN_CALLS = 200
_TONE = {Verdict.PASS: "dim", Verdict.FAIL: "red", Verdict.ERROR: "yellow"}


def meta_text(context: DetailContext) -> Text:
    """The picked evaluator: verdict, id and score, then its type, what changes its comparison, the duration."""
    ref, result, evaluator = context.ref, context.result, context.evaluator
    if ref is None:
        return Text("This set has no evaluatorRefs: nothing scores its rows.", "yellow")
    type_id = result.evaluator_type if result is not None else evaluator.type_id if evaluator else None
    text = verdict_text(result.verdict if result is not None else None, word=result is not None)
    text.append(f"  {one_line(ref, 60)}", "bold")
    if result is not None and result.verdict is not Verdict.ERROR:
        text.append(f" · score {result.score:.4g}")  # a graded score's justification names its threshold
    facts = ([one_line(type_id, 60)] if type_id else []) + options(evaluator)
    if result is not None:
        facts.append(format_duration(result.duration_ms))
    elif ref not in context.row.criteria:
        facts.append("not scored: this row has no criterion for it (the SDK skips it)")
    else:
        facts.append("not run yet")
    return text.append("\n" + " · ".join(facts), "dim")


def why_text(context: DetailContext) -> Text:
    """Why it scored so, in the scorer's words: red for a FAIL, yellow for an ERROR, dim for a PASS."""
    result = context.result
    if result is None:
        return Text("Error\n" + printable(context.row.problem), "yellow") if context.row.problem else Text("")
    if not result.detail:
        return Text("")
    text = Text("Error\n", "bold yellow") if result.verdict is Verdict.ERROR else Text()
    return text.append(printable(result.detail), _TONE[result.verdict])


def side_text(value: Any, nothing: str, highlight: list[tuple[str | int, ...]] | None = None) -> Text:
    """A value as indented JSON, the differing paths marked; `nothing` (dim) when there is none."""
    return render_json(value, highlight=highlight or ()) if value is not None else Text(nothing, "dim")


def tools_text(context: DetailContext, criterion: dict[str, Any] | None, scored_by_tools: bool) -> Text:
    """The tool calls the evaluator expects (a tool-call evaluator), then those the row's spans recorded."""
    result = context.result
    type_id = result.evaluator_type if result is not None else context.evaluator.type_id if context.evaluator else None
    text = Text()
    if scored_by_tools:
        text.append(f"{expected_heading(type_id)}\n", "bold")
        lines = expected_calls(type_id, criterion)
        for line in lines:
            text.append(f"  {one_line(line, 300)}\n")
        if not lines:
            text.append("  (no tool calls written in the criterion)\n", "dim")
        text.append("\n")
    if result is None or (result.actual is None and not result.trace):
        return text.append("Tool calls: not run yet" if result is None else "Tool calls: none (the row did not run)",
                           "dim")
    calls = recorded_calls(result.trace)
    text.append(f"Tool calls recorded ({len(calls)})", "bold")
    if not calls:
        text.append("\n  (no span with a tool.name: tools are recorded by @traced(span_type=\"tool\"))", "dim")
    for number, call in enumerate(calls[:_SHOWN_CALLS], 1):
        text.append(f"\n  {number}. ").append(one_line(call_text(call), 300), "cyan")
        if type_id == OUTPUT_TYPE and compared_text(call):
            text.append(f"\n     → compared as {one_line(compared_text(call), 300)}")
        elif output_text(call):
            text.append(f"\n     → {one_line(output_text(call), 300)}")
    if len(calls) > _SHOWN_CALLS:
        text.append(f"\n  … {len(calls) - _SHOWN_CALLS} more", "dim")
    if type_id == OUTPUT_TYPE and any(is_json_string(call.compared) for call in calls):
        text.append(f"\n  ({JSON_TEXT_NOTE})", "dim")
    return text


def evaluators_text(context: DetailContext) -> Text:
    """Every evaluator of the set for this row: its verdict and score, or why it does not score the row."""
    text = Text(f"Evaluators ({len(context.eval_set.evaluator_refs)})", "bold")
    for ref in context.eval_set.evaluator_refs:
        result = context.results.get(ref)
        text.append("\n  ").append_text(verdict_text(result.verdict if result is not None else None))
        text.append(f" {one_line(ref, 40)}", "bold" if ref == context.ref else "")
        if result is not None:
            text.append(f"  {result.score:.4g}")
        elif ref not in context.row.criteria:
            text.append("  not scored (no criterion)", "dim")
        else:
            text.append("  not run yet", "dim")
    return text


class CodedAgentView(DetailView):
    """A coded agent row under the picked evaluator: score and why, what it compared, its tool calls."""

    DEFAULT_CSS = """
    CodedAgentView #coded-tools, CodedAgentView #coded-evaluators, CodedAgentView #coded-output {
        height: auto;
        margin-bottom: 1;
    }
    CodedAgentView #detail-sides {
        margin-bottom: 1;
    }
    #detail.stacked CodedAgentView #detail-sides {
        margin-bottom: 0;  /* each stacked side keeps its own margin below */
    }
    """

    def compose(self) -> ComposeResult:
        yield Static(id="detail-meta")
        yield Static(id="detail-explanation")
        with Horizontal(id="detail-sides"):
            with Vertical(classes="detail-side"):
                yield Static(id="coded-expected-title", classes="detail-heading")
                yield Static(id="detail-expected")
            with Vertical(classes="detail-side"):
                yield Static(id="coded-actual-title", classes="detail-heading")
                yield Static(id="detail-actual")
        yield Static(id="coded-tools")
        yield Static(id="coded-evaluators")
        yield Static(Text("Inputs", "bold"), classes="detail-heading")
        yield Static(id="detail-inputs")
        yield Static(id="coded-output")

    def show_row(self, context: DetailContext) -> None:
        result, row, evaluator = context.result, context.row, context.evaluator
        type_id = result.evaluator_type if result is not None else evaluator.type_id if evaluator else None
        by_tools = is_tool_evaluator(type_id)
        criterion = criterion_of(row, context.ref, evaluator) if context.ref else None
        self.query_one("#detail-meta", Static).update(meta_text(context))
        why = why_text(context)
        explanation = self.query_one("#detail-explanation", Static)
        explanation.update(why)
        explanation.display = bool(why.plain)
        self.query_one("#detail-sides").display = context.ref is not None and not by_tools
        if context.ref is not None and not by_tools:
            self._show_sides(context, compared(evaluator, criterion, result), result)
        self.query_one("#coded-tools", Static).update(tools_text(context, criterion, by_tools))
        self.query_one("#coded-evaluators", Static).update(evaluators_text(context))
        self.query_one("#detail-inputs", Static).update(render_json(result.inputs if result and result.inputs
                                                                    else row.inputs))
        output = Text("Output\n", "bold")
        output.append_text(side_text(result.actual if result is not None else None,
                                     "(no output)" if result is not None else "(not run yet)"))
        self.query_one("#coded-output", Static).update(output)

    def _show_sides(self, context: DetailContext, sides: Compared, result: Result | None) -> None:
        """Expected beside actual at the evaluator's key (stacked in a narrow pane)."""
        self.query_one("#coded-expected-title", Static).update(Text(one_line(sides.expected_title, 70), "bold"))
        self.query_one("#coded-actual-title", Static).update(Text(one_line(sides.actual_title, 70), "bold"))
        highlight: list[tuple[str | int, ...]] = []
        if result is not None and result.verdict is Verdict.FAIL and sides.actual is not None:
            highlight = [tuple(path) for path in differing_paths(sides.actual, sides.expected)]
        expected = side_text(sides.expected, "(nothing expected)", highlight)
        if sides.problem:
            expected = Text(one_line(sides.problem, 300), "yellow")
        self.query_one("#detail-expected", Static).update(expected)
        nothing = "(not run yet)" if result is None else "(no output)"
        self.query_one("#detail-actual", Static).update(side_text(sides.actual, nothing, highlight))
        # a failing row opens at its first differing line, as the default view does (with its title above it)
        self.open_at_difference(context, self.query_one("#detail-expected", Static), expected, heading=1)
