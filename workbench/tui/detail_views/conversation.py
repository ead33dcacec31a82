"""The row detail for conversation evals: the transcript turn by turn — user message or event, the
bot's reply, its tool calls, the state it changed, its workflows, the time it took — with each
assertion's ✔ / ✘ beside its turn, then the outcome. Before a row has run, its turns and assertions
are shown as written. When a row's result arrives, the first failing turn is scrolled into view."""

from __future__ import annotations

import dataclasses
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from ...model import Result, Verdict
from ...textsafe import one_line, printable
from .base import DetailContext, DetailView
from .common import explanation_text, meta_text, trace_text
from .conversation_text import planned_marks, turn_block


def _about(spec: dict[str, Any]) -> Text:
    """The eval's description, type and tags."""
    text = Text()
    if isinstance(spec.get("description"), str):
        text.append(one_line(spec["description"], 200), "italic")
    facts = [f"type {spec['type']}"] if isinstance(spec.get("type"), str) else []
    if isinstance(spec.get("tags"), list):
        facts.append("tags " + ", ".join(one_line(str(t), 30) for t in spec["tags"]))
    if facts:
        text.append(("   " if text else "") + " · ".join(facts), "dim")
    return text


def _explanation(context: DetailContext) -> Text:
    """An ERROR's whole detail (the turn that stopped, the rules broken); a FAIL's count of failures."""
    result = context.result
    if result is not None and result.verdict is Verdict.ERROR:
        return explanation_text(result)
    if result is None and context.row.problem:
        return Text("Error\n" + printable(context.row.problem), "yellow")
    if result is not None and result.verdict is Verdict.FAIL and result.detail:
        return Text(one_line(result.detail.splitlines()[0], 200), "bold red")
    return Text("")


def _marks_by_turn(result: Result | None) -> dict[int | None, list[dict[str, Any]]]:
    found: dict[int | None, list[dict[str, Any]]] = {}
    expected = result.expected if result is not None else None
    for mark in expected.get("assertions", []) if isinstance(expected, dict) else []:
        if isinstance(mark, dict):
            found.setdefault(mark.get("turn"), []).append(mark)
    return found


def transcript_blocks(spec: dict[str, Any], result: Result | None) -> list[tuple[Text, bool]]:
    """(block, whether something failed there) for the setup, every turn and the outcome."""
    actual = result.actual if result is not None else None
    transcript: dict[str, Any] = actual if isinstance(actual, dict) else {}
    turns_run = transcript.get("turns")
    records: list[Any] = turns_run if isinstance(turns_run, list) else []
    stopped_at = transcript.get("stopped")
    stopped: dict[str, Any] = stopped_at if isinstance(stopped_at, dict) else {}
    ran = result is not None and bool(transcript)
    marks = _marks_by_turn(result)
    blocks: list[tuple[Text, bool]] = []
    setup = spec.get("setup")
    if isinstance(setup, dict) and isinstance(setup.get("workflow"), dict):
        note = f"stopped here: {stopped.get('error')}" if stopped.get("turn") == 0 else None
        record = transcript.get("setup") if isinstance(transcript.get("setup"), dict) else None
        blocks.append((turn_block("Setup workflow", {"setup": setup["workflow"]}, record, [], note), bool(note)))
    conversation = spec.get("conversation")
    turns: list[Any] = conversation if isinstance(conversation, list) else []
    for number, turn in enumerate(turns, 1):
        turn = turn if isinstance(turn, dict) else {}
        record = records[number - 1] if number <= len(records) else None
        note = f"stopped here: {stopped.get('error')}" if stopped.get("turn") == number else None
        if ran and record is None and note is None:
            note = "not run (the conversation stopped earlier)"
        shown = marks.get(number, []) if ran else planned_marks(turn)
        failed = bool(stopped.get("turn") == number) or any(m.get("verdict") not in ("PASS", "?") for m in shown)
        blocks.append((turn_block(f"Turn {number}", turn, record, shown, note), failed))
    outcome = marks.get(None, [])
    if outcome or (not ran and isinstance(spec.get("outcome"), dict)):
        shown = outcome or planned_marks({"assert": spec["outcome"]})
        failed = any(m.get("verdict") not in ("PASS", "?") for m in shown)
        blocks.append((turn_block("Outcome", {}, None, shown), failed))
    return blocks


class ConversationView(DetailView):
    """Meta line, what went wrong (for an ERROR), then one block per turn."""

    DEFAULT_CSS = """
    ConversationView #conversation-turns {
        height: auto;
    }
    ConversationView .conversation-turn {
        margin-top: 1;
    }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._shown: tuple[object, ...] | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="detail-meta")
        yield Static(id="conversation-about")
        yield Static(id="detail-explanation")
        yield Vertical(id="conversation-turns")
        yield Static(id="detail-trace")

    def show_row(self, context: DetailContext) -> None:
        result, spec = context.result, context.row.raw if isinstance(context.row.raw, dict) else {}
        self.query_one("#detail-meta", Static).update(meta_text(dataclasses.replace(context, evaluator=None)))
        self.query_one("#conversation-about", Static).update(_about(spec))
        self.query_one("#detail-explanation", Static).update(_explanation(context))
        blocks = transcript_blocks(spec, result)
        widgets = self._turn_widgets(len(blocks))
        for widget, (text, _failed) in zip(widgets, blocks, strict=False):
            widget.update(text)
            widget.display = True
        for widget in widgets[len(blocks):]:
            widget.display = False
        self.query_one("#detail-trace", Static).update(trace_text(result))
        shown = (context.eval_set.key_of(context.row), id(result))
        if shown != self._shown:
            self._shown = shown
            first = next((w for w, (_, failed) in zip(widgets, blocks, strict=False) if failed), None)
            if first is not None:
                self.scroll_widget_to_top(first)

    def _turn_widgets(self, count: int) -> list[Static]:
        """One Static per block, reused from row to row; more are mounted only when a row needs them."""
        holder = self.query_one("#conversation-turns", Vertical)
        widgets = list(holder.query(Static).results(Static))
        if len(widgets) < count:
            fresh = [Static(classes="conversation-turn") for _ in range(count - len(widgets))]
            holder.mount_all(fresh)
            widgets += fresh
        return widgets
