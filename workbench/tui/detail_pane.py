"""The row detail: inputs, expected vs actual side by side with the differences highlighted and the
evaluator's targetOutputKey selection made visible, the error detail for ERROR rows, and the trace."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Static, Tab, Tabs

from .. import jsonio
from ..compare import Path, differences
from ..model import EvalSet, Result, Row, Verdict
from ..output_paths import MISSING, SelectionError, describe_target, normalize_target, select, split_path
from ..report.text import format_duration
from ..textsafe import one_line, printable
from .json_view import render_json
from .labels import plain, verdict_text
from .state import RUNNING, RunState


def _selected_paths(target: Any) -> list[Path] | None:
    """The paths a targetOutputKey selects, or None when it selects the whole value."""
    try:
        paths = normalize_target(target)
    except SelectionError:
        return None
    if any(not split_path(p) for p in paths):
        return None
    return [tuple(split_path(p)) for p in paths]


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


class RowDetail(VerticalScroll, can_focus=True):
    """Everything about the selected row under the selected evaluator."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left,[", "evaluator(-1)", "Prev evaluator", show=False),
        Binding("right,]", "evaluator(1)", "Next evaluator", show=False),
        Binding("escape", "back", "Back to rows", show=False),
    ]

    def __init__(self, state: RunState, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.state = state
        self.row: tuple[EvalSet, Row] | None = None
        self.evaluator_index = 0
        self._generation = 0

    def compose(self) -> ComposeResult:
        yield Static(Text("Select a row to see its inputs, expected and actual output.", "dim"), id="detail-title")
        with Vertical(id="detail-body"):
            yield Tabs(id="detail-evaluators")
            yield Static(id="detail-meta")
            yield Static(id="detail-explanation")
            yield Static(Text("Inputs", "bold"), classes="detail-heading")
            yield Static(id="detail-inputs")
            with Horizontal(id="detail-sides"):
                with Vertical(classes="detail-side"):
                    yield Static(Text("Expected", "bold"), classes="detail-heading")
                    yield Static(id="detail-expected")
                with Vertical(classes="detail-side"):
                    yield Static(Text("Actual", "bold"), classes="detail-heading")
                    yield Static(id="detail-actual")
            yield Static(id="detail-trace")

    # -- showing -------------------------------------------------------------------------------------

    def show_message(self, text: Text) -> None:
        """Show a note instead of a row (nothing selected, or a file problem)."""
        self.row = None
        self.query_one("#detail-title", Static).update(text)
        self.query_one("#detail-body").display = False

    def show(self, found: tuple[EvalSet, Row] | None) -> None:
        changed = found is None or self.row is None or found[0].file_name != self.row[0].file_name or \
            found[1].id != self.row[1].id
        self.row = found
        if changed:
            self.evaluator_index = 0
            self._rebuild_tabs()
        self.refresh_detail()

    def _rebuild_tabs(self) -> None:
        tabs = self.query_one("#detail-evaluators", Tabs)
        tabs.clear()
        self._generation += 1  # removed tabs linger until the next refresh: never reuse their ids
        refs = self.row[0].evaluator_refs if self.row else []
        for index, ref in enumerate(refs):
            tabs.add_tab(Tab(plain(ref, 30), id=self._tab_id(index)))
        tabs.display = len(refs) > 1
        if refs:
            tabs.active = self._tab_id(self.evaluator_index)

    def _tab_id(self, index: int) -> str:
        return f"evaluator-{self._generation}-{index}"

    @property
    def current_ref(self) -> str | None:
        if self.row is None or not self.row[0].evaluator_refs:
            return None
        refs = self.row[0].evaluator_refs
        return refs[min(self.evaluator_index, len(refs) - 1)]

    @property
    def current_result(self) -> Result | None:
        ref = self.current_ref
        if self.row is None or ref is None:
            return None
        eval_set, row = self.row
        return self.state.results.get((eval_set.scope, eval_set.file_name, row.id, ref))

    def on_tabs_tab_activated(self, event: Tabs.TabActivated) -> None:
        event.stop()
        if event.tab is not None and event.tab.id and event.tab.id.startswith(f"evaluator-{self._generation}-"):
            index = int(event.tab.id.rsplit("-", 1)[1])
            if index != self.evaluator_index:
                self.evaluator_index = index
                self.refresh_detail()

    def action_evaluator(self, step: int) -> None:
        if self.row is None or len(self.row[0].evaluator_refs) < 2:
            return
        count = len(self.row[0].evaluator_refs)
        self.evaluator_index = (self.evaluator_index + step) % count
        self.query_one("#detail-evaluators", Tabs).active = self._tab_id(self.evaluator_index)
        self.refresh_detail()

    def action_back(self) -> None:
        self.app.action_focus_rows()  # type: ignore[attr-defined]

    def refresh_detail(self) -> None:
        title = self.query_one("#detail-title", Static)
        statics = {name: self.query_one(f"#detail-{name}", Static) for name in
                   ("meta", "explanation", "inputs", "expected", "actual", "trace")}
        if self.row is None:
            self.show_message(Text("Select a row to see its inputs, expected and actual output.", "dim"))
            return
        self.query_one("#detail-body").display = True
        eval_set, row = self.row
        key = (eval_set.scope, eval_set.file_name, row.id)
        heading = Text(one_line(row.label, 120), "bold")
        where = one_line(f"{eval_set.scope}/{eval_set.file_name}", 80)
        heading.append(f"   {where} · id {one_line(row.id, 60)}", "dim")
        if self.state.status.get(key) == RUNNING:
            heading.append("   ◐ running", "bold cyan")
        title.update(heading)
        statics["inputs"].update(render_json(row.inputs))
        result = self.current_result
        ref = self.current_ref
        evaluator = self.state.project.evaluators.get((eval_set.scope, ref)) if self.state.project and ref else None
        target = evaluator.target_output_key if evaluator else "*"
        selected = _selected_paths(target)
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
            meta.append(f"\ncompares {one_line(describe_target(target), 100)}", "dim")
        statics["meta"].update(meta)
        statics["explanation"].update(self._explanation(result))
        expected = result.expected if result is not None else row.expected_for(ref)
        actual = result.actual if result is not None else None
        highlight: list[Path] = []
        if result is not None and result.verdict is Verdict.FAIL and actual is not None:
            try:
                highlight = diff_paths(actual, expected, selected)
            except (RecursionError, TypeError):
                highlight = []
        statics["expected"].update(render_json(expected, highlight=highlight, selected=selected)
                                   if expected is not None else Text("(no expectedOutput)", "dim"))
        statics["actual"].update(render_json(actual, highlight=highlight, selected=selected)
                                 if actual is not None else Text("(no output)", "dim"))
        statics["trace"].update(self._trace(result))

    @staticmethod
    def _explanation(result: Result | None) -> Text:
        if result is None or result.verdict is Verdict.PASS or not result.detail:
            return Text("")
        style = "red" if result.verdict is Verdict.FAIL else "yellow"
        heading = "Differences" if result.verdict is Verdict.FAIL else "Error"
        text = Text(f"{heading}\n", f"bold {style}")
        text.append(printable(result.detail), style)
        return text

    @staticmethod
    def _trace(result: Result | None) -> Text:
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
