"""The workbench TUI: panes over the engine's Session. Built by `make_app` for the CLI, the tests and the
screenshot script alike.

This file holds the layout, the keys and the wiring only: what a key does lives in `actions_rows.py`,
`actions_write.py` and `watch_control.py`; how RunState is painted onto the panes in `repaint.py`."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from functools import partial
from typing import Any, ClassVar

from textual import on, work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, Input, TabbedContent, TabPane, Tree
from textual.worker import Worker, WorkerState

from ..actions.signals import on_stop_signals
from ..config import Config
from ..engine import RunnerFactory
from ..errors import WorkbenchError
from ..events import Trigger
from ..progress import IterationSummary
from ..project import load_project
from ..runners import make_runner
from ..session import Session
from ..textsafe import one_line, printable
from . import actions_from_run, actions_rows, actions_write, repaint
from .commands import PALETTE
from .detail_pane import RowDetail
from .engine_link import EngineLink
from .evaluators_pane import EvaluatorsTable
from .filter_box import NameFilter
from .filter_text import filter_text
from .help_screen import HelpScreen
from .history_pane import HistoryPane
from .log_pane import RunLog
from .messages import EngineMessage, IterationBegan, IterationDone, RowsChanged, SessionIdle
from .sets_pane import NodeRef, SetsTree
from .settling import quiet
from .state import RunState, next_iteration_number
from .status_bar import StatusBar
from .watch_control import WATCH_GROUP, WatchControl


def worker_failure(worker: Worker[Any]) -> str:
    """What to tell the user when a background job died."""
    error = worker.error
    what = worker.description or worker.name or "a background job"
    why = str(error) if isinstance(error, WorkbenchError) else f"{type(error).__name__}: {error}"
    return f"{what} failed: {one_line(why, 300)}"


class WorkbenchApp(App[None]):
    CSS_PATH = "app.tcss"
    TITLE = "workbench"
    BINDINGS: ClassVar[list[BindingType]] = [  # footer order: what fits at 80 columns comes first
        Binding("question_mark,f1", "help", "Help", id="help", tooltip="show every key"),
        Binding("q", "quit", "Quit", id="quit", tooltip="quit (running targets are stopped)"),
        Binding("r", "rerun_row", "Re-run", id="rerun-row", tooltip="re-run the selected row (or set)"),
        Binding("R", "rerun_all", "Re-run all", id="rerun-all", tooltip="re-run every row now"),
        Binding("n", "next_failure", "Next fail", id="next-failure", tooltip="jump to the next failing row"),
        Binding("N", "previous_failure", "Prev fail", id="previous-failure", show=False,
                tooltip="jump to the previous failing row"),
        Binding("a", "accept", "Accept", id="accept",
                tooltip="accept the row's actual output as its expected output (shows the change first)"),
        Binding("A", "bulk_accept", "Accept all", id="bulk-accept",
                tooltip="walk every failing row shown, diff by diff: accept (y), skip (n), accept all "
                        "remaining (a), stop and write (q) or cancel (Esc); one write per eval set"),
        Binding("plus", "add_row", "New row", id="add-row",
                tooltip="run the target on new inputs and append the result as a new row"),
        Binding("f", "toggle_failures", "Failures", id="failures-only",
                tooltip="show failing rows only (turns itself off once every shown row passes)"),
        Binding("slash", "filter", "Filter", id="filter", tooltip="filter rows by name (Esc clears)"),
        Binding("w", "toggle_watch", "Pause", id="toggle-watch",
                tooltip="pause or resume watching files (changes while paused run on resume)"),
        Binding("w", "toggle_watch_resume", "Resume", id="resume-watch",
                tooltip="(while paused) resume watching: changes made meanwhile run now"),
        Binding("e", "edit", "Edit", id="edit", tooltip="open the row's eval-set file in $EDITOR at the row"),
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

    def __init__(self, config: Config, *, watch: bool = True, record: bool = True,
                 runner_factory: RunnerFactory = make_runner, welcome: str | None = None) -> None:
        super().__init__()
        self.config = config
        self.welcome = welcome
        self.watching = watch
        self.state = RunState()
        self.link = EngineLink(self, self.state)
        self._notices: list[str] = []  # before the Session: opening the history may already notify
        self.session = Session(config, on_event=self.link.event, on_iteration=self.link.iteration,
                               on_notice=self._session_notice, on_idle=self.link.idle, record=record,
                               runner_factory=runner_factory)
        self.watcher = WatchControl(self)
        self.last_summary: IterationSummary | None = None
        self.iterations_done = 0
        self._closed = False
        self._remove_signal_handlers: Callable[[], None] = lambda: None

    def notify(self, message: str, *, title: str = "", severity: Any = "information",
               timeout: float | None = None, markup: bool = False) -> None:
        """Notifications carry file and row names: never read them as markup, never pass on escapes."""
        super().notify(printable(message), title=printable(title), severity=severity, timeout=timeout, markup=markup)

    # -- layout --------------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield StatusBar(id="status")
        with Horizontal(id="main"):
            with Vertical(id="sets-column"):
                yield SetsTree(self.state, id="sets")
                yield NameFilter(id="filter")
            yield RowDetail(self.state, id="detail")
        with TabbedContent(id="bottom", initial="log"):
            with TabPane("Log", id="log"):
                yield RunLog(id="run-log")
            with TabPane("History", id="history"):
                yield HistoryPane(id="history-pane")
            with TabPane("Evaluators", id="evaluators"):
                yield EvaluatorsTable(id="evaluators-table")
        yield Footer(compact=True)

    @property
    def sets_tree(self) -> SetsTree:
        return self.query_one("#sets", SetsTree)

    @property
    def detail(self) -> RowDetail:
        return self.query_one("#detail", RowDetail)

    @property
    def history_pane(self) -> HistoryPane:
        return self.query_one("#history-pane", HistoryPane)

    @property
    def watch_stopped(self) -> bool:
        return self.watcher.stopped

    def on_mount(self) -> None:
        self.sets_tree.border_title = "Eval sets"
        self.detail.border_title = "Row detail"
        self.query_one("#filter", NameFilter).display = False
        self._show_selection_filter()
        if self.welcome:
            self.notify(self.welcome, title="workbench", timeout=20)
        for text in self._notices:
            self.notify(text, severity="warning", timeout=8)
        repaint.render_status(self)
        self.history_pane.reload(self.session.history)
        self.sets_tree.focus()
        # SIGTERM / SIGHUP (`kill`, a closed terminal) quit like `q`, so no target is left running.
        self._remove_signal_handlers = on_stop_signals(self._stop_signalled)
        self._start()

    def _stop_signalled(self, _signum: int) -> None:
        self.call_later(self.action_quit)

    def _show_selection_filter(self) -> None:
        """Launched with --tag / --type: only those rows run, so the tree shows only them (as `/` would)."""
        text = filter_text(self.config.overrides.tags, self.config.overrides.kinds)
        if text:
            box = self.query_one("#filter", NameFilter)
            box.value = text
            box.display = True
            self.sets_tree.name_filter = text

    @work(group="start", exit_on_error=False, description="loading the project")
    async def _start(self) -> None:
        """Show what history remembers at once, then run (and watch)."""
        try:
            project = await asyncio.to_thread(load_project, self.config.root, self.config)
            self.state.next_number = await asyncio.to_thread(next_iteration_number, self.session.history)
        except WorkbenchError as exc:
            self.notify(str(exc), severity="error", timeout=30)
            project = None
        self.state.seed(project, self.session.remembered)
        repaint.apply_changes(self)
        if self.watching:
            self.watcher.start(initial=True)
        else:
            self.session.request(Trigger("start"))

    # -- engine → UI: the Session's callbacks post messages (engine_link.py); the handlers repaint -------

    def _session_notice(self, text: str) -> None:
        if self.is_running:
            self.notify(text, severity="warning", timeout=8)
        else:
            self._notices.append(text)

    def _repaint(self, message: EngineMessage) -> None:
        repaint.apply_changes(self)
        self.link.applied(message)

    def on_iteration_began(self, message: IterationBegan) -> None:
        if message.trigger.kind == "change":
            self.notify(f"Reloaded: {one_line(message.trigger.describe(), 80)}", timeout=2)
        self._repaint(message)

    def on_rows_changed(self, message: RowsChanged) -> None:
        self._repaint(message)

    def on_iteration_done(self, message: IterationDone) -> None:
        self._repaint(message)
        self.last_summary = message.summary
        self.iterations_done += 1
        self.state.iteration_recorded(message.summary.number)
        self.history_pane.reload(self.session.history)
        repaint.after_iteration(self, message)
        repaint.render_status(self)

    def on_session_idle(self, message: SessionIdle) -> None:
        if self.state.running:  # cancelled, and nothing replaced it: its rows stop showing as running
            self.state.mark_cancelled()
        self._repaint(message)

    @on(Worker.StateChanged)
    def _worker_changed(self, event: Worker.StateChanged) -> None:
        """Every background job's failure is shown; a watcher that ended is restarted or said stopped."""
        if self._closed:
            return
        if event.state is WorkerState.ERROR:
            self.notify(worker_failure(event.worker), severity="error", timeout=20)
        if event.worker.group == WATCH_GROUP and event.state in (WorkerState.ERROR, WorkerState.SUCCESS):
            self.watcher.ended()

    async def settled(self) -> None:
        """Wait until no iteration runs or waits, no background job (but the watcher) is busy, every widget
        has handled what was posted to it, nothing deferred is still to run, and a refresh has shown it
        all: what tests and scripts wait on instead of pausing. Call it from outside the app's own task."""
        while True:
            if self.session.running:
                await self.session.wait_idle()
            elif not self.is_settled:
                await asyncio.sleep(0.005)  # a job is finishing, or a posted message is on its way
            else:
                await self.screen.wait_for_refresh()
                if self.is_settled:
                    return

    @property
    def is_settled(self) -> bool:
        return (not self.session.running and self.link.caught_up and not self.history_pane.busy
                and not any(w.group != WATCH_GROUP and not w.is_finished for w in self.workers)
                and quiet(self))

    # -- selection -----------------------------------------------------------------------------------

    @on(Tree.NodeHighlighted, "#sets")
    def _row_highlighted(self, _event: Tree.NodeHighlighted[NodeRef]) -> None:
        repaint.show_selected(self)

    @on(SetsTree.CursorRestored)
    def _cursor_restored(self, _event: SetsTree.CursorRestored) -> None:
        repaint.show_selected(self)

    @on(Tree.NodeSelected, "#sets")
    def _row_selected(self, event: Tree.NodeSelected[NodeRef]) -> None:
        if event.node.data is not None and event.node.data.kind == "row":
            self.detail.focus()

    @on(Input.Changed, "#filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.sets_tree.name_filter = event.value.strip()
        self.sets_tree.rebuild()
        repaint.render_status(self)

    @on(Input.Submitted, "#filter")
    def _filter_submitted(self, _event: Input.Submitted) -> None:
        self.query_one("#filter", NameFilter).close()

    def action_focus_rows(self) -> None:
        self.sets_tree.focus()

    # -- actions -------------------------------------------------------------------------------------

    def action_rerun_row(self) -> None:
        actions_rows.rerun_selected(self)

    def action_rerun_all(self) -> None:
        actions_rows.rerun_all(self)

    def action_rerun_failures(self) -> None:
        actions_rows.rerun_failures(self)

    def action_toggle_failures(self) -> None:
        actions_rows.toggle_failures(self)

    def action_next_failure(self) -> None:
        actions_rows.jump_to_failure(self, forward=True)

    def action_previous_failure(self) -> None:
        actions_rows.jump_to_failure(self, forward=False)

    def action_filter(self) -> None:
        self.query_one("#filter", NameFilter).open()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The footer offers Pause while watching and Resume while paused (both are `w`)."""
        if action == "toggle_watch":
            return not self.session.paused
        if action == "toggle_watch_resume":
            return self.session.paused
        return True

    def action_toggle_watch(self) -> None:
        self.watcher.toggle()

    def action_toggle_watch_resume(self) -> None:
        self.watcher.toggle()

    def action_edit(self) -> None:
        actions_rows.edit_selected(self)

    def action_accept(self) -> None:
        actions_write.accept_selected(self)

    def action_bulk_accept(self) -> None:
        actions_write.bulk_accept(self)

    def action_add_row(self) -> None:
        actions_write.add_row(self)

    def action_case_from_run(self) -> None:
        actions_from_run.case_from_run(self)

    def action_copy_actual(self) -> None:
        actions_rows.copy_selected(self, "actual", "actual output")

    def action_copy_expected(self) -> None:
        actions_rows.copy_selected(self, "expected", "expected output")

    def action_show_tab(self, tab: str) -> None:
        self.query_one("#bottom", TabbedContent).active = tab

    def action_help(self) -> None:
        self.push_screen(HelpScreen(list(self.BINDINGS)))

    def action_expand_all(self) -> None:
        self.sets_tree.root.expand_all()

    def action_collapse_all(self) -> None:
        for node in self.sets_tree.root.children:
            node.collapse()

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        for title, help_text, action in PALETTE:
            yield SystemCommand(title, help_text, partial(self.run_action, action))

    # -- quitting ------------------------------------------------------------------------------------

    async def action_quit(self) -> None:
        await self.shutdown()
        self.exit()

    async def shutdown(self) -> None:
        """Stop watching and kill every running target before the app goes away."""
        if self._closed:
            return
        self._closed = self.link.closed = True
        self._remove_signal_handlers()
        self.workers.cancel_group(self, WATCH_GROUP)
        await self.session.aclose()

    async def on_unmount(self) -> None:
        await self.shutdown()


def make_app(config: Config, *, watch: bool = True, record: bool = True,
             runner_factory: RunnerFactory = make_runner, welcome: str | None = None) -> WorkbenchApp:
    """The one factory for the CLI, the tests and the screenshot script."""
    return WorkbenchApp(config, watch=watch, record=record, runner_factory=runner_factory, welcome=welcome)


def run_app(config: Config, *, watch: bool = True, welcome: str | None = None) -> None:
    make_app(config, watch=watch, welcome=welcome).run()
