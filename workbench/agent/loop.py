"""`AgentLoop`: the loop as a coding agent drives it, one tool call at a time.

Between calls it keeps a warm `Session` (its runners stay up; a row whose recorded run is proven unchanged
is re-scored, not run — after an expectation edit nothing runs). When a TUI or `watch` session runs on
the project, a `run` joins it instead (`session_link.ask_live_session`): the person's session runs the
iteration, or has already, and the agent reads it from history — the same edit never runs twice.

No call waits past its `wait_s`: an iteration that outlasts it is left running under a handle, which
`status(handle)` waits on again. A waiter that is cancelled (the agent cancelled its request) cancels the
iteration it waits on, which kills its processes. `[agent] max_iterations` bounds how many iterations
one agent session may start.
"""

from __future__ import annotations

import asyncio
import importlib
import itertools
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from ..actions.gate import known_names
from ..config import Config
from ..engine import RunnerFactory
from ..errors import WorkbenchError
from ..events import Event, IterationReport, IterationStarted, ResultReady, Trigger, TriggerKind
from ..history import HistoryError, HistoryStore
from ..model import Project, Result, RowKey, results_by_row, row_passes
from ..project import load_project
from ..rescoring import RowFilter, planned_keys
from ..runners import make_runner
from ..session import Session
from ..textsafe import counted
from .digest import Digest, build_digest
from .recorded import digest_of

# The trigger an agent's iteration is recorded with: `agent` (session_link's, shown "asked by agent"), or
# `run` in a checkout without it.
AGENT_KIND = TriggerKind.__members__.get("AGENT", TriggerKind.RUN)

PROGRESS_EVERY_S = 0.1
HANDLES_KEPT = 20  # finished iterations whose digest nobody asked for are dropped beyond this many

ProgressSink = Callable[[int, int], Awaitable[None]]  # rows done, rows total
LiveAsk = Callable[..., Awaitable[object]]


class AgentRefusal(WorkbenchError):
    """A tool call refused in words (the guard rails, a name that matches nothing); nothing ran."""

    exit_code = 1


@dataclass(frozen=True, slots=True)
class RunAsk:
    sets: tuple[str, ...] = ()
    rows: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    failing_only: bool = False
    reuse: bool = True
    wait_s: float = 60.0
    repeat: int | None = None  # [runner] repeat for this iteration only (None: the project's setting)


@dataclass(slots=True)
class Pending:
    """An iteration asked for by `run`, running or finished, until its digest has been handed out."""

    handle: str
    future: asyncio.Future[Digest] | None = None
    done: int = 0
    total: int = 0
    results: list[Result] = field(default_factory=list)
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    project: Project | None = None

    def progress(self, done: int, total: int) -> None:
        self.done, self.total = done, total
        self.changed.set()


def _retrieved(future: asyncio.Future[Digest]) -> None:
    """Mark the outcome seen: an iteration nobody waits for any more is no 'exception never retrieved'."""
    if not future.cancelled():
        future.exception()


def _live_asker() -> LiveAsk | None:
    """H7's `ask_live_session`, when that module is there."""
    try:  # by name: the module is H7's (workbench/session_link/), and may not be there in every checkout
        module = importlib.import_module("workbench.session_link")
    except ImportError:
        return None
    asker: LiveAsk | None = getattr(module, "ask_live_session", None)
    return asker


class AgentLoop:
    """The warm loop behind the MCP tools for one project (the one given at start, and no other)."""

    def __init__(self, config: Config, *, runner_factory: RunnerFactory = make_runner, join_live: bool = True) -> None:
        self.config = config
        self.root = config.root
        self.runner_factory = runner_factory
        self.join_live = join_live
        self.session: Session | None = None
        self.started = 0  # iterations this agent session started or joined ([agent] max_iterations)
        self.pending: dict[str, Pending] = {}
        self._current: Pending | None = None  # the pending the session's events belong to
        self._numbers = itertools.count(1)
        self.last_notice = ""  # the session's newest notice (why an iteration did not run)

    # -- the session ---------------------------------------------------------------------------------

    def _session(self) -> Session:
        if self.session is None:
            self.session = Session(self.config, on_event=self._on_event, on_notice=self._notice,
                                   runner_factory=self.runner_factory)
        return self.session

    def _notice(self, text: str) -> None:
        self.last_notice = text
        print(f"workbench mcp: {text}", file=sys.stderr, flush=True)

    def _on_event(self, event: Event) -> None:
        pending = self._current
        if pending is None:
            return
        if isinstance(event, IterationStarted):
            pending.results.clear()
            pending.project = event.project
            pending.progress(0, event.total_rows)
        elif isinstance(event, ResultReady):
            pending.results.append(event.result)
            if event.row_complete:
                pending.progress(event.done_rows, event.total_rows)

    @property
    def live_config(self) -> Config:
        """The settings as the last iteration read them (the session re-reads them every iteration)."""
        return self.session.config if self.session is not None else self.config

    async def aclose(self) -> None:
        for pending in self.pending.values():
            if pending.future is not None and not pending.future.done():
                pending.future.cancel()
        if self.session is not None:
            await self.session.aclose()
            self.session = None

    # -- run and status ------------------------------------------------------------------------------

    def _guard(self) -> None:
        limit = self.live_config.agent.max_iterations
        if limit is not None and self.started >= limit:
            raise AgentRefusal(
                f"not run: [agent] max_iterations = {limit} reached "
                f"({counted(self.started, 'iteration')} in this session). Stop here and report the per-row state "
                "(history() has it), or ask the user to raise the limit in workbench.toml and restart `workbench mcp`.")

    async def selection(self, ask: RunAsk) -> RowFilter:
        """The rows `ask` names; AgentRefusal when a name matches nothing (with the names there are)."""
        selection = RowFilter(sets=ask.sets, rows=ask.rows, tags=ask.tags)
        project = await asyncio.to_thread(load_project, self.root, self.live_config)
        missing = selection.unmatched(project)
        if missing:
            raise AgentRefusal(f"nothing matches {' and '.join(missing)} ({known_names(project, selection)})")
        if ask.failing_only:
            failing = await asyncio.to_thread(self._failing_rows)
            if failing is None:
                raise AgentRefusal("failing_only: nothing has run yet, so no row is known to fail; run() first")
            chosen = planned_keys(project, selection) & failing  # the selected rows an iteration runs that failed
            if not chosen:
                raise AgentRefusal("failing_only: no selected row failed in its last run; run() without it "
                                   "to check everything")
            selection.row_keys = chosen
        return selection

    def _failing_rows(self) -> set[RowKey] | None:
        """Rows whose newest recorded run did not pass, whoever ran it (this server, a TUI, `watch`, `run`):
        each row's verdict in the newest iteration that ran it, back to the newest full one. None when
        history has nothing."""
        try:
            with HistoryStore.open(self.config) as store:
                known: dict[RowKey, bool] = {}
                for info in reversed(store.iterations(limit=50)):
                    for key, group in results_by_row(store.results(info.number)).items():
                        known.setdefault(key, row_passes(group))
                    if not info.partial:
                        break
        except HistoryError:
            return None
        return {key for key, passed in known.items() if not passed} if known else None

    async def run(self, ask: RunAsk, on_progress: ProgressSink | None = None) -> Digest:
        """Start (or join) an iteration and wait for it up to `ask.wait_s`."""
        self._guard()
        selection = await self.selection(ask)
        pending = Pending(f"run-{next(self._numbers)}")
        self._forget_old()
        self.pending[pending.handle] = pending
        self.started += 1
        pending.future = asyncio.ensure_future(self._iterate(pending, selection, ask.reuse, ask.repeat))
        pending.future.add_done_callback(_retrieved)
        return await self.wait(pending, ask.wait_s, on_progress)

    def _forget_old(self) -> None:
        done = [handle for handle, p in self.pending.items() if p.future is not None and p.future.done()]
        for handle in done[:max(0, len(self.pending) - HANDLES_KEPT + 1)]:
            del self.pending[handle]

    async def status(self, handle: str, wait_s: float, on_progress: ProgressSink | None = None) -> Digest:
        pending = self.pending.get(handle)
        if pending is None:
            known = ", ".join(self.pending) or "none"
            raise AgentRefusal(f"no iteration with handle {handle!r} (handles: {known}); run() starts one")
        return await self.wait(pending, wait_s, on_progress)

    async def wait(self, pending: Pending, wait_s: float, on_progress: ProgressSink | None) -> Digest:
        """The digest when the iteration ends within `wait_s`; else the progress so far, with the handle.
        Cancelled while waiting: the iteration is cancelled too (its processes are killed)."""
        future = pending.future
        assert future is not None
        loop = asyncio.get_running_loop()
        deadline = loop.time() + max(0.0, wait_s)
        sent, sent_at = (-1, -1), -PROGRESS_EVERY_S
        try:
            while not future.done():
                remaining = deadline - loop.time()
                if remaining <= 0:
                    break
                pending.changed.clear()
                changed = asyncio.ensure_future(pending.changed.wait())
                try:
                    waiting: set[asyncio.Future[Any]] = {future, changed}
                    await asyncio.wait(waiting, timeout=remaining, return_when=asyncio.FIRST_COMPLETED)
                finally:
                    changed.cancel()
                now = (pending.done, pending.total)
                # At most one notification per PROGRESS_EVERY_S (10,000 rows are not 10,000 messages); the last
                # state always goes out before the answer.
                due = future.done() or loop.time() - sent_at >= PROGRESS_EVERY_S
                if on_progress is not None and now != sent and pending.total and due:
                    sent, sent_at = now, loop.time()
                    await on_progress(*sent)
        except asyncio.CancelledError:
            future.cancel()
            raise
        if not future.done():
            return self._so_far(pending)
        self.pending.pop(pending.handle, None)
        if future.cancelled():
            raise AgentRefusal(f"iteration {pending.handle} was cancelled (a newer run() replaced it, or it was "
                               "stopped); call run() again")
        return future.result()

    def _so_far(self, pending: Pending) -> Digest:
        digest = build_digest(pending.results, pending.project, iteration=None, complete=False,
                              rows_total=pending.total)
        digest.handle, digest.progress = pending.handle, (pending.done, pending.total)
        digest.next = f'status(handle="{pending.handle}") waits for the rest'
        return digest

    async def _iterate(self, pending: Pending, selection: RowFilter, reuse: bool,
                       repeat: int | None = None) -> Digest:
        """The iteration for `pending`: joined from a live session when one runs, else run here (`repeat`:
        each row that many times, for this iteration only — never joined: a live session runs its own count)."""
        if reuse and self.join_live and repeat is None:
            joined = await self._join_live(pending, selection)
            if joined is not None:
                return joined
        session = self._session()
        self._current = pending
        # AGENT (history: "asked by agent") re-scores what is proven unchanged; MANUAL (reuse=false) runs every
        # selected row, as R does.
        trigger = Trigger(AGENT_KIND if reuse else TriggerKind.MANUAL)
        self.last_notice = ""
        overrides = session.config.overrides.settings
        before = overrides.get("runner.repeat")
        if repeat is not None:
            overrides["runner.repeat"] = repeat  # applied when the session re-reads the settings for it
        task = session.request(trigger, selection)
        try:
            report = await task
        except asyncio.CancelledError:
            task.cancel()
            raise
        finally:
            if repeat is not None:
                if before is None:
                    overrides.pop("runner.repeat", None)
                else:
                    overrides["runner.repeat"] = before
            if self._current is pending:
                self._current = None
        if report is None:
            raise AgentRefusal(self.last_notice or "the iteration did not run")
        return await asyncio.to_thread(self._digest_report, session, report)

    def _digest_report(self, session: Session, report: IterationReport) -> Digest:
        stall_after = session.config.watch.stall_after
        if session.history is None or report.number is None:
            return build_digest(report.results, report.project, iteration=report.number,
                                problems=report.problems, rescored=report.reused_rows,
                                trigger=report.trigger.describe(), duration_s=report.duration_s)
        return digest_of(session.history, report.number, report.project, stall_after, results=report.results,
                         problems=report.problems, rescored=report.reused_rows, duration_s=report.duration_s,
                         trigger=report.trigger.describe())

    async def _join_live(self, pending: Pending, selection: RowFilter) -> Digest | None:
        """The answer of a TUI/`watch` session on this project (it ran, joined or already had the iteration
        for these files), read from history; None when none serves the project (then this process runs it)."""

        def progress(done: int, total: int) -> None:
            pending.progress(done, total)

        try:
            asker = _live_asker()
            if asker is None:
                return None
            linked = await asker(self.root, selection, asked_by="agent", on_progress=progress)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a live session that can't answer: run here instead
            self._notice(f"could not join the live session ({exc}); running here")
            return None
        number = getattr(linked, "number", None)
        if not isinstance(number, int):
            return None
        how = getattr(linked, "how", "joined")
        return await asyncio.to_thread(self.digest_recorded, number, str(how))

    def digest_recorded(self, number: int, how: str) -> Digest:
        """The digest of recorded iteration `number`, told how the live session answered (`how`: joined,
        recorded, ran)."""
        project = load_project(self.root, self.live_config)
        with HistoryStore.open(self.config) as store:
            digest = digest_of(store, number, project, self.live_config.watch.stall_after)
        said = {"joined": "joined the live session's iteration", "recorded": "the live session's iteration "
                "answers for these files: nothing ran again", "ran": "the live session ran it"}.get(how, how)
        digest.trigger = f"{digest.trigger} — {said}"
        digest.live = how
        return digest

