"""The row detail of a scenario (seed 000): the screen and what the user said, then the listed actions
beside the actual ones — matched pairs on one line, a listed action nothing answered marked missing with
why, an actual action nothing asked for marked extra (or forbidden) — then the reply against its rules,
and the raw expect block beside the raw response."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import Static

from ...dialects.scenarios.align import ALLOWED, EXTRA, FORBIDDEN, MATCHED, MISSING, Alignment, align
from ...dialects.scenarios.expect import folded
from ...textsafe import one_line
from ..json_view import render_json
from .base import DetailContext, DetailView
from .common import explanation_text, meta_text, side_by_side, trace_text

_MARKS = {MATCHED: ("✓", "green"), MISSING: ("✗", "red"), EXTRA: ("+", "red"), ALLOWED: ("+", "dim"),
          FORBIDDEN: ("⛔", "bold red")}
_SHOWN_ROWS = 200
_COLUMN = 40  # characters per side


def request_text(inputs: dict[str, Any]) -> Text:
    """`Given SignupScreen · When "…" · model m`."""
    given = inputs.get("given") if isinstance(inputs.get("given"), dict) else {}
    text = Text("Given ", "bold")
    screen = given.get("screen") if isinstance(given, dict) else None
    text.append(one_line(screen, 60) if isinstance(screen, str) else "(no screen)", "" if screen else "dim")
    when = inputs.get("when")
    text.append("   When ", "bold").append(one_line(f'"{when}"' if isinstance(when, str) else "(nothing)", 300))
    if isinstance(inputs.get("model"), str):
        text.append(f"   model {one_line(inputs['model'], 60)}", "dim")
    return text


def actions_table(alignment: Alignment) -> Text:
    """Listed actions on the left, actual ones on the right: one line per pair or unmatched action."""
    if alignment.problem:
        return Text(one_line(alignment.problem, 300), "yellow")
    text = Text(f"Actions — mode {alignment.mode}", "bold")
    if alignment.alternatives:
        which = "matched" if alignment.ok else "the closest"
        text.append(f"  (anyOf[{alignment.alternative}] of {alignment.alternatives}, {which})", "dim")
    text.append(f"\n     {'expected'.ljust(_COLUMN)} actual", "dim")
    if not alignment.rows:
        text.append(f"\n     {'(none listed)'.ljust(_COLUMN)} (no actions)", "dim")
    for row in alignment.rows[:_SHOWN_ROWS]:
        mark, style = _MARKS.get(row.state, ("?", ""))
        expected = one_line(row.expected, _COLUMN - 1) if row.expected is not None else "—"
        actual = f"[{row.actual_index}] {one_line(row.actual or '', _COLUMN - 6)}" if row.actual is not None else "—"
        text.append(f"\n  {mark}  ", style)
        text.append(expected.ljust(_COLUMN), "" if row.expected is not None else "dim")
        text.append(" " + actual.ljust(_COLUMN), "" if row.actual is not None else "dim")
        if row.state != MATCHED:
            text.append(f" {row.state}", style)
            if row.note:
                text.append(f": {one_line(row.note, 200)}", "dim")
    if len(alignment.rows) > _SHOWN_ROWS:
        text.append(f"\n  … {len(alignment.rows) - _SHOWN_ROWS} more", "dim")
    return text


def reply_text(alignment: Alignment) -> Text:
    """The reply, then each reply rule with whether it holds."""
    text = Text("Reply  ", "bold")
    text.append(one_line(f'"{alignment.reply}"', 400) if alignment.reply else "(no reply)",
                "" if alignment.reply else "dim")
    reply = folded(alignment.reply)
    if alignment.must_contain:
        found = any(folded(item) in reply for item in alignment.must_contain)
        text.append("\n  must contain one of: ", "dim")
        text.append(", ".join(one_line(f'"{item}"', 60) for item in alignment.must_contain))
        text.append("  ✓" if found else "  ✗ none found", "green" if found else "red")
    for item in alignment.must_not_contain:
        present = folded(item) in reply
        text.append("\n  must not contain: ", "dim").append(one_line(f'"{item}"', 60))
        text.append("  ✗ found" if present else "  ✓", "red" if present else "green")
    return text


class ScenarioView(DetailView):
    """A scenario: the request, the actions aligned, the reply and its rules, the raw sides."""

    def compose(self) -> ComposeResult:
        yield Static(id="detail-meta")
        yield Static(id="detail-explanation")
        yield Static(id="scenario-request")
        yield Static(id="scenario-actions")
        yield Static(id="scenario-reply")
        yield side_by_side(("Expect", "scenario-expect"), ("Response", "scenario-response"))
        yield Static(id="detail-trace")

    def show_row(self, context: DetailContext) -> None:
        result, row = context.result, context.row
        expect = row.criteria.get(context.ref) if context.ref else None
        self.query_one("#detail-meta", Static).update(meta_text(context))
        self.query_one("#detail-explanation", Static).update(explanation_text(result))
        self.query_one("#scenario-request", Static).update(request_text(row.inputs))
        ran = result is not None and result.actual is not None and row.problem is None
        alignment = align(expect, result.actual) if ran and result is not None else None
        self.query_one("#scenario-actions", Static).update(
            actions_table(alignment) if alignment is not None else Text("Actions: not run yet", "dim"))
        self.query_one("#scenario-reply", Static).update(reply_text(alignment) if alignment else Text(""))
        self.query_one("#scenario-expect", Static).update(
            render_json(expect) if expect is not None else Text("(no expect)", "dim"))
        self.query_one("#scenario-response", Static).update(
            render_json(result.actual) if result is not None and result.actual is not None
            else Text("(no response)", "dim"))
        self.query_one("#detail-trace", Static).update(trace_text(result))
