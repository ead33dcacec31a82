"""The Session's callbacks, turned into messages posted to the app (see `messages.py`).

It runs on the app's event loop (the engine does), so it only updates RunState and posts: the app's
handlers repaint. Messages keep the engine's order; row updates are batched into one `RowsChanged` at
most every `REPAINT_INTERVAL_S`; and it counts what was posted and what the app applied, so
`caught_up` says when the screen shows everything the engine said. It also serves the session to this
user's other processes (`session_link`: a coding agent joins the loop) and says when one was answered."""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import partial

from textual.app import App
from textual.message_pump import MessagePump
from textual.timer import Timer

from ..events import Event, IterationReport, IterationStarted
from ..progress import IterationSummary
from ..session import Session
from ..session_link import AgentAsk, LinkServer
from .messages import EngineMessage, IterationBegan, IterationDone, RowsChanged, SessionIdle
from .state import RunState

REPAINT_INTERVAL_S = 0.1  # row updates repaint at most this often: a repaint costs a frame, not one row


class EngineLink:
    def __init__(self, app: MessagePump, state: RunState) -> None:
        self.app = app
        self.state = state
        self.closed = False  # the app is going away: post nothing more
        self._posted = self._applied = 0  # sequence numbers of the last message posted / applied
        self._rows_due = False  # a RowsChanged is posted or waiting for its interval
        self._rows_painted_at = 0.0
        self._rows_timer: Timer | None = None
        self.server: LinkServer | None = None

    @property
    def caught_up(self) -> bool:
        return not self._rows_due and self._applied == self._posted

    # -- the Session's callbacks ---------------------------------------------------------------------

    def event(self, event: Event) -> None:
        self.state.apply(event)
        if isinstance(event, IterationStarted):
            self._post_in_order(partial(IterationBegan, trigger=event.trigger))
        elif not self._rows_due:
            self._rows_due = True
            wait = REPAINT_INTERVAL_S - (time.monotonic() - self._rows_painted_at)
            if wait > 0:
                self._rows_timer = self.app.set_timer(wait, self._post_rows)
            else:
                self._post_rows()

    def iteration(self, report: IterationReport, summary: IterationSummary) -> None:
        self._post_in_order(partial(IterationDone, report=report, summary=summary))

    def idle(self) -> None:
        self._post_in_order(SessionIdle)

    # -- other processes asking the session (session_link) -------------------------------------------

    async def serve(self, session: Session) -> None:
        """Answer this user's other processes (a coding agent) with the session's iterations."""
        if self.closed or self.server is not None:
            return
        self.server = LinkServer(session, on_asked=self.asked, on_notice=self._notice)
        await self.server.start()

    async def aclose(self) -> None:
        server, self.server = self.server, None
        if server is not None:
            await server.aclose()

    def asked(self, ask: AgentAsk) -> None:
        """`iteration 12 · asked by agent` (history shows an iteration the agent started as asked by it)."""
        self._notice(ask.line(), "information")

    def _notice(self, text: str, severity: str = "warning") -> None:
        if not self.closed and isinstance(self.app, App):
            self.app.notify(text, severity="information" if severity == "information" else "warning", timeout=6)

    # -- the app's side ------------------------------------------------------------------------------

    def applied(self, message: EngineMessage) -> None:
        """The app has repainted for `message` (and so for everything posted before it)."""
        self._applied = message.seq
        if isinstance(message, RowsChanged):
            self._rows_due = False
            self._rows_painted_at = time.monotonic()

    # -- posting -------------------------------------------------------------------------------------

    def _post(self, make: Callable[[int], EngineMessage]) -> None:
        if not self.closed:
            self._posted += 1
            self.app.post_message(make(self._posted))

    def _post_rows(self) -> None:
        self._rows_timer = None
        self._post(RowsChanged)

    def _post_in_order(self, make: Callable[[int], EngineMessage]) -> None:
        """Post after the row repaint still waiting for its interval, so messages keep the engine's order."""
        if self._rows_timer is not None:
            self._rows_timer.stop()
            self._post_rows()
        self._post(make)
