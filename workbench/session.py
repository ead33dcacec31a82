"""The test-until-green loop as an object: the plain watch loop and the TUI both drive a Session.

A Session runs one iteration at a time. Asking for a new one (a file changed, the user pressed R)
cancels the running one first — its children are killed and nothing of it is recorded — then runs
the new one on freshly read files. Completed iterations are recorded in the history and compared
with what came before (fixed, newly failing, stalled).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable

from . import compare
from .config import Config, ConfigError, reload_config
from .dialects import runner_needed
from .engine import Engine, RunnerFactory
from .events import Event, EventSink, IterationReport, IterationStarted, ResultReady, Trigger, TriggerKind
from .history import HistoryError, HistoryStore
from .model import Problem, Result, RowKey
from .progress import IterationSummary, LoopTracker
from .project import ProjectError
from .rescoring import ReuseBook, ReusePolicy, RowFilter, outcomes_from_results
from .runners import RunOutcome, make_runner
from .settings.problems import settings_problem
from .watching import watch_changes


async def _settle(task: Awaitable[object]) -> None:
    """Wait for another task to finish however it ends; only our own cancellation propagates."""
    try:
        await task
    except asyncio.CancelledError:
        current = asyncio.current_task()
        if current is not None and current.cancelling():
            raise
    except Exception:
        pass  # its outcome was already reported through events


def _fresh_settings(config: Config) -> Config:
    """The settings as the files say now; the runner is checked only when the project's rows need one."""
    return reload_config(config, needs_runner=runner_needed(config.root, config))


IterationSink = Callable[[IterationReport, IterationSummary], None]
NoticeSink = Callable[[str], None]
IdleSink = Callable[[], None]


class Session:
    """Iterations on demand or on file change, one at a time, recorded and compared."""

    def __init__(
        self,
        config: Config,
        *,
        on_event: EventSink | None = None,
        on_iteration: IterationSink | None = None,
        on_notice: NoticeSink | None = None,
        on_idle: IdleSink | None = None,
        record: bool = True,
        runner_factory: RunnerFactory = make_runner,
    ) -> None:
        self.config = config
        self.engine = Engine(config, runner_factory)
        self.engine.keep_runners = True  # worker and python processes outlive an evals/-only change
        self.on_event = on_event or (lambda _event: None)
        self.on_iteration = on_iteration or (lambda _report, _summary: None)
        self.on_notice = on_notice or (lambda _text: None)
        self.on_idle = on_idle or (lambda: None)  # the settled signal: nothing runs or waits any more
        self.history: HistoryStore | None = None
        self.remembered: list[Result] = []  # the newest full iteration's results, from history
        # Whether each row passed when it last ran (history, then every row finished here, even in an
        # iteration cancelled later): the rows that did not start first next time.
        self.verdicts: dict[RowKey, bool] = {}
        self._row_passing: dict[RowKey, bool] = {}
        if record:
            try:
                self.history = HistoryStore.open(config)
                latest = self._latest_full()
                self.remembered = self.history.results(latest) if latest is not None else []
                self.verdicts = self.history.last_verdicts()
            except HistoryError as exc:
                self.history = None
                self.on_notice(f"history is off: {exc}")
        self.tracker = LoopTracker(config.watch.stall_after, self.remembered)
        self.paused = False
        self.watching = False  # watch() runs: a change to a watched file is about to start an iteration
        self.pending_changes: set[str] = set()
        # Re-score rows from their last run when nothing they depend on changed (rescoring/).
        self.reuse = ReuseBook(config.state_dir, self.history.identity if self.history is not None else None,
                               self._recorded_outcomes, persist=self.history is not None)
        self.last_report: IterationReport | None = None
        self._tasks: list[asyncio.Task[IterationReport | None]] = []
        self._warming: asyncio.Future[None] | None = None
        # Other subscribers to the event stream besides `on_event` (session_link streams progress to them).
        self.listeners: list[EventSink] = []
        self._exclusive = asyncio.Lock()  # held by an iteration's run and record, or by `exclusive()`

    def _recorded_outcomes(self, iteration: int) -> dict[RowKey, list[RunOutcome]]:
        """An iteration's outputs as history keeps them (rows recorded by another workbench process)."""
        return outcomes_from_results(self.history.results(iteration)) if self.history is not None else {}

    def _latest_full(self) -> int | None:
        assert self.history is not None
        counts = self.history.pass_counts(limit=1)
        return counts[-1][0] if counts else None

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    # -- running iterations --------------------------------------------------------------------------

    def request(self, trigger: Trigger, selection: RowFilter | None = None, *,
                replace: bool = True) -> asyncio.Task[IterationReport | None]:
        """Start an iteration, cancelling every one in progress or queued (they are then not recorded)
        — or, with `replace=False`, queue it to start when those have finished."""
        if self._warming is None:  # the first failing verdict then needn't wait for deepdiff's import
            self._warming = asyncio.ensure_future(asyncio.to_thread(compare.warm_up))
        earlier = [task for task in self._tasks if not task.done()]
        if replace:
            for task in earlier:
                task.cancel()
        task = asyncio.ensure_future(self._iterate(trigger, selection, earlier))
        task.add_done_callback(self._task_done)
        self._tasks = [*earlier, task]
        return task

    def _task_done(self, _task: asyncio.Future[IterationReport | None]) -> None:
        """Say when the last iteration in progress or queued has ended, however it ended (finished,
        cancelled without a replacement, not run): a front-end can then show that nothing runs."""
        if not self.running and all(task.done() for task in self._tasks):
            self.on_idle()

    @property
    def _task(self) -> asyncio.Task[IterationReport | None] | None:
        return self._tasks[-1] if self._tasks else None

    @property
    def pending(self) -> asyncio.Task[IterationReport | None] | None:
        """The newest iteration that is running or queued (the one whose report comes next), or None."""
        task = self._task
        return task if task is not None and not task.done() else None

    @contextlib.asynccontextmanager
    async def exclusive(self) -> AsyncIterator[None]:
        """Hold off iterations while the block runs (none is mid-run inside it): what looks at the reuse
        book, its file digests and `last_report` from outside an iteration (session_link's proof) sees them
        as the last iteration left them."""
        async with self._exclusive:
            yield

    async def iterate_now(self, trigger: Trigger, selection: RowFilter | None = None) -> IterationReport | None:
        return await self.request(trigger, selection)

    async def _iterate(self, trigger: Trigger, selection: RowFilter | None,
                       earlier: list[asyncio.Task[IterationReport | None]]) -> IterationReport | None:
        for task in earlier:
            await _settle(task)  # a cancelled iteration's children are killed before the next one starts
        # For the loop, an iteration is partial when it re-runs some of the session's rows; history also
        # counts a session that runs only some rows every time (--tag, --type), as `run` does.
        partial = selection is not None and (bool(selection.rows) or selection.row_keys is not None
                                             or bool(selection.sets))
        overrides = self.config.overrides
        recorded_partial = (selection or RowFilter()).narrowed(overrides.tags, overrides.kinds).partial
        async with self._exclusive:
            return await self._run_and_record(trigger, selection, partial, recorded_partial)

    async def _run_and_record(self, trigger: Trigger, selection: RowFilter | None, partial: bool,
                              recorded_partial: bool) -> IterationReport | None:
        config_problem = await self._reload_config()
        self.engine.last_verdicts = dict(self.verdicts)
        try:
            report = await self.engine.run_iteration(trigger, selection, self._emit, reuse=self._policy(trigger))
        except (ConfigError, ProjectError) as exc:
            # evals/ renamed away mid-checkout, a runner that can't start: say so and keep watching.
            self.on_notice(f"iteration not run: {exc}")
            return None
        if config_problem is not None:
            report.problems.insert(0, config_problem)
        if self.history is not None:
            try:
                # In a thread: writing 10,000 results takes a moment the TUI should not freeze for.
                await asyncio.to_thread(self.history.record, report, partial=recorded_partial)
            except HistoryError as exc:
                self.on_notice(f"this iteration was not recorded: {exc}")
        self.reuse.numbered(report.number, {r.row_key for r in report.results})
        await asyncio.to_thread(self.reuse.save)
        summary = self.tracker.update(report, partial=partial)
        summary.number = report.number
        self.last_report = report
        self.on_iteration(report, summary)
        return report

    def _policy(self, trigger: Trigger) -> ReusePolicy:
        """A file change re-scores what it didn't touch; starting, R and r run what they are asked to."""
        if not self.config.cache.reuse:
            return ReusePolicy(self.reuse, False, "re-scoring is off ([cache] reuse = false)")
        why_not = {TriggerKind.START: "the first iteration runs every row",
                   TriggerKind.MANUAL: "R runs every row again",
                   TriggerKind.ROW: "it was asked to run again"}.get(trigger.kind)
        return ReusePolicy(self.reuse, why_not is None, why_not or "")

    async def _reload_config(self) -> Problem | None:
        """Settings are files too: re-read them for every iteration. Unusable settings are reported as a
        problem of this iteration, which then runs with the last good ones."""
        try:
            fresh = await asyncio.to_thread(_fresh_settings, self.config)
        except ConfigError as exc:
            return settings_problem(self.config.root, f"{exc} — this iteration used the previous settings",
                                    self.config.source, file=exc.file)
        if fresh.watch != self.config.watch:
            self.on_notice("[watch] settings changed; they take effect when workbench restarts")
        self.config = fresh
        self.engine.config = fresh
        return None

    def _emit(self, event: Event) -> None:
        if isinstance(event, ResultReady):
            key = event.result.row_key
            self._row_passing[key] = self._row_passing.get(key, True) and event.result.passed
            if event.row_complete:
                self.verdicts[key] = self._row_passing.pop(key)
        elif isinstance(event, IterationStarted):
            self._row_passing.clear()
        self.on_event(event)
        for listener in list(self.listeners):
            listener(event)

    async def cancel(self) -> None:
        """Cancel every iteration in progress or queued, and wait until their children are gone."""
        tasks = [task for task in self._tasks if not task.done()]
        for task in tasks:
            task.cancel()
        for task in tasks:
            await _settle(task)

    async def wait_idle(self) -> IterationReport | None:
        """Wait until no iteration is running or queued; the last one's report (None if cancelled)."""
        while pending := [task for task in self._tasks if not task.done()]:
            for task in pending:
                await _settle(task)
        last = self._task
        if last is None or last.cancelled() or last.exception() is not None:
            return None
        return last.result()

    # -- watching ------------------------------------------------------------------------------------

    def set_paused(self, paused: bool) -> None:
        """While paused, changes are remembered; resuming runs one iteration for all of them."""
        self.paused = paused
        if not paused and self.pending_changes:
            files = tuple(sorted(self.pending_changes))
            self.pending_changes.clear()
            self.request(Trigger(TriggerKind.CHANGE, files))

    async def watch(self, *, initial: bool = True, ready: asyncio.Event | None = None) -> None:
        """Run an iteration at start, then one per batch of changes, until cancelled."""
        if initial:
            self.request(Trigger(TriggerKind.START))
        self.watching = True
        try:
            async for files in watch_changes(self.config, ready=ready):
                if self.paused:
                    self.pending_changes.update(files)
                    continue
                self.request(Trigger(TriggerKind.CHANGE, tuple(files)))
        finally:
            self.watching = False

    async def aclose(self) -> None:
        await self.cancel()
        if self._warming is not None:
            await _settle(self._warming)
        await self.engine.aclose()
        if self.history is not None:
            self.history.close()
            self.history = None
