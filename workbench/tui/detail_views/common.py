"""Pieces most row-detail views show the same way: the verdict line, the failure explanation, the
trace. A view for a new dialect reuses these and draws only what is its own."""

from __future__ import annotations

from rich.text import Text
from textual.containers import Horizontal, Vertical
from textual.widgets import Static

from ... import jsonio
from ...model import Result, Verdict
from ...report.text import format_duration
from ...textsafe import one_line, printable
from ..labels import compared, verdict_text
from .base import DetailContext


def meta_text(context: DetailContext) -> Text:
    """The picked evaluator's verdict, type, score and duration, and what it compares."""
    ref, result, evaluator = context.ref, context.result, context.evaluator
    meta = Text()
    if ref is None:
        meta.append("This set has no evaluatorRefs: nothing scores its rows.", "yellow")
    elif result is None:
        meta.append_text(verdict_text(None))
        meta.append(f" {one_line(ref, 40)}: not run yet", "dim")
    else:
        meta.append_text(verdict_text(result.verdict, word=True))
        meta.append(f"  {one_line(ref, 40)}", "bold")
        if result.evaluator_type:
            meta.append(f" ({one_line(result.evaluator_type, 50)})", "dim")
        meta.append(f"  score {result.score:.2f}  ·  {format_duration(result.duration_ms)}")
    if evaluator is not None:
        meta.append(f"\ncompares {one_line(', '.join(compared(evaluator)), 100)}", "dim")
    return meta


def explanation_text(result: Result | None) -> Text:
    """Why a row failed or errored (empty for a pass)."""
    if result is None or result.verdict is Verdict.PASS or not result.detail:
        return Text("")
    style = "red" if result.verdict is Verdict.FAIL else "yellow"
    heading = "Differences" if result.verdict is Verdict.FAIL else "Error"
    text = Text(f"{heading}\n", f"bold {style}")
    text.append(printable(result.detail), style)
    return text


def trace_text(result: Result | None) -> Text:
    """The first 200 trace events, tool calls with their arguments."""
    if result is None or not result.trace:
        return Text("")
    text = Text(f"Trace ({len(result.trace)} events)\n", "bold")
    for event in result.trace[:200]:
        kind = event.get("type", "?") if isinstance(event, dict) else "?"
        if kind == "tool_call":
            text.append(f"  tool_call {one_line(str(event.get('name')), 60)}", "cyan")
            text.append(f"  args {one_line(jsonio.dumps(event.get('args', {})), 120)}\n", "dim")
        else:
            text.append(f"  {one_line(jsonio.dumps(event), 160)}\n", "dim")
    return text


def side_by_side(left: tuple[str, str], right: tuple[str, str]) -> Horizontal:
    """Two titled panes next to each other (`(title, id of the Static below it)` each): what is
    expected on the left, what happened on the right."""
    def side(title: str, ident: str) -> Vertical:
        return Vertical(Static(Text(title, "bold"), classes="detail-heading"), Static(id=ident), classes="detail-side")

    return Horizontal(side(*left), side(*right), id="detail-sides")
