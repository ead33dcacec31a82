"""The default row detail: the verdict and the differences, expected vs actual side by side with the
differences highlighted and the evaluator's targetOutputKey selection made visible (the error detail for
ERROR rows), then the inputs and the trace.
This is the view for the UiPath dialect and for any dialect that registers none of its own."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import Static

from ...compare import Path, differences
from ...model import Verdict
from ...output_paths import MISSING, select, selected_paths
from ..json_view import render_json
from .base import DetailContext, DetailView
from .common import explanation_text, meta_text, side_by_side, trace_text


def diff_paths(actual: Any, expected: Any, selected: list[Path] | None) -> list[Path]:
    """Absolute paths where the two sides differ, within the selection."""
    found: list[Path] = []
    for base in selected if selected is not None else [()]:
        dotted = ".".join(str(part) for part in base) or "*"
        a, e = select(actual, dotted), select(expected, dotted)
        if a is MISSING or e is MISSING:
            found.append(base)
            continue
        found.extend((*base, *d.path) for d in differences(a, e, limit=50))
    return found


class ExpectedActualView(DetailView):
    """Inputs, then what the row expects beside what the target produced."""

    def compose(self) -> ComposeResult:
        # the verdict and the differences first, then what differs, then what the row gave the target (issue 38)
        yield Static(id="detail-meta")
        yield Static(id="detail-explanation")
        yield side_by_side(("Expected", "detail-expected"), ("Actual", "detail-actual"))
        yield Static(Text("Inputs", "bold"), classes="detail-heading")
        yield Static(id="detail-inputs")
        yield Static(id="detail-trace")

    def show_row(self, context: DetailContext) -> None:
        result, row = context.result, context.row
        target = context.evaluator.target_output_key if context.evaluator else "*"
        parsed = selected_paths(target)
        selected: list[Path] | None = None if parsed is None else [tuple(p) for p in parsed]
        self.query_one("#detail-meta", Static).update(meta_text(context))
        self.query_one("#detail-explanation", Static).update(explanation_text(result))
        self.query_one("#detail-inputs", Static).update(render_json(row.inputs))
        expected = result.expected if result is not None else row.expected_for(context.ref)
        actual = result.actual if result is not None else None
        highlight: list[Path] = []
        if result is not None and result.verdict is Verdict.FAIL and actual is not None:
            try:
                highlight = diff_paths(actual, expected, selected)
            except (RecursionError, TypeError):
                highlight = []
        expected_text = (render_json(expected, highlight=highlight, selected=selected)
                         if expected is not None else Text("(no expectedOutput)", "dim"))
        self.query_one("#detail-expected", Static).update(expected_text)
        self.query_one("#detail-actual", Static).update(
            render_json(actual, highlight=highlight, selected=selected)
            if actual is not None else Text("(no output)", "dim"))
        self.query_one("#detail-trace", Static).update(trace_text(result))
        self.open_at_difference(context, self.query_one("#detail-expected", Static), expected_text)
