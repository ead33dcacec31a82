"""`kind = "command"` with `[runner] preload` (the default): when the command is a Python interpreter
running a script or `-m module`, rows are forked from a warm parent that has already imported what the
script imports, instead of paying interpreter start-up and imports per row. Anything the warm parent
can't do falls back to one fresh process per row, said once in the log: a command it can't serve, a
parent that doesn't finish its imports in time, a fork that doesn't answer in time, a parent that dies.

Time: a fresh process spends its start-up and imports inside its timeout and its duration, so a forked
row is charged the parent's start-up time once, in both: a row's verdict (a timeout, a `duration_ms`
assertion, `--max-slowdown` against a baseline) must not depend on whether the fork worked or the row fell
back. A row that waited for the parent to get ready has spent that wait already; a row forked later gets
its timeout less the parent's start-up. A row that falls back to a fresh process gets its whole timeout
again (the time it waited for a parent that never served is not charged). A fresh process records its
reads too (`CommandRunner.start_row`, through `script_main.py`). (A `worker` or `python` row is not charged
its process's start-up: there the row is a request to a process that is ready, see `worker.py`.)
"""

from __future__ import annotations

import asyncio
import itertools
import time

from ..config import Config
from .base import LogSink, expand_argv, target_env
from .command import CommandRunner
from .process import ProcessResult, supervise
from .read_audit import ReadsFile, merged, merged_stats
from .warm_parent import START_TIMEOUT_S, PreloadPlan, PreloadUnavailable, WarmParent, plan_preload


def forked_budget(timeout: float, requested: float, parent_ready: float, parent_start: float, now: float) -> float:
    """Seconds left of a forked row's `timeout` at `now`: as if it had started `parent_start` seconds (the
    parent's start-up and imports) before the later of its request and the parent being ready."""
    return timeout - (now - (max(requested, parent_ready) - parent_start))


class PreloadRunner(CommandRunner):
    def __init__(self, config: Config, plan: PreloadPlan | None, reason: str | None = None) -> None:
        super().__init__(config)
        self.plan = plan
        self._parent: WarmParent | None = None
        self._starting: asyncio.Task[WarmParent | None] | None = None
        self._fallback_said = False
        self.fallback_reason = reason
        self._reads_ids = itertools.count(1)
        self._closed = False
        self._one_row = False  # `expect_rows(1)`: a warm parent would cost a start-up more than it saves

    def expect_rows(self, rows: int) -> None:
        """An iteration of one row runs it as a fresh process: the warm parent is an interpreter start-up, the
        script's imports and a fork, where the row alone needs one start-up (measured on the project `workbench
        init` makes: `run -q` 0.36 s -> 0.31 s). Not a fallback, so nothing is said in the row's log."""
        self._one_row = rows <= 1

    @property
    def warm_parent(self) -> WarmParent | None:
        """The warm parent rows fork from now: None before the first row has started it, after a fallback
        and after `aclose` (what it preloaded and which rows it is running can be asked of it)."""
        return self._parent

    async def _warm_parent(self) -> WarmParent | None:
        if self.plan is None or self.fallback_reason is not None:
            return None
        if self._starting is None:
            self._starting = asyncio.ensure_future(self._start_parent())
        parent = await asyncio.shield(self._starting)
        return parent if self.fallback_reason is None else None

    async def _start_parent(self) -> WarmParent | None:
        assert self.plan is not None
        parent = WarmParent(self.plan, self.config.root, target_env(self.config), self._trace_dir,
                            trust_subprocesses=self.config.cache.trust_subprocesses)
        try:
            await parent.start(min(START_TIMEOUT_S, self.config.runner.timeout))
        except PreloadUnavailable as exc:
            self.fallback_reason = self.fallback_reason or str(exc)
            return None
        except BaseException:
            await asyncio.shield(parent.close())
            raise
        self._parent = parent
        return parent

    async def _stop_parent(self, reason: str) -> None:
        """No more forks this iteration: the rest of the rows run as fresh processes."""
        self.fallback_reason = self.fallback_reason or reason
        parent, self._parent = self._parent, None
        if parent is not None:
            await parent.close()

    async def start_row(self, stdin: bytes, env: dict[str, str], timeout: float,
                        on_log: LogSink | None) -> tuple[ProcessResult, tuple[str, ...], dict[str, tuple[int, ...]]]:
        if self._one_row and self._starting is None:
            return await super().start_row(stdin, env, timeout, on_log)
        requested = time.perf_counter()
        parent = await self._warm_parent()
        if parent is not None:
            forked = await self._forked_row(parent, stdin, env, timeout, on_log, requested)
            if forked is not None:
                return forked
        if not self._fallback_said and on_log is not None:
            self._fallback_said = True
            on_log(f"[workbench] preload off, one process per row: {self.fallback_reason}")
        return await super().start_row(stdin, env, timeout, on_log)

    async def _forked_row(self, parent: WarmParent, stdin: bytes, env: dict[str, str], timeout: float,
                          on_log: LogSink | None, requested: float,
                          ) -> tuple[ProcessResult, tuple[str, ...], dict[str, tuple[int, ...]]] | None:
        """The row forked from `parent`, or None when it must run as a fresh process instead."""
        # as if it had started as a fresh process, `import_seconds` before it could be forked
        started = max(requested, parent.ready_at) - parent.import_seconds
        if forked_budget(timeout, requested, parent.ready_at, parent.import_seconds, time.perf_counter()) <= 0:
            # its imports alone took longer than its timeout
            return ProcessResult(timed_out=True, duration_ms=(time.perf_counter() - started) * 1000), (), {}
        reads = ReadsFile(str(self._trace_dir / f"row-{next(self._reads_ids)}.reads"))
        try:
            try:
                child = await parent.spawn(env, self.config.root, reads.path)
            except PreloadUnavailable as exc:
                await self._stop_parent(str(exc))
                return None
            budget = forked_budget(timeout, requested, parent.ready_at, parent.import_seconds, time.perf_counter())
            result = await supervise(child, stdin=stdin, timeout=max(budget, 0.0), stdout_cap=self.stdout_cap,
                                     on_log=on_log, started=started)
            if child.orphaned and not self._closed:  # its exit status is lost with the parent: run it again
                await self._stop_parent("the warm parent exited while rows ran")
                if on_log is not None:
                    on_log("[workbench] the warm parent exited while this row ran; it runs again as a fresh process")
                return None
            paths = merged(parent.reads(), reads.paths())
            return result, paths, merged_stats(parent.read_stats(), reads.stats())
        finally:
            reads.close()

    async def aclose(self) -> None:
        self._closed = True
        if self._starting is not None and not self._starting.done():
            self._starting.cancel()
        if self._parent is not None:
            await self._parent.close()
            self._parent = None
        await super().aclose()


def make_command_runner(config: Config) -> CommandRunner:
    """The command runner for `config`: forked from a warm parent when preload applies."""
    assert config.runner.command
    if config.runner.preload:
        plan = plan_preload(expand_argv(config.runner.command), config.root)
        if isinstance(plan, PreloadPlan):
            return PreloadRunner(config, plan)
        if isinstance(plan, str):
            return PreloadRunner(config, None, plan)
    return CommandRunner(config)
