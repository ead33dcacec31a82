"""The row detail pane: the row's heading, one tab per evaluator, and below them the body drawn by the
view registered for the row's dialect (`detail_views`; by default expected vs actual)."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Static, Tab, Tabs

from ..model import EvalSet, EvaluatorKey, Result, ResultKey, Row, RowKey
from ..textsafe import one_line
from .detail_views import DEFAULT_VIEW, DetailContext, DetailView, view_for
from .labels import plain
from .state import RUNNING, RunState

NOTHING_SELECTED = "Select a row to see its inputs, expected and actual output."


class RowDetail(VerticalScroll, can_focus=True):
    """Everything about the selected row under the selected evaluator."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left,[", "evaluator(-1)", "Prev evaluator", show=False),
        Binding("right,]", "evaluator(1)", "Next evaluator", show=False),
        Binding("escape", "back", "Back to rows", show=False),
    ]

    class BackToRows(Message):
        """Esc: the user is done with the detail; the keys go back to the rows."""

    evaluator_index = reactive(0, init=False)  # which of the row's evaluators the body shows (its tab)

    def __init__(self, state: RunState, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.state = state
        self.row: tuple[EvalSet, Row] | None = None
        self._generation = 0
        self._view: DetailView = DEFAULT_VIEW(classes="detail-view")

    def compose(self) -> ComposeResult:
        yield Static(Text(NOTHING_SELECTED, "dim"), id="detail-title")
        with Vertical(id="detail-body"):
            yield Tabs(id="detail-evaluators")
            yield self._view

    @property
    def view(self) -> DetailView:
        """The body showing the selected row (its dialect's view)."""
        return self._view

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
            self.set_reactive(RowDetail.evaluator_index, 0)  # the refresh below draws it
            self._rebuild_tabs()
            # a new row starts at its top (or its view scrolls to what matters)
            self.scroll_home(animate=False, immediate=True)
        if found is not None:
            self._use_view(view_for(found[0].dialect))
        self.refresh_detail()

    def _use_view(self, wanted: type[DetailView]) -> None:
        """Swap the body for the view of the selected row's dialect (only when it differs)."""
        if type(self._view) is wanted:
            return
        self._view.remove()
        self._view = wanted(classes="detail-view")
        self.query_one("#detail-body").mount(self._view)

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
        return self.state.results.get(ResultKey(*RowKey.of(eval_set, row), ref))

    def on_tabs_tab_activated(self, event: Tabs.TabActivated) -> None:
        event.stop()
        if event.tab is not None and event.tab.id and event.tab.id.startswith(f"evaluator-{self._generation}-"):
            self.evaluator_index = int(event.tab.id.rsplit("-", 1)[1])

    def action_evaluator(self, step: int) -> None:
        if self.row is not None and len(self.row[0].evaluator_refs) > 1:
            self.evaluator_index += step

    def validate_evaluator_index(self, index: int) -> int:
        """Wraps around the row's evaluators (0 without a row)."""
        count = len(self.row[0].evaluator_refs) if self.row is not None else 0
        return index % count if count else 0

    def watch_evaluator_index(self, index: int) -> None:
        """Another evaluator: its tab is the active one and the body shows its result."""
        if self.row is not None and len(self.row[0].evaluator_refs) > 1:
            self.query_one("#detail-evaluators", Tabs).active = self._tab_id(index)
        self.refresh_detail()

    def action_back(self) -> None:
        self.post_message(self.BackToRows())

    def refresh_detail(self) -> None:
        if self.row is None:
            self.show_message(Text(NOTHING_SELECTED, "dim"))
            return
        self.query_one("#detail-body").display = True
        context = self.context()
        self.query_one("#detail-title", Static).update(self._heading(context))
        self.view.show(context)

    def context(self) -> DetailContext:
        """What the view draws for the selected row and evaluator."""
        assert self.row is not None
        eval_set, row = self.row
        key = RowKey.of(eval_set, row)
        ref = self.current_ref
        project = self.state.project
        results = {r: found for r in eval_set.evaluator_refs
                   if (found := self.state.results.get(ResultKey(*key, r))) is not None}
        return DetailContext(
            project=project, eval_set=eval_set, row=row, ref=ref, result=results.get(ref) if ref else None,
            evaluator=project.evaluators.get(EvaluatorKey(eval_set.scope, ref)) if project and ref else None,
            results=results, running=self.state.status.get(key) == RUNNING)

    @staticmethod
    def _heading(context: DetailContext) -> Text:
        eval_set, row = context.eval_set, context.row
        heading = Text(one_line(row.label, 120), "bold")
        where = one_line(f"{eval_set.scope}/{eval_set.file_name}", 80)
        heading.append(f"   {where} · id {one_line(row.id, 60)}", "dim")
        if context.running:
            heading.append("   ◐ running", "bold cyan")
        return heading
