"""The row detail of a scripted replay (seed 001): how the run ended, then every step of the script
with the state it reached — done, waiting for approval, denied, failed, not reached — the approval
decisions, and where the run stopped; then the expectations and the trace."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import Static

from ... import jsonio
from ...dialects.replays.outline import DENIED, DONE, FAILED, NOT_REACHED, NOT_RUN, WAITING, Outline, outline
from ...textsafe import one_line
from ..json_view import render_json
from .base import DetailContext, DetailView
from .common import explanation_text, meta_text, trace_text

_MARKS = {DONE: ("✓", "green"), WAITING: ("⏸", "yellow"), DENIED: ("✗", "red"), FAILED: ("✗", "red"),
          NOT_REACHED: ("·", "dim"), NOT_RUN: ("·", "dim")}
_STATUS_STYLE = {"completed": "green", "waiting": "yellow", "failed": "red"}
_SHOWN_STEPS = 300


def run_text(plan: Outline) -> Text:
    """`Run: waiting at script[0]` and the final output, or that it has not run."""
    text = Text("Run ", "bold")
    if plan.status is None:
        return text.append("not run yet", "dim")
    text.append(one_line(plan.status, 20), f"bold {_STATUS_STYLE.get(plan.status, '')}".strip())
    if plan.stopped_at is not None:
        text.append(f"  stopped at script[{plan.stopped_at}]")
    if plan.detail:
        text.append(f"\n{one_line(str(plan.detail), 300)}", _STATUS_STYLE.get(plan.status, ""))
    shown = "(no output)" if plan.output is None else one_line(
        plan.output if isinstance(plan.output, str) else jsonio.dumps(plan.output), 300)
    return text.append(f"\noutput: {shown}", "dim" if plan.output is None else "")


def steps_text(plan: Outline) -> Text:
    text = Text(f"Steps ({len(plan.steps)})\n", "bold")
    if not plan.steps:
        return text.append("  (the script has no steps)", "dim")
    for line in plan.steps[:_SHOWN_STEPS]:
        mark, style = _MARKS.get(line.state, ("?", ""))
        text.append(f"  {mark} ", style)
        text.append(f"[{line.index}] {one_line(line.kind, 20)} ", "bold" if line.state != NOT_REACHED else "dim")
        text.append(one_line(line.summary, 160), "dim" if line.state in (NOT_REACHED, NOT_RUN) else "")
        if line.state not in (DONE, NOT_RUN):
            text.append(f"  {line.state}", style)
        if line.note:
            text.append(f" — {one_line(line.note, 200)}", style)
        text.append("\n")
    if len(plan.steps) > _SHOWN_STEPS:
        text.append(f"  … {len(plan.steps) - _SHOWN_STEPS} more steps\n", "dim")
    return text


class ReplayView(DetailView):
    """A scripted case: the run's end, its steps as they went, and what it expects."""

    def compose(self) -> ComposeResult:
        yield Static(id="detail-meta")
        yield Static(id="detail-explanation")
        yield Static(id="replay-run")
        yield Static(id="replay-steps")
        yield Static(Text("Expect", "bold"), classes="detail-heading")
        yield Static(id="replay-expect")
        yield Static(id="detail-trace")

    def show_row(self, context: DetailContext) -> None:
        result, row = context.result, context.row
        script = (result.inputs if result is not None and result.inputs else row.inputs).get("script")
        plan = outline(script, result.trace if result is not None else None,
                       result.actual if result is not None else None)
        self.query_one("#detail-meta", Static).update(meta_text(context))
        self.query_one("#detail-explanation", Static).update(explanation_text(result))
        self.query_one("#replay-run", Static).update(run_text(plan))
        self.query_one("#replay-steps", Static).update(steps_text(plan))
        expect = row.criteria.get(context.ref) if context.ref else None
        self.query_one("#replay-expect", Static).update(
            render_json(expect) if expect else Text("(nothing expected: only wiring mistakes fail it)", "dim"))
        self.query_one("#detail-trace", Static).update(trace_text(result))
