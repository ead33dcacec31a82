"""Watching the project from the TUI: one exclusive worker over `Session.watch`, `w` to pause and resume,
and what happens when the watcher dies — it is restarted a few times (re-running everything, since
changes made meanwhile were missed), then the status line says watching stopped and `w` restarts it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.app import App
from textual.timer import Timer

from ..session import Session

WATCH_GROUP = "watch"
MAX_RESTARTS = 3
PAUSED_REFRESH_S = 0.5  # while paused, the status line recounts the changes waiting this often


class WatchControl:
    def __init__(self, app: App[Any], session: Session, *, watching: bool, changed: Callable[[], None]) -> None:
        self.app = app  # runs the watch worker and shows the notices
        self.session = session
        self.watching = watching  # this TUI watches files (`workbench open` without --no-watch)
        self.changed = changed  # told after `stopped` or the pause changed (the status line shows them)
        self.restarts = 0
        self.stopped = False  # the watcher died and was not restarted: the status line says so
        self._paused_timer: Timer | None = None

    def start(self, *, initial: bool) -> None:
        """Watch (running everything first when `initial`); replaces a watcher already running."""
        self.stopped = False
        self.app.run_worker(self.session.watch(initial=initial), group=WATCH_GROUP, exclusive=True,
                            exit_on_error=False, description="watching the project for changes")

    def ended(self) -> None:
        """The watch worker ended although nothing cancelled it (its error was already shown)."""
        if self.restarts < MAX_RESTARTS:
            self.restarts += 1
            self.app.notify("Watching restarted; everything re-runs to catch up with changes made meanwhile",
                            severity="warning", timeout=8)
            self.start(initial=True)
        else:
            self.stopped = True
            self.app.notify("Watching stopped: file changes no longer re-run anything. Press w to restart "
                            "watching, R to re-run by hand", severity="error", timeout=30)
        self.changed()

    def toggle(self) -> None:
        """`w`: pause or resume watching; after the watcher stopped on errors, start it again."""
        app, session = self.app, self.session
        if not self.watching:
            app.notify("Not watching files in this session", severity="warning")
            return
        if self.stopped:
            self.restarts = 0
            self.start(initial=True)
            app.notify("Watching restarted")
        else:
            paused = not session.paused
            pending = len(session.pending_changes)
            session.set_paused(paused)
            if paused:
                app.notify("Watching paused: changes are remembered until you resume (w)")
                # the watcher only remembers changes while paused: recount them for the status line
                self._paused_timer = app.set_interval(PAUSED_REFRESH_S, self.changed)
            else:
                if self._paused_timer is not None:
                    self._paused_timer.stop()
                    self._paused_timer = None
                app.notify("Watching resumed" + (f": running for {pending} changed file(s)" if pending else ""))
        app.refresh_bindings()  # the footer offers Resume while paused, Pause otherwise
        self.changed()
