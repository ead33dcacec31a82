"""The headless test-until-green loop with its exits (seed 003 §3): iterate on every change until a
stop rule ends it — all green (`--until-green`), a number of iterations (`--max-iterations`), no
progress (`--stop-on-stall`) — or until it is stopped. Nothing here prints: the caller gets every
iteration as it completes, and at the end the rule that stopped the loop and the per-row state
(`tracker`, for `progress.final_summary`). While it watches, it answers this user's other processes
(a coding agent) with its iterations (`session_link`); `on_asked` hears of each answer."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

from ..config import Config
from ..events import EventSink, IterationReport
from ..progress import IterationSummary, LoopEnd, LoopTracker, StopRules
from ..session import IterationSink, NoticeSink, Session
from ..session_link import AgentAsk, LinkServer


class WatchLoop:
    """A Session watching the project, stopped by `rules` (or by cancelling `run`)."""

    def __init__(self, config: Config, rules: StopRules, *, on_event: EventSink | None = None,
                 on_iteration: IterationSink | None = None, on_notice: NoticeSink | None = None,
                 on_asked: Callable[[AgentAsk], None] | None = None) -> None:
        self.rules = rules
        self.completed = 0  # full iterations
        self.end: LoopEnd | None = None
        self._on_iteration = on_iteration or (lambda _report, _summary: None)
        self._ended: asyncio.Event | None = None
        self.session = Session(config, on_event=on_event, on_iteration=self._iteration_done, on_notice=on_notice)
        self.link = LinkServer(self.session, on_asked=on_asked, on_notice=on_notice)

    @property
    def tracker(self) -> LoopTracker:
        return self.session.tracker

    def _iteration_done(self, report: IterationReport, summary: IterationSummary) -> None:
        self._on_iteration(report, summary)
        if not summary.partial:
            self.completed += 1
        end = self.rules.check(summary, self.completed)
        if end is not None and self.end is None:
            self.end = end
            if self._ended is not None:
                self._ended.set()

    async def run(self) -> LoopEnd | None:
        """Watch until a stop rule ends the loop (its LoopEnd) or the task is cancelled; either way the
        running targets are stopped and history is closed before this returns."""
        self._ended = asyncio.Event()
        await self.link.start()
        watcher = asyncio.ensure_future(self.session.watch())
        ended = asyncio.ensure_future(self._ended.wait())
        try:
            await asyncio.wait({watcher, ended}, return_when=asyncio.FIRST_COMPLETED)
            if watcher.done():
                watcher.result()  # the watcher stopped by itself: raise what stopped it
        finally:
            for task in (watcher, ended):
                task.cancel()
            for task in (watcher, ended):
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            await self.link.aclose()
            await self.session.aclose()
        return self.end
