"""The workbench TUI: panes over the engine's Session. Built by `make_app` for the CLI, the tests and the
screenshot script alike."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import subprocess
import time
from collections.abc import Iterable
from typing import Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Input, TabbedContent, TabPane, Tree

from .. import jsonio
from ..config import Config
from ..engine import RowFilter, RunnerFactory
from ..events import Event, IterationReport, IterationStarted, Trigger
from ..model import EvalSet, EvaluatorDef, RowKey, Verdict
from ..progress import IterationSummary
from ..project import ProjectError, load_project
from ..runners import make_runner
from ..session import Session
from ..textsafe import one_line, printable
from ..writeback import WritebackError
from ..writeback.accept import plan_accept
from ..writeback.recorded import acceptable
from .detail_pane import RowDetail
from .editor import EDITOR_TIMEOUT_S, editor_argv, row_line
from .evaluators_pane import EvaluatorsTable
from .help_screen import HelpScreen
from .history_pane import HistoryPane
from .log_pane import RunLog
from .sets_pane import NodeRef, SetsTree
from .state import RunState
from .status_bar import StatusBar
from .writeback_screens import AcceptScreen, AddRowScreen

UPDATE_INTERVAL_S = 0.1


class EngineUpdate(Message):
    """Something changed in RunState; coalesced so a burst of engine events costs one repaint."""


class IterationDone(Message):
    def __init__(self, report: IterationReport, summary: IterationSummary) -> None:
        super().__init__()
        self.report = report
        self.summary = summary


class WorkbenchApp(App[None]):
    CSS_PATH = "app.tcss"
    TITLE = "workbench"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "rerun_row", "Re-run", id="rerun-row", tooltip="re-run the selected row (or set)"),
        Binding("R", "rerun_all", "Re-run all", id="rerun-all", tooltip="re-run every row now"),
        Binding("f", "toggle_failures", "Failures", id="failures-only",
                tooltip="show failing rows only (turns itself off once every shown row passes)"),
        Binding("n", "next_failure", "Next fail", id="next-failure", tooltip="jump to the next failing row"),
        Binding("N", "previous_failure", "Prev fail", id="previous-failure", show=False,
                tooltip="jump to the previous failing row"),
        Binding("slash", "filter", "Filter", id="filter", tooltip="filter rows by name (Esc clears)"),
        Binding("w", "toggle_watch", "Pause", id="toggle-watch",
                tooltip="pause or resume watching files (changes while paused run on resume)"),
        Binding("w", "toggle_watch_resume", "Resume", id="resume-watch",
                tooltip="(while paused) resume watching: changes made meanwhile run now"),
        Binding("e", "edit", "Edit", id="edit", tooltip="open the row's eval-set file in $EDITOR at the row"),
        Binding("y", "copy_actual", "Copy", id="copy-actual", show=False,
                tooltip="copy the actual output to the clipboard"),
        Binding("a", "accept", "Accept", id="accept",
                tooltip="accept the row's actual output as its expected output (shows the change first)"),
        Binding("plus", "add_row", "New row", id="add-row",
                tooltip="run the target on new inputs and append the result as a new row"),
        Binding("1", "show_tab('log')", "Log", id="tab-log", show=False, tooltip="show the live run log"),
        Binding("2", "show_tab('history')", "History", id="tab-history", show=False,
                tooltip="show the iteration history"),
        Binding("3", "show_tab('evaluators')", "Evaluators", id="tab-evaluators", show=False,
                tooltip="show the evaluators"),
        Binding("question_mark,f1", "help", "Help", id="help", tooltip="show every key"),
        Binding("q", "quit", "Quit", id="quit", tooltip="quit (running targets are stopped)"),
    ]

    def __init__(self, config: Config, *, watch: bool = True, record: bool = True,
                 runner_factory: RunnerFactory = make_runner, welcome: str | None = None) -> None:
        super().__init__()
        self.config = config
        self.welcome = welcome
        self.watching = watch
        self.state = RunState()
        self._notices: list[str] = []  # before the Session: opening the history may already notify
        self.session = Session(config, on_event=self._on_engine_event, on_iteration=self._on_iteration,
                               on_notice=self._on_notice, record=record, runner_factory=runner_factory)
        self.last_summary: IterationSummary | None = None
        self.iterations_done = 0
        self._update_pending = False
        self._last_update = 0.0
        self._closed = False

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
                yield Input(placeholder="filter rows by name — Enter keeps it, Esc clears", id="filter")
            yield RowDetail(self.state, id="detail")
        with TabbedContent(id="bottom", initial="log"):
            with TabPane("Log", id="log"):
                yield RunLog(id="run-log")
            with TabPane("History", id="history"):
                yield HistoryPane(id="history-pane")
            with TabPane("Evaluators", id="evaluators"):
                yield EvaluatorsTable(id="evaluators-table")
        yield Footer()

    @property
    def tree(self) -> SetsTree:
        return self.query_one("#sets", SetsTree)

    @property
    def detail(self) -> RowDetail:
        return self.query_one("#detail", RowDetail)

    def on_mount(self) -> None:
        self.query_one("#sets", SetsTree).border_title = "Eval sets"
        self.detail.border_title = "Row detail"
        self.query_one("#filter", Input).display = False
        if self.welcome:
            self.notify(self.welcome, title="workbench", timeout=20)
        for text in self._notices:
            self.notify(text, severity="warning", timeout=8)
        self._render_status()
        self.query_one("#history-pane", HistoryPane).reload(self.session.history)
        self.tree.focus()
        self._stop_on_signals()
        self._start()

    def _stop_on_signals(self) -> None:
        """SIGTERM / SIGHUP (`kill`, a closed terminal) quit like `q`, so no target is left running."""
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGHUP):
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.add_signal_handler(sig, lambda: self.call_later(self.action_quit))

    @work(group="start", exit_on_error=False)
    async def _start(self) -> None:
        """Show what history remembers at once, then run (and watch)."""
        try:
            project = await asyncio.to_thread(load_project, self.config.root)
        except ProjectError as exc:
            self.notify(str(exc), severity="error", timeout=30)
            project = None
        self.state.seed(project, self.session.remembered)
        self._apply_changes()
        if self.watching:
            self.run_worker(self.session.watch(initial=True), group="watch", exclusive=True, exit_on_error=False,
                            description="watching the project for changes")
        else:
            self.session.request(Trigger("start"))

    # -- engine → UI ---------------------------------------------------------------------------------

    def _on_engine_event(self, event: Event) -> None:
        self.state.apply(event)
        if isinstance(event, IterationStarted) and event.trigger.kind == "change":
            self.notify(f"Reloaded: {one_line(event.trigger.describe(), 80)}", timeout=2)
        self._schedule_update()

    def _schedule_update(self) -> None:
        if self._update_pending or self._closed:
            return
        self._update_pending = True
        wait = UPDATE_INTERVAL_S - (time.monotonic() - self._last_update)
        if wait > 0:
            self.set_timer(wait, lambda: self.post_message(EngineUpdate()))
        else:
            self.post_message(EngineUpdate())

    def _on_iteration(self, report: IterationReport, summary: IterationSummary) -> None:
        if not self._closed:
            self.post_message(IterationDone(report, summary))

    def _on_notice(self, text: str) -> None:
        if self.is_running:
            self.notify(text, severity="warning", timeout=8)
        else:
            self._notices.append(text)

    def on_engine_update(self, _message: EngineUpdate) -> None:
        self._update_pending = False
        self._last_update = time.monotonic()
        self._apply_changes()

    def _apply_changes(self) -> None:
        changes = self.state.drain()
        tree = self.tree
        if changes.structure:
            tree.rebuild()
            self.query_one("#evaluators-table", EvaluatorsTable).show(self.state.project)
            self._show_selected()
        elif changes.rows:
            tree.refresh_rows(changes.rows)
            selected = tree.selected_row
            if selected in changes.rows:
                self.detail.refresh_detail()
        log = self.query_one("#run-log", RunLog)
        for key, lines in changes.logs.items():
            if key == log.row and not lines and self.state.status.get(key) == "running":
                log.show(key, [], self._row_label(key))
            else:
                log.append(key, lines)
        self._render_status()

    def on_iteration_done(self, message: IterationDone) -> None:
        self._apply_changes()
        self.last_summary = message.summary
        self.iterations_done += 1
        self.query_one("#history-pane", HistoryPane).reload(self.session.history)
        errors = [p for p in message.report.problems if p.severity == "error"]
        if errors:
            self.notify(f"{len(errors)} file problem{'s' if len(errors) != 1 else ''}: "
                        f"{one_line(errors[0].file, 60)} — {one_line(errors[0].message, 120)}",
                        severity="error", timeout=6)
        if message.summary.stalled_for:
            self.notify(f"Stalled: no improvement in passes for {message.summary.stalled_for} iterations",
                        severity="warning", timeout=6)
        tree = self.tree
        if tree.failures_only:
            shown = [self.state.find_row(key) for key in tree.visible_rows()]
            if all(found is None or not self.state.is_failing(*found) for found in shown):
                tree.failures_only = False
                self.notify("Every shown row passes — showing all rows again", timeout=4)
            tree.rebuild()
        self._render_status()

    def _render_status(self) -> None:
        tree = self.tree
        self.query_one("#status", StatusBar).render_status(
            project=self.config.root.name, watching=self.watching, paused=self.session.paused,
            running=self.state.running, done=self.state.done_rows, total=self.state.total_rows,
            iteration=self.last_summary.number if self.last_summary else None, last=self.last_summary,
            failures_only=tree.failures_only, name_filter=tree.name_filter)

    # -- selection -----------------------------------------------------------------------------------

    def _row_label(self, key: RowKey) -> str:
        found = self.state.find_row(key)
        return one_line(found[1].label, 60) if found else key[2]

    def _show_selected(self) -> None:
        key = self.tree.selected_row
        found = self.state.find_row(key) if key else None
        problem = self.tree.selected_problem
        if problem is not None:
            text = Text("File problem\n", "bold yellow")
            text.append(f"{printable(problem.file)}\n\n", "bold")
            text.append(printable(problem.message))
            self.detail.show_message(text)
        else:
            self.detail.show(found)
        self.query_one("#run-log", RunLog).show(key, self.state.log_of(key) if key else [],
                                                 self._row_label(key) if key else "")

    @on(Tree.NodeHighlighted, "#sets")
    def _row_highlighted(self, _event: Tree.NodeHighlighted[NodeRef]) -> None:
        self._show_selected()

    @on(Tree.NodeSelected, "#sets")
    def _row_selected(self, event: Tree.NodeSelected[NodeRef]) -> None:
        if event.node.data is not None and event.node.data.kind == "row":
            self.detail.focus()

    def action_focus_rows(self) -> None:
        self.tree.focus()

    # -- actions -------------------------------------------------------------------------------------

    def action_rerun_row(self) -> None:
        tree = self.tree
        key = tree.selected_row
        if key is not None:
            self.session.request(Trigger("row", (key[1],)), RowFilter(row_keys=frozenset({key})), replace=False)
            self.notify(f"Re-running '{self._row_label(key)}'", timeout=2)
        elif tree.selected_set is not None:
            scope, file_name = tree.selected_set
            found = self.state.project.sets if self.state.project else []
            keys = frozenset((s.scope, s.file_name, r.id) for s in found
                             if (s.scope, s.file_name) == (scope, file_name) for r in s.rows)
            self.session.request(Trigger("row", (file_name,)), RowFilter(row_keys=keys), replace=False)
            self.notify(f"Re-running {one_line(file_name, 60)}", timeout=2)
        else:
            self.notify("Select a row or a set to re-run it (R re-runs everything)", severity="warning")

    def action_rerun_all(self) -> None:
        self.session.request(Trigger("manual"))
        self.notify("Re-running every row", timeout=2)

    def action_rerun_failures(self) -> None:
        keys = frozenset(key for key, (eval_set, row) in self.state._index.items()
                         if self.state.is_failing(eval_set, row))
        if not keys:
            self.notify("No failing rows to re-run")
            return
        self.session.request(Trigger("row", ("failing rows",)), RowFilter(row_keys=keys), replace=False)

    def action_toggle_failures(self) -> None:
        tree = self.tree
        tree.failures_only = not tree.failures_only
        if tree.failures_only and not any(self.state.is_failing(s, r) for s, r in self.state._index.values()):
            tree.failures_only = False
            self.notify("No failing rows: every row passes (or has not run yet)")
        tree.rebuild()
        self._render_status()

    def action_next_failure(self) -> None:
        if self.tree.jump_to_failure(forward=True) is None:
            self.notify("No failing rows")

    def action_previous_failure(self) -> None:
        if self.tree.jump_to_failure(forward=False) is None:
            self.notify("No failing rows")

    def action_filter(self) -> None:
        box = self.query_one("#filter", Input)
        box.display = True
        box.focus()

    @on(Input.Changed, "#filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.tree.name_filter = event.value.strip()
        self.tree.rebuild()
        self._render_status()

    @on(Input.Submitted, "#filter")
    def _filter_submitted(self, _event: Input.Submitted) -> None:
        box = self.query_one("#filter", Input)
        box.display = bool(box.value.strip())
        self.tree.focus()

    def on_key(self, event: Any) -> None:
        box = self.query_one("#filter", Input)
        if event.key == "escape" and box.has_focus:
            event.stop()
            box.value = ""
            box.display = False
            self.tree.focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The footer offers Pause while watching and Resume while paused (both are `w`)."""
        if action == "toggle_watch":
            return not self.session.paused
        if action == "toggle_watch_resume":
            return self.session.paused
        return True

    def action_toggle_watch_resume(self) -> None:
        self.action_toggle_watch()

    def action_toggle_watch(self) -> None:
        if not self.watching:
            self.notify("Not watching files in this session", severity="warning")
            return
        paused = not self.session.paused
        pending = len(self.session.pending_changes)
        self.session.set_paused(paused)
        if paused:
            self.notify("Watching paused: changes are remembered until you resume (w)")
        else:
            self.notify("Watching resumed" + (f": running for {pending} changed file(s)" if pending else ""))
        self.refresh_bindings()
        self._render_status()

    def action_edit(self) -> None:
        key = self.tree.selected_row
        found = self.state.find_row(key) if key else None
        if found is None:
            self.notify("Select a row to open its eval-set file", severity="warning")
            return
        eval_set, row = found
        argv = editor_argv(eval_set.path, row_line(eval_set.path, row.id, row.index))
        try:
            with self.suspend():
                subprocess.run(argv, timeout=EDITOR_TIMEOUT_S, check=False)
        except FileNotFoundError:
            self.notify(f"Editor not found: {one_line(argv[0], 60)} (set $EDITOR)", severity="error")
        except subprocess.TimeoutExpired:
            self.notify("The editor was still open after 12 hours and was stopped", severity="warning")
        except Exception as exc:  # SuspendNotSupported and friends: say so instead of crashing
            self.notify(f"Cannot open an editor here: {one_line(str(exc), 100)}", severity="error")
        self.refresh()

    def action_accept(self) -> None:
        key = self.tree.selected_row
        found = self.state.find_row(key) if key else None
        if found is None or self.state.project is None:
            self.notify("Select a failing row to accept its actual output", severity="warning")
            return
        eval_set, row = found
        if self.state.row_verdict(eval_set, row) is Verdict.PASS:
            self.notify("This row passes: its expectation already matches the output")
            return
        results = [r for r in self.state.row_results(eval_set, row) if r is not None]
        evaluators = self._evaluators_of(eval_set)
        kept, notes = acceptable(results, evaluators)
        try:
            if not kept:
                raise WritebackError("none of this row's evaluators compares the output with expectedOutput"
                                     + (f" ({'; '.join(notes)})" if notes else ""))
            plan = plan_accept(self.config.root, eval_set.path, kept, evaluators)
        except WritebackError as exc:
            self.notify(f"Cannot accept: {exc}", severity="error", timeout=10)
            return
        if not plan.changed:
            self.notify("Nothing to change: the file already holds this output as the expectation")
            return
        self.push_screen(AcceptScreen(plan, row.label, notes + plan.notes),
                         lambda written: self._after_write(bool(written), key))

    def action_add_row(self) -> None:
        project = self.state.project
        if project is None or not project.sets:
            self.notify("There is no eval set to add a row to", severity="warning")
            return
        selected = self.tree.selected_set
        eval_set = next((s for s in project.sets if (s.scope, s.file_name) == selected), project.sets[0])
        self.push_screen(AddRowScreen(self.config, eval_set, self._evaluators_of(eval_set),
                                      self.session.engine.runner_factory),
                         lambda written: self._after_write(bool(written), None))

    def _evaluators_of(self, eval_set: EvalSet) -> dict[str, EvaluatorDef]:
        project = self.state.project
        assert project is not None
        return {ref: ev for (scope, ref), ev in project.evaluators.items() if scope == eval_set.scope}

    def _after_write(self, written: bool, key: RowKey | None) -> None:
        """The watcher picks the change up by itself; without one, run what changed now."""
        if not written or (self.watching and not self.session.paused):
            return
        if key is not None:
            self.session.request(Trigger("row", (key[1],)), RowFilter(row_keys=frozenset({key})), replace=False)
        else:
            self.session.request(Trigger("manual"))

    def _selected_result_value(self, field: str) -> Any:
        result = self.detail.current_result if self.tree.selected_row else None
        return None if result is None else getattr(result, field)

    def action_copy_actual(self) -> None:
        self._copy("actual", "actual output")

    def action_copy_expected(self) -> None:
        self._copy("expected", "expected output")

    def _copy(self, field: str, what: str) -> None:
        value = self._selected_result_value(field)
        if value is None:
            self.notify(f"No {what} to copy for the selected row", severity="warning")
            return
        text = jsonio.dumps(value, indent=True)
        self.copy_to_clipboard(text)
        self.notify(f"Copied the {what} ({len(text)} characters)", timeout=2)

    def action_show_tab(self, tab: str) -> None:
        self.query_one("#bottom", TabbedContent).active = tab

    def action_help(self) -> None:
        self.push_screen(HelpScreen(list(self.BINDINGS)))

    def action_expand_all(self) -> None:
        self.tree.root.expand_all()

    def action_collapse_all(self) -> None:
        for node in self.tree.root.children:
            node.collapse()

    async def action_quit(self) -> None:
        await self.shutdown()
        self.exit()

    async def shutdown(self) -> None:
        """Stop watching and kill every running target before the app goes away."""
        if self._closed:
            return
        self._closed = True
        self.workers.cancel_group(self, "watch")
        await self.session.aclose()

    async def on_unmount(self) -> None:
        await self.shutdown()

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield SystemCommand("run: re-run everything", "Run every row now (R)", self.action_rerun_all)
        yield SystemCommand("run: re-run failing rows", "Run only the rows that fail or error now",
                            self.action_rerun_failures)
        yield SystemCommand("view: failures only", "Toggle showing failing rows only (f)", self.action_toggle_failures)
        yield SystemCommand("view: expand all sets", "Expand every eval set", self.action_expand_all)
        yield SystemCommand("view: collapse all sets", "Collapse every eval set", self.action_collapse_all)
        yield SystemCommand("view: history", "Show the iteration history (2)", lambda: self.action_show_tab("history"))
        yield SystemCommand("view: evaluators", "Show the evaluators (3)", lambda: self.action_show_tab("evaluators"))
        yield SystemCommand("copy: expected output", "Copy the selected row's expected output",
                            self.action_copy_expected)
        yield SystemCommand("watch: pause or resume", "Pause or resume watching files (w)", self.action_toggle_watch)


def make_app(config: Config, *, watch: bool = True, record: bool = True,
             runner_factory: RunnerFactory = make_runner, welcome: str | None = None) -> WorkbenchApp:
    """The one factory for the CLI, the tests and the screenshot script."""
    return WorkbenchApp(config, watch=watch, record=record, runner_factory=runner_factory, welcome=welcome)


def run_app(config: Config, *, watch: bool = True, welcome: str | None = None) -> None:
    make_app(config, watch=watch, welcome=welcome).run()

