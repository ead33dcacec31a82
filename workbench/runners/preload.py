"""`kind = "command"` with `[runner] preload` (the default): when the command is a Python interpreter
running a script or `-m module`, rows are forked from a warm parent that has already imported what the
script imports, instead of paying interpreter start-up and imports per row. Anything the warm parent
can't do falls back to one fresh process per row, said once in the log.
"""

from __future__ import annotations

import asyncio
import time

from ..config import Config
from .base import LogSink, expand_argv, target_env
from .command import CommandRunner
from .process import ProcessResult, supervise
from .warm_parent import PreloadPlan, PreloadUnavailable, WarmParent, plan_preload


class PreloadRunner(CommandRunner):
    def __init__(self, config: Config, plan: PreloadPlan | None, reason: str | None = None) -> None:
        super().__init__(config)
        self.plan = plan
        self._parent: WarmParent | None = None
        self._starting: asyncio.Task[WarmParent | None] | None = None
        self._fallback_said = False
        self.fallback_reason = reason

    async def _warm_parent(self) -> WarmParent | None:
        if self.plan is None:
            return None
        if self._starting is None:
            self._starting = asyncio.ensure_future(self._start_parent())
        return await asyncio.shield(self._starting)

    async def _start_parent(self) -> WarmParent | None:
        assert self.plan is not None
        parent = WarmParent(self.plan, self.config.root, target_env(self.config))
        try:
            await parent.start()
        except PreloadUnavailable as exc:
            self.fallback_reason = str(exc)
            return None
        except BaseException:
            await asyncio.shield(parent.close())
            raise
        self._parent = parent
        return parent

    async def start_row(self, stdin: bytes, env: dict[str, str], timeout: float,
                        on_log: LogSink | None) -> ProcessResult:
        parent = await self._warm_parent()
        if parent is not None:
            started = time.perf_counter()
            try:
                child = await parent.spawn(env, self.config.root)
            except PreloadUnavailable as exc:
                self.fallback_reason = str(exc)
            else:
                return await supervise(child, stdin=stdin, timeout=timeout,
                                       stdout_cap=self.stdout_cap, on_log=on_log, started=started)
        if not self._fallback_said and on_log is not None:
            self._fallback_said = True
            on_log(f"[workbench] preload off, one process per row: {self.fallback_reason}")
        return await super().start_row(stdin, env, timeout, on_log)

    async def aclose(self) -> None:
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
