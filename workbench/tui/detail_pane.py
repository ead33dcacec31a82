"""The row detail pane: the row's heading, one tab per evaluator (each marked ✔/✘ with its verdict), and
below them the body drawn by the view registered for the row's dialect (`detail_views`; by default
expected vs actual). A row opens on its first failing evaluator, which is where the work is.

It owns what it shows (the row, the evaluator tab: `evaluator_index`, the sample); the screen tells it where
the sets pane's cursor went (`follow`) and passes RunState's changes on (`state_changed`)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Static, Tab, Tabs

from ..dialects import dialect_for
from ..model import EvalSet, EvaluatorKey, Problem, Result, ResultKey, Row, RowKey, Verdict
from ..report.text import format_duration
from ..textsafe import one_line, printable
from .detail_views import DEFAULT_VIEW, DetailContext, DetailView, view_for
from .labels import FLAKY_MARK, FLAKY_STYLE, project_file, verdict_text
from .path_text import fold_paths, path_lines
from .state import RUNNING, Changes, RunState
from .tab_labels import fit_labels

NOTHING_SELECTED = "Select a row to see its inputs, expected and actual output."
STACK_BELOW = 70  # a pane narrower than this shows expected above actual: two columns of 30 would wrap


class RowDetail(VerticalScroll, can_focus=True):
    """Everything about the selected row under the selected evaluator."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left,[", "evaluator(-1)", "Prev evaluator", show=False),
        Binding("right,]", "evaluator(1)", "Next evaluator", show=False),
        Binding("escape", "back", "Back to rows", show=False),
        Binding("comma", "sample(-1)", "Prev sample", show=False,  # [runner] repeat: one run at a time
                tooltip="a repeated row ([runner] repeat): show its previous run (then the row's result)"),
        Binding("full_stop", "sample(1)", "Next sample", show=False,
                tooltip="a repeated row ([runner] repeat): show its next run (then the row's result)"),
    ]

    class BackToRows(Message):
        """Esc: the user is done with the detail; the keys go back to the rows."""

    evaluator_index = reactive(0, init=False)  # which of the row's evaluators the body shows (its tab)

    def __init__(self, state: RunState, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.state = state
        self.row: tuple[EvalSet, Row] | None = None
        self._generation = 0
        self._picked = False  # the user chose an evaluator of this row: results arriving never move it
        self._marks: list[Verdict | None] = []  # the verdict each tab shows
        self._tab_refs: list[str] = []  # the evaluators the tabs were made for (the row's `refs` then)
        self._first_tab_activates = False
        self._view: DetailView = DEFAULT_VIEW(classes="detail-view")
        self.sample: int | None = None  # the sample of a repeated row the body shows (None: the row's result)

    def compose(self) -> ComposeResult:
        yield Static(Text(NOTHING_SELECTED, "dim"), id="detail-title")
        with Vertical(id="detail-body"):
            yield Tabs(id="detail-evaluators")
            yield self._view

    def on_resize(self, event: events.Resize) -> None:
        """Narrow (an 80-column terminal): views' side-by-side parts stack, expected above actual; the
        evaluator tabs are fitted again, and the heading's path."""
        self.set_class(event.size.width < STACK_BELOW, "stacked")
        self._relabel()
        if self.row is not None and self.is_mounted:
            self._draw_title(self.context())  # its path is broken for the new width

    @property
    def view(self) -> DetailView:
        """The body showing the selected row (its dialect's view)."""
        return self._view

    # -- following the selection and RunState --------------------------------------------------------

    def follow(self, key: RowKey | None, problem: Problem | None = None) -> None:
        """The sets pane's cursor moved: show that row, or the file problem it is on."""
        if problem is not None:
            text = Text("File problem\n", "bold yellow")  # the path broken after a `/`, never inside a name
            text.append("\n".join(path_lines(printable(problem.file, keep_newlines=False), self._text_width)) + "\n\n",
                        "bold")
            text.append(printable(problem.message))
            self.show_message(text)
        else:
            self.show(self.state.find_row(key) if key else None)

    def state_changed(self, changes: Changes) -> None:
        """Rows ran or changed: the shown one is drawn again (a new project shape waits for `follow`)."""
        if not changes.structure and self.row is not None and RowKey.of(*self.row) in changes.rows:
            self.refresh_detail()

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
            self._picked = False
            self.sample = None
            self.set_reactive(RowDetail.evaluator_index, self._first_failing() or 0)  # the refresh draws it
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
        refs = self._tab_refs = self.refs
        self._marks = self._verdicts()
        self._first_tab_activates = bool(refs)  # Tabs.add_tab's own activation of the first tab is on its way
        for index, label in enumerate(self._fitted_labels()):
            tabs.add_tab(Tab(label, id=self._tab_id(index)))
        tabs.display = len(refs) > 1
        if refs:
            tabs.active = self._tab_id(self.evaluator_index)

    def _fitted_labels(self) -> list[Text]:
        """The tabs' labels cut to the pane's width: every tab's ✔/✘ stays visible (`tab_labels`)."""
        refs = self.refs
        width = self.scrollable_content_region.width or 10_000  # not laid out yet: fitted on the first resize
        return fit_labels(refs, self._marks, width, self.evaluator_index)

    def _relabel(self) -> None:
        """Give every tab of this row its fitted label (after a resize, new verdicts, another tab shown)."""
        if len(self.refs) < 2 or not self.is_mounted:
            return
        labels = self._fitted_labels()
        for tab in self.query_one("#detail-evaluators", Tabs).query(Tab):
            prefix = f"evaluator-{self._generation}-"
            if tab.id and tab.id.startswith(prefix):
                index = int(tab.id[len(prefix):])
                if index < len(labels) and tab.label != labels[index]:
                    tab.label = labels[index]

    def _tab_id(self, index: int) -> str:
        return f"evaluator-{self._generation}-{index}"

    def _verdicts(self) -> list[Verdict | None]:
        """The latest verdict of each of the row's evaluators (None: not run yet)."""
        if self.row is None:
            return []
        eval_set, row = self.row
        key = RowKey.of(eval_set, row)
        return [found.verdict if (found := self.state.results.get(ResultKey(*key, ref))) is not None else None
                for ref in self.refs]

    def _first_failing(self) -> int | None:
        """The first evaluator whose latest result failed or errored, if any."""
        return next((index for index, verdict in enumerate(self._verdicts())
                     if verdict is not None and verdict is not Verdict.PASS), None)

    def _catch_up(self) -> None:
        """The project was read again since the row was shown: the row is taken as the files say it now (the
        pane kept the one it was shown with), and when the evaluators that score it changed (its set's refs,
        or its criteria in a format that scores a row by the evaluators it names) its tabs are made again and
        it opens as a new row does, on its first failing evaluator (one the user picked stays, if it still
        scores the row)."""
        if self.row is None:
            return
        eval_set, row = self.row
        self.row = self.state.find_row(RowKey.of(eval_set, row)) or self.row
        refs = self.refs
        if refs == self._tab_refs:
            return
        before = self._tab_refs
        shown = before[self.evaluator_index] if self.evaluator_index < len(before) else None
        self._picked = self._picked and shown in refs
        index = refs.index(shown) if self._picked and shown is not None else self._first_failing() or 0
        self.set_reactive(RowDetail.evaluator_index, index)
        self._rebuild_tabs()

    def _follow_results(self) -> None:
        """Results arrived: the tabs show their verdicts, and a row the user has not steered opens on a
        failing evaluator when the one shown passes (the row was opened before it had run)."""
        if len(self.refs) < 2:
            return
        marks = self._verdicts()
        changed = marks != self._marks
        self._marks = marks
        failing = self._first_failing()
        shown = self._marks[self.evaluator_index] if self.evaluator_index < len(self._marks) else None
        if not self._picked and failing is not None and (shown is None or shown is Verdict.PASS):
            self.set_reactive(RowDetail.evaluator_index, failing)
            self.query_one("#detail-evaluators", Tabs).active = self._tab_id(failing)
            changed = True
        if changed:
            self._relabel()

    @property
    def refs(self) -> list[str]:
        """The evaluators that score the selected row (its format may leave some of its set's out)."""
        if self.row is None:
            return []
        eval_set, row = self.row
        return dialect_for(eval_set.dialect).refs_of(eval_set, row)

    @property
    def current_ref(self) -> str | None:
        refs = self.refs
        if not refs:
            return None
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
        tab = event.tab
        if tab is None or tab.id != event.tabs.active:
            return  # a stale activation: the pane has moved the tabs on since (a row opening on its failure)
        if tab.id and tab.id.startswith(f"evaluator-{self._generation}-"):
            index = int(tab.id.rsplit("-", 1)[1])
            if self._first_tab_activates and index == 0:
                # Tabs activates its first tab once it is mounted, whichever the pane chose: show the chosen one
                self._first_tab_activates = False
                if self.evaluator_index != 0:
                    event.tabs.active = self._tab_id(self.evaluator_index)
                return
            if index != self.evaluator_index:
                self._picked = True  # a click on a tab (activating the shown one is the pane's own doing)
            self.evaluator_index = index

    def action_evaluator(self, step: int) -> None:
        if len(self.refs) > 1:
            self._picked = True
            self.evaluator_index += step

    def validate_evaluator_index(self, index: int) -> int:
        """Wraps around the row's evaluators (0 without a row)."""
        count = len(self.refs)
        return index % count if count else 0

    def watch_evaluator_index(self, index: int) -> None:
        """Another evaluator: its tab is the active one and the body shows its result."""
        if len(self.refs) > 1:
            self.query_one("#detail-evaluators", Tabs).active = self._tab_id(index)
            self._relabel()  # the shown tab keeps its name when passing ones are cut to their marks
        self.refresh_detail()

    def action_sample(self, step: int) -> None:
        """Step through a repeated row's samples (`,` `.`): each one's output, detail, log and duration, then
        back to the row's result."""
        result = self.current_result
        if result is None or not result.samples:
            return
        stops = [None, *range(len(result.samples))]
        at = stops.index(self.sample) if self.sample in stops else 0
        self.sample = stops[(at + step) % len(stops)]
        self.refresh_detail()

    def action_back(self) -> None:
        self.post_message(self.BackToRows())

    # ↑/↓ held down: every repeat moves one line. Textual's animated scroll is deferred to the next refresh
    # and starts from a target that has not moved yet, so repeats arriving before it are swallowed (issue 38).

    def action_scroll_down(self) -> None:
        self._scroll_lines(1)

    def action_scroll_up(self) -> None:
        self._scroll_lines(-1)

    def _scroll_lines(self, lines: int) -> None:
        self.scroll_to(y=self.scroll_target_y + lines, animate=False, immediate=True)

    def refresh_detail(self) -> None:
        if self.row is None:
            self.show_message(Text(NOTHING_SELECTED, "dim"))
            return
        self.query_one("#detail-body").display = True
        self._catch_up()
        self._follow_results()
        context = self.context()
        self._draw_title(context)
        self.view.show(context)

    def _draw_title(self, context: DetailContext) -> None:
        heading = self._heading(context, self._text_width)
        samples = self._samples_line(context)
        if samples is not None:
            heading.append("\n")
            heading.append_text(samples)
        self.query_one("#detail-title", Static).update(heading)

    def context(self) -> DetailContext:
        """What the view draws for the selected row and evaluator."""
        assert self.row is not None
        eval_set, row = self.row
        key = RowKey.of(eval_set, row)
        ref = self.current_ref
        project = self.state.project
        results = {r: found for r in self.refs
                   if (found := self.state.results.get(ResultKey(*key, r))) is not None}
        shown = results.get(ref) if ref else None
        if shown is not None and self.sample is not None and self.sample < len(shown.samples):
            results[shown.evaluator] = sample_result(shown, self.sample)  # every view draws the one run
        elif self.sample is not None:
            self.sample = None  # the row ran again without samples (or fewer)
        return DetailContext(
            project=project, eval_set=eval_set, row=row, ref=ref, result=results.get(ref) if ref else None,
            evaluator=project.evaluators.get(EvaluatorKey(eval_set.scope, ref)) if project and ref else None,
            results=results, running=self.state.status.get(key) == RUNNING)

    @property
    def _text_width(self) -> int:
        """The cells of a line of the pane's text (0 before it is laid out: nothing is broken then)."""
        return self.scrollable_content_region.width

    @staticmethod
    def _heading(context: DetailContext, width: int = 0) -> Text:
        eval_set, row = context.eval_set, context.row
        heading = Text(one_line(row.label, 120), "bold")
        where = project_file(context.project.root if context.project else None, eval_set.source_of(row))
        where = fold_paths(where, width)  # longer than the pane: broken after a `/`, not inside a name
        heading.append(f"   {where} · id {one_line(row.id, 60)}", "dim")
        if context.running:
            heading.append("   ◐ running", "bold cyan")
        return heading

    def _samples_line(self, context: DetailContext) -> Text | None:
        """A repeated row's samples (`3/5 ≈ flaky  ✔ ✘ ✔ ✔ ✘`, the shown one highlighted, `,` `.` to step)
        and a row flaky over time; with a sample shown, its duration and the end of its log."""
        result = self.current_result
        if result is None or not (result.samples or result.flaky_since is not None):
            return None
        line = Text()
        if result.samples:
            line.append(f"samples {result.samples_text}", FLAKY_STYLE if result.sample_flaky else "bold")
            if result.sample_flaky:
                line.append(f" {FLAKY_MARK} flaky", FLAKY_STYLE)
            line.append("  ")
            for sample in result.samples:
                mark = verdict_text(sample.verdict)
                if sample.index == self.sample:
                    mark.stylize("reverse")
                line.append_text(mark)
                line.append(" ")
            line.append("  , . step through them", "dim")
        if result.flaky_since is not None:
            line.append(f"\n{FLAKY_MARK} flaky: {result.verdict.value} now, not in iteration {result.flaky_since}, "
                        "with nothing it depends on changed", FLAKY_STYLE)
        if self.sample is not None and self.sample < len(result.samples):
            sample = result.samples[self.sample]
            line.append(f"\nsample {sample.index + 1}/{len(result.samples)} · {format_duration(sample.duration_ms)}",
                        "bold")
            tail = [one_line(text, 200) for text in sample.log.rstrip().splitlines()[-3:]]
            if tail:
                line.append("\n" + "\n".join(tail), "dim")
        return line


def sample_result(result: Result, index: int) -> Result:
    """`result` as its sample `index` alone: that run's verdict, score, detail, output, log, trace, duration."""
    sample = result.samples[index]
    return replace(result, verdict=sample.verdict, score=sample.score, detail=sample.detail, actual=sample.actual,
                   duration_ms=sample.duration_ms, log=sample.log, trace=sample.trace, samples=[],
                   flaky_since=None)
