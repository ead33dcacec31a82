"""The workbench's main screen: status line, sets | detail, the log / history / evaluators tabs, the footer.

Its keys act on the selection, which spans the sets tree, the row detail and the history tab, and each
works whichever of those panes has the focus: Textual looks bindings up along the focus chain only, so
they sit here, on the panes' common parent, with their handlers (`triage_rows`, `triage_writes`). Keys of
one pane sit on it (j/k on SetsTree, ←/→/Esc on RowDetail, Esc on the filter box). The watch keys are the
app's (`app.toggle_watch`: the watcher is the app's), bound here so the footer keeps one order.

Besides the keys, the screen only routes: RunState's changes (after an engine message) to every pane that
draws from RunState, in one fixed order; the sets pane's cursor to the detail and the log; its filters to
the status line; a recorded iteration to the history, the sets pane and the user. What each pane does with
it is the pane's own business (panes.py lists who owns what)."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.binding import Binding, BindingType
from textual.widgets import Input, Tree

from ..progress import IterationSummary
from .detail_pane import RowDetail
from .filter_box import NameFilter
from .filter_text import filter_text
from .help_screen import HelpScreen
from .history_pane import HistoryPane
from .messages import IterationDone
from .progress_notices import iteration_notices
from .sets_pane import NodeRef, SetsTree
from .triage_rows import RowKeys
from .triage_writes import WriteKeys


class MainScreen(RowKeys, WriteKeys):
    BINDINGS: ClassVar[list[BindingType]] = [  # footer order: the footer shows the first that fit whole
        Binding("question_mark,f1", "help", "Help", id="help", tooltip="show every key"),
        Binding("q", "app.quit", "Quit", id="quit", tooltip="quit (running targets are stopped)"),
        Binding("r", "rerun_row", "Re-run", id="rerun-row", tooltip="re-run the selected row (or set)"),
        Binding("R", "rerun_all", "Re-run all", id="rerun-all", tooltip="re-run every row now"),
        Binding("n", "next_failure", "Next fail", id="next-failure", tooltip="jump to the next failing row"),
        Binding("N", "previous_failure", "Prev fail", id="previous-failure", show=False,
                tooltip="jump to the previous failing row"),
        Binding("a", "accept", "Accept", id="accept",
                tooltip="accept the row's actual output as its expected output (shows the change first)"),
        Binding("f", "toggle_failures", "Failures", id="failures-only",
                tooltip="show failing rows only (turns itself off once every shown row passes)"),
        Binding("A", "bulk_accept", "Accept all", id="bulk-accept",
                tooltip="walk every failing row shown, diff by diff: accept (y), skip (n), accept all "
                        "remaining (a), stop and write (q) or cancel (Esc); one write per eval set"),
        Binding("plus", "add_row", "New row", id="add-row",
                tooltip="run the target on new inputs and append the result as a new row"),
        Binding("slash", "filter", "Filter", id="filter", tooltip="filter rows by name (Esc clears)"),
        Binding("w", "app.toggle_watch('pause')", "Pause", id="toggle-watch",
                tooltip="pause or resume watching files (changes while paused run on resume)"),
        Binding("w", "app.toggle_watch('resume')", "Resume", id="resume-watch",
                tooltip="(while paused) resume watching: changes made meanwhile run now"),
        Binding("e", "edit", "Edit", id="edit", tooltip="open the row's eval-set file in $EDITOR at the row"),
        Binding("d", "compare", "Compare", id="compare", show=False,
                tooltip="compare the history's highlighted iteration (the newest until you pick one) with the one "
                        "before it: the code diff, then the rows it flipped"),
        Binding("p", "show_project", "Project", id="show-project", show=False,
                tooltip="show the project's full path (and, in the demo, the file to edit) again"),
        Binding("c", "case_from_run", "Case from run", id="case-from-run", show=False,
                tooltip="the selected row's run in the highlighted history iteration as a scripted case"),
        Binding("y", "copy_actual", "Copy", id="copy-actual", show=False,
                tooltip="copy the actual output to the clipboard"),
        Binding("1", "show_tab('log')", "Log", id="tab-log", show=False, tooltip="show the live run log"),
        Binding("2", "show_tab('history')", "History", id="tab-history", show=False,
                tooltip="show the iteration history"),
        Binding("3", "show_tab('evaluators')", "Evaluators", id="tab-evaluators", show=False,
                tooltip="show the evaluators"),
    ]

    def on_mount(self) -> None:
        self.detail.border_title = "Row detail"
        self.name_box.display = False
        self._show_selection_filter()
        self.render_status()
        self.history_pane.reload(self.session.history)
        self.sets_tree.focus()
        self.post_message(self.Ready())

    def _show_selection_filter(self) -> None:
        """Launched with --tag / --type: only those rows run, so the tree shows only them (as `/` would)."""
        text = filter_text(self.config.overrides.tags, self.config.overrides.kinds)
        if text:
            box = self.name_box
            box.value = text
            box.display = True
            self.sets_tree.name_filter = text

    def action_compare(self) -> None:
        """`d` from any pane: the history tab's comparison (it says why when there is nothing to compare)."""
        self.history_pane.action_compare()

    def action_show_project(self) -> None:
        """`p`: the project's folder in full (the sets pane's border cuts it), or the demo's welcome again."""
        self.notify(self.welcome or f"Project: {self.config.root}", title="workbench", timeout=12)

    def action_help(self) -> None:
        panes = (("in the history tab", list(HistoryPane.BINDINGS)), ("in the detail", list(RowDetail.BINDINGS)))
        self.app.push_screen(HelpScreen(list(self.BINDINGS), panes))

    # -- RunState and the engine's messages → the panes ---------------------------------------------

    def apply_changes(self) -> None:
        """Pass what changed in RunState since the last time to the panes that draw from it (each repaints only
        what concerns it); a new project shape puts the detail and the log back on the tree's cursor."""
        changes = self.state.drain()
        for pane in (self.sets_tree, self.evaluators, self.detail, self.run_log):
            pane.state_changed(changes)
        if changes.structure:
            self._follow_selection()
        self.status.state_changed(changes)

    def render_status(self) -> None:
        """Something the status line shows changed outside RunState (paused, a launch filter)."""
        self.status.update_status()

    def iteration_done(self, message: IterationDone) -> None:
        """An iteration was recorded (RunState has counted it): the history lists it, rows history found flaky
        are drawn again, the user hears what needs attention, the sets pane follows."""
        self.history_pane.reload(self.session.history)
        self.state.mark_flaky(message.report.results)
        for text, severity in iteration_notices(message.report, message.summary):
            self.notify(text, severity=severity, timeout=6)
        self.sets_tree.iteration_recorded(first=self.state.iterations_done == 1)
        self.apply_changes()

    def watcher_changed(self, stopped: bool) -> None:
        """The watcher stopped, restarted, paused or resumed (or, while paused, saw more changes)."""
        self.status.watch_stopped = stopped
        self.status.update_status()

    @property
    def iterations_done(self) -> int:
        """Iterations finished in this session."""
        return self.state.iterations_done

    @property
    def last_summary(self) -> IterationSummary | None:
        """The last iteration recorded, as the status line counts it."""
        return self.state.last_summary

    @last_summary.setter
    def last_summary(self, summary: IterationSummary | None) -> None:
        self.state.last_summary = summary

    # -- the panes' messages -------------------------------------------------------------------------

    def _follow_selection(self) -> None:
        """The detail and the log follow the tree's cursor (a row, or a file problem)."""
        tree = self.sets_tree
        self.detail.follow(tree.selected_row, tree.selected_problem)
        self.run_log.follow(tree.selected_row)

    @on(Tree.NodeHighlighted, "#sets")
    def _row_highlighted(self, _event: Tree.NodeHighlighted[NodeRef]) -> None:
        self._follow_selection()

    @on(SetsTree.CursorRestored)
    def _cursor_restored(self, _event: SetsTree.CursorRestored) -> None:
        self._follow_selection()

    @on(SetsTree.FiltersChanged)
    def _filters_changed(self, event: SetsTree.FiltersChanged) -> None:
        self.status.name_filter = event.name_filter
        self.status.failures_only = event.failures_only

    @on(Tree.NodeSelected, "#sets")
    def _row_selected(self, event: Tree.NodeSelected[NodeRef]) -> None:
        if event.node.data is not None and event.node.data.kind == "row":
            self.detail.focus()

    @on(Input.Changed, "#filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.sets_tree.name_filter = event.value

    @on(Input.Submitted, "#filter")
    def _filter_submitted(self, _event: Input.Submitted) -> None:
        self.name_box.close()

    @on(NameFilter.Closed)
    @on(RowDetail.BackToRows)
    def _back_to_rows(self) -> None:
        self.sets_tree.focus()
