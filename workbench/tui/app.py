"""The workbench TUI: panes over the engine's Session. Built by `make_app` for the CLI, the tests and the
screenshot script alike.

This file wires the engine to the screen: the layout and the keys are `MainScreen`'s (main_screen.py),
what a key does lives in `triage_rows.py` / `triage_writes.py`, how RunState is painted in each pane's
module (`state_changed`; the screen passes RunState's changes on)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterable
from functools import partial
from typing import Any, ClassVar

from textual import on, work
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.css.query import NoMatches
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.worker import Worker, WorkerState

from ..actions.signals import on_stop_signals
from ..config import Config
from ..engine import RunnerFactory
from ..errors import WorkbenchError
from ..events import Trigger, TriggerKind
from ..project import load_project
from ..rescoring import RowFilter
from ..runners import make_runner
from ..session import Session
from ..textsafe import one_line, printable
from .commands import PALETTE
from .engine_link import EngineLink
from .main_screen import MainScreen
from .messages import EngineMessage, IterationBegan, IterationDone, RowsChanged, SessionIdle
from .panes import Panes
from .path_text import fold_paths
from .settling import quiet
from .state import RunState, next_iteration_number
from .watch_control import WATCH_GROUP, WatchControl


def worker_failure(worker: Worker[Any]) -> str:
    """What to tell the user when a background job died."""
    error = worker.error
    what = worker.description or worker.name or "a background job"
    why = str(error) if isinstance(error, WorkbenchError) else f"{type(error).__name__}: {error}"
    return f"{what} failed: {one_line(why, 300)}"


class WorkbenchApp(App[None]):
    """The engine's side of the TUI: the Session, its messages (engine_link.py) painted onto the main
    screen, the file watcher, background jobs' failures, and a clean quit. The screen holds the panes and
    the keys (main_screen.py)."""

    CSS_PATH = "app.tcss"
    TITLE = "workbench"
    # Ctrl-C quits, from any screen and any field (Textual's own only says how to quit, and copies in an
    # input): the reflex that stops a run must stop this one, running targets included (`action_quit`).
    BINDINGS: ClassVar[list[BindingType]] = [Binding("ctrl+c", "quit", "Quit", show=False, priority=True)]

    def __init__(self, config: Config, *, watch: bool = True, record: bool = True,
                 runner_factory: RunnerFactory = make_runner, welcome: str | None = None,
                 show_path: bool = False) -> None:
        super().__init__()
        self.config = config
        self.welcome = welcome
        self.state = RunState(RowFilter().narrowed(config.overrides.tags, config.overrides.kinds))
        self.link = EngineLink(self, self.state)
        self._notices: list[str] = []  # before the Session: opening the history may already notify
        self.session = Session(config, on_event=self.link.event, on_iteration=self.link.iteration,
                               on_notice=self._session_notice, on_idle=self.link.idle, record=record,
                               runner_factory=runner_factory)
        # show_path: the demo's project is a temporary copy the user must find to edit
        self.main = MainScreen(config, self.session, self.state, watching=watch, show_path=show_path,
                               welcome=welcome)
        self.watcher = WatchControl(self, self.session, watching=watch, changed=self._watch_changed)
        self._closed = False
        self.closing = threading.Event()  # set when the app closes: writes stop waiting for a lock
        self._remove_signal_handlers: Callable[[], None] = lambda: None

    def get_default_screen(self) -> MainScreen:
        return self.main

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = False) -> None:
        """Notifications carry file and row names: never read them as markup, never pass on escapes, and a path
        too long for the toast's line is broken after a `/`, not in the middle of a name."""
        super().notify(fold_paths(printable(message), self.toast_width), title=printable(title), severity=severity,
                       timeout=timeout, markup=markup)

    @property
    def toast_width(self) -> int:
        """The cells of a notice's line: 90% of the screen (app.tcss's Toast) less its padding and edge."""
        return max(int(self.size.width * 0.9) - 4, 20)

    @on(Panes.Ready)
    def _screen_ready(self) -> None:
        if self.welcome:
            self.notify(self.welcome, title="workbench", timeout=10)  # `p` shows it again
        for text in self._notices:
            self.notify(text, severity="warning", timeout=8)
        # SIGTERM / SIGHUP (`kill`, a closed terminal) quit like `q`, so no target is left running.
        self._remove_signal_handlers = on_stop_signals(self._stop_signalled)
        self._start()

    def _stop_signalled(self, _signum: int) -> None:
        self.call_later(self.action_quit)

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
        self.main.apply_changes()
        if self.main.watching:
            self.watcher.start(initial=True)
        else:
            self.session.request(Trigger(TriggerKind.START))
        await self.link.serve(self.session)  # a coding agent's requests join this loop (session_link)

    # -- engine → UI: the Session's callbacks post messages (engine_link.py); the screen repaints --------

    def _session_notice(self, text: str) -> None:
        if self.is_running:
            self.notify(text, severity="warning", timeout=8)
        else:
            self._notices.append(text)

    def _repaint(self, message: EngineMessage) -> None:
        try:
            if not self.closing.is_set():
                self.main.apply_changes()
        except NoMatches:
            # The panes are never removed while the app runs: only Textual's shutdown takes them away, and a
            # repaint queued behind it has nothing left to paint (it failed the app's exit on a loaded machine).
            pass
        self.link.applied(message)

    def on_iteration_began(self, message: IterationBegan) -> None:
        if message.trigger.kind == TriggerKind.CHANGE:
            self.notify(f"Reloaded: {one_line(message.trigger.describe(), 80)}", timeout=2)
        self._repaint(message)

    def on_rows_changed(self, message: RowsChanged) -> None:
        self._repaint(message)

    def on_iteration_done(self, message: IterationDone) -> None:
        self._repaint(message)
        self.state.iteration_recorded(message.summary)
        self.main.iteration_done(message)

    def on_session_idle(self, message: SessionIdle) -> None:
        if self.state.running:  # cancelled, and nothing replaced it: its rows stop showing as running
            self.state.mark_cancelled()
        self._repaint(message)

    @on(Panes.Written)
    def _written(self, event: Panes.Written) -> None:
        """The watcher picks a written change up by itself; without one, run what changed now."""
        if self.main.watching and not self.session.paused and not self.watcher.stopped:
            return
        if event.row is not None:
            self.session.request(Trigger(TriggerKind.ROW, (event.row[1],)),
                                 RowFilter(row_keys=frozenset({event.row})), replace=False)
        else:
            self.session.request(Trigger(TriggerKind.MANUAL))

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
        return (not self.session.running and self.link.caught_up and not self.main.history_pane.busy
                and not any(w.group != WATCH_GROUP and not w.is_finished for w in self.workers)
                and quiet(self))

    # -- watching ------------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The footer offers Pause while watching and Resume while paused (both are `w`)."""
        if action == "toggle_watch" and parameters:
            return self.session.paused == (parameters[0] == "resume")
        return True

    def action_toggle_watch(self, _shown: str = "") -> None:
        """`w` (shown as Pause or as Resume): pause or resume watching, or restart a stopped watcher."""
        self.watcher.toggle()

    def _watch_changed(self) -> None:
        """The watcher stopped, restarted, paused or resumed (or, while paused, saw more changes)."""
        self.main.watcher_changed(self.watcher.stopped)

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        for title, help_text, action in PALETTE:
            yield SystemCommand(title, help_text, partial(self.run_action, action, self.main))

    # -- quitting ------------------------------------------------------------------------------------

    def exit(self, *args: Any, **kwargs: Any) -> None:
        """Ask the app to close; a write still waiting for another writer's lock gives up now (Textual
        waits for its workers before the app unmounts)."""
        self.closing.set()
        super().exit(*args, **kwargs)

    async def action_quit(self) -> None:
        await self.shutdown()
        self.exit()

    async def shutdown(self) -> None:
        """Stop watching and kill every running target before the app goes away."""
        if self._closed:
            return
        self.closing.set()  # a write waiting for another writer's lock gives up (nothing written)
        self._closed = self.link.closed = True
        self._remove_signal_handlers()
        self.workers.cancel_group(self, WATCH_GROUP)
        await self.link.aclose()
        await self.session.aclose()

    async def on_unmount(self) -> None:
        await self.shutdown()


def make_app(config: Config, *, watch: bool = True, record: bool = True,
             runner_factory: RunnerFactory = make_runner, welcome: str | None = None,
             show_path: bool = False) -> WorkbenchApp:
    """The one factory for the CLI, the tests and the screenshot script. `show_path`: keep the project's
    folder on screen (the demo's temporary copy)."""
    return WorkbenchApp(config, watch=watch, record=record, runner_factory=runner_factory, welcome=welcome,
                        show_path=show_path)


def run_app(config: Config, *, watch: bool = True, welcome: str | None = None) -> None:
    make_app(config, watch=watch, welcome=welcome).run()
