"""Replay one scripted case against the project's tools and approval rules: no target, no model.

Steps run in order, and each leaves a trace event (the format `workbench/trace.py` reads, so the
tool-call evaluators and `workbench-assertions` see a replay like any traced run):

    {"type": "assistant.output", "step": 3, "content": "Refunded order A-1001."}
    {"type": "approval.requested", "step": 1, "tool": "issue_refund", "args": {...}}
    {"type": "approval.decided", "step": 2, "tool": "issue_refund", "approved": true}
    {"type": "tool_call", "step": 1, "name": "issue_refund", "args": {...}, "output": {...}}
    {"type": "artifact.write", "step": 4, "path": "notes.md", "mimeType": "text/markdown", ...}
    {"type": "run.status", "status": "waiting", "step": 1, "detail": "..."}     (always last)

A tool that needs approval and has no `approval.decide` right after it stops the run as `waiting`
before it runs; a denial ends it `failed` before it runs. Wiring mistakes — an unknown tool,
arguments that break the tool's `inputSchema`, a call with no `result` (and not `live`), a misplaced
`approval.decide`, a live handler that fails — fail the *case*: the run stops there with `failure`
set, which the `expect` evaluator reports whatever the expectations say. When a hold or a denial ends
the run, the steps after it are still checked for those mistakes (seed 001: "an approval.decide step
that does not follow a tool call needing approval fails the case", "a step without result fails the
case"), without running anything: the run keeps its status and the first mistake becomes its `failure`,
naming the step. A later call that would itself be held or denied needs no `result` (it would never run).

A live handler's reads (`live.py`) are the row's `RunOutcome.reads`, merged across its calls, so
re-scoring sees a file outside the project the handler read change. A live handler that fails (times out,
crashes, gives no answer, can't be loaded, raises) fails the case and marks the `run.status` event
`"liveFailed": true`: `ReplaysDialect.run_error` then never re-scores that run.

The row's scratch folder (`.workbench/replays/<case>`) is emptied, created and written only through
descriptors walked from the project root without following a link (`workbench/safe_paths.py`): a
link at `.workbench`, `replays` or the case folder makes the row an ERROR naming the link and where it
points, and an artifact whose path meets a link (or a hard link a live handler left) is refused or
written as a new file of its own, so nothing outside `.workbench/` is ever deleted or written.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ... import jsonio
from ...config import Config
from ...output_paths import MISSING
from ...runners.base import LogSink, RunOutcome
from ...runners.read_audit import merged, merged_stats
from ...safe_paths import PRIVATE_FILE_MODE, UnsafePath, open_folder, open_folder_at, remove_tree_at, write_file_at
from ...trace import TOOL_CALL as TRACE_TOOL_CALL
from .live import call_handler
from .schema import PatternError, validate
from .script import APPROVAL_DECIDE, ARTIFACT_WRITE, ASSISTANT_OUTPUT, TOOL_CALL, Case, Step
from .tools import Tool, Toolbox

COMPLETED, WAITING, FAILED = "completed", "waiting", "failed"
APPROVAL_REQUESTED = "approval.requested"
APPROVAL_DECIDED = "approval.decided"
RUN_STATUS = "run.status"
LIVE_FAILED = "liveFailed"  # on the run.status event of a run stopped by a live handler's failure
ARTIFACT_EVENT = "artifact.write"
OUTPUT_EVENT = "assistant.output"


def denial(tool: str) -> str:
    return f"Approval for {tool} was denied."


def held(tool: str) -> str:
    return f"{tool} is waiting for approval."


class ScratchRefused(Exception):
    """The row's scratch folder can't be used safely (a link, or not a folder): the row is an ERROR."""


class _Stop(Exception):
    """The run ends at this step: `status` with `detail`, or a case failure. `rest`: for a hold or a
    denial, the position of the first step after the ones it used (the rest is still checked)."""

    def __init__(self, status: str, detail: str, *, failure: bool = False, live: bool = False,
                 rest: int | None = None) -> None:
        super().__init__(detail)
        self.status, self.detail, self.failure, self.live, self.rest = status, detail, failure, live, rest


@dataclass(slots=True)
class Replay:
    """How a replay ended, and what it left behind."""

    status: str = COMPLETED
    output: Any = None
    detail: str | None = None
    failure: str | None = None
    stopped_at: int | None = None
    failed_at: int | None = None  # the step of a mistake found after a hold or a denial ended the run
    artifacts: list[str] = field(default_factory=list)
    trace: list[dict[str, Any]] = field(default_factory=list)
    log: list[str] = field(default_factory=list)
    reads: tuple[str, ...] = ()  # what its live handlers read (`RunOutcome.reads`)
    read_stats: dict[str, tuple[int, ...]] = field(default_factory=dict)
    live_failed: bool = False  # a live handler failed: this run can't stand for another

    def document(self) -> dict[str, Any]:
        """The row's output: what `expect` and the reports look at."""
        doc: dict[str, Any] = {"status": self.status, "output": self.output}
        if self.detail is not None:
            doc["detail"] = self.detail
        if self.failure is not None:
            doc["failure"] = self.failure
        if self.stopped_at is not None:
            doc["stoppedAt"] = self.stopped_at
        if self.failed_at is not None:
            doc["failedAt"] = self.failed_at
        if self.artifacts:
            doc["artifacts"] = self.artifacts
        return doc


class Replayer:
    """Runs one case's steps. `scratch` is the row's own folder under `.workbench/` (inside
    `config.root`), emptied first and created when a step needs it."""

    def __init__(self, case: Case, toolbox: Toolbox, *, config: Config, scratch: Path, row_id: str,
                 on_log: LogSink | None = None) -> None:
        self.case, self.toolbox, self.config = case, toolbox, config
        self.scratch, self.row_id = scratch, row_id
        self.parts = scratch.relative_to(config.root).parts
        self.on_log = on_log or (lambda _line: None)
        self.replay = Replay()
        self._folder_fd: int | None = None

    def say(self, line: str) -> None:
        self.replay.log.append(line)
        self.on_log(line)

    def event(self, step: Step, kind: str, **fields: Any) -> None:
        self.replay.trace.append({"type": kind, "step": step.index, **fields})

    def clear_scratch(self) -> None:
        """Remove what an earlier run left in the row's folder, without following a link."""
        try:
            parent = open_folder(self.config.root, self.parts[:-1], create=False)
        except FileNotFoundError:
            return  # no .workbench/replays yet: nothing to clear
        except OSError as exc:
            raise ScratchRefused(_scratch_problem(exc)) from None
        try:
            remove_tree_at(parent, self.parts[-1], str(self.scratch))
        except OSError as exc:
            raise ScratchRefused(_scratch_problem(exc)) from None
        finally:
            os.close(parent)

    def folder(self) -> int:
        """A descriptor on the row's folder, created on first use after every part of it was checked."""
        if self._folder_fd is None:
            try:
                self._folder_fd = open_folder(self.config.root, self.parts, create=True, private=True)
            except OSError as exc:
                raise ScratchRefused(_scratch_problem(exc)) from None
        return self._folder_fd

    async def run(self) -> Replay:
        """Replay the steps; ScratchRefused when the row's folder can't be used safely."""
        self.clear_scratch()
        try:
            await self._steps()
        finally:
            if self._folder_fd is not None:
                os.close(self._folder_fd)
                self._folder_fd = None
        return self.replay

    async def _steps(self) -> None:
        steps, position = self.case.steps, 0
        try:
            while position < len(steps):
                position = await self.step(steps, position) + 1
        except _Stop as stop:
            self.replay.status, self.replay.stopped_at = stop.status, steps[position].index
            if stop.failure:
                self.replay.failure = stop.detail
            else:
                self.replay.detail = stop.detail
            self.replay.live_failed = stop.live
            self.say(f"stopped at {steps[position].where}: {stop.status}: {stop.detail}")
            if stop.rest is not None:
                self.check_rest(steps, stop.rest, stop.status)
        self.replay.trace.append({"type": RUN_STATUS, "status": self.replay.status, "step": self.replay.stopped_at,
                                  "detail": self.replay.failure or self.replay.detail,
                                  **({LIVE_FAILED: True} if self.replay.live_failed else {})})

    async def step(self, steps: tuple[Step, ...], position: int) -> int:
        """Run `steps[position]`; the position of the last step it used (an approval takes two)."""
        step = steps[position]
        if step.type == ASSISTANT_OUTPUT:
            self.replay.output = step.content
            self.event(step, OUTPUT_EVENT, content=step.content)
            self.say(f"{step.where}: said {_short(step.content)}")
        elif step.type == ARTIFACT_WRITE:
            self.write_artifacts(step)
        elif step.type == APPROVAL_DECIDE:
            raise _Stop(FAILED, misplaced(steps, position), failure=True)
        else:
            return await self.tool_call(steps, position)
        return position

    def check_rest(self, steps: tuple[Step, ...], start: int, status: str) -> None:
        """After a hold or a denial ended the run at the step before `start`: the first wiring mistake in
        the steps left becomes the run's failure, naming its step. Nothing runs (no handler, no artifact)."""
        ended = steps[start - 1].where
        position = start
        try:
            while position < len(steps):
                position = self.check_step(steps, position) + 1
        except _Stop as stop:
            self.replay.failure = (f"{stop.detail} (the rest of the script is still checked after the run ended at "
                                   f"{ended}: {status})")
            self.replay.failed_at = steps[position].index
            self.say(f"after the run ended: {stop.detail}")

    def check_step(self, steps: tuple[Step, ...], position: int) -> int:
        """What running `steps[position]` would check, run nothing; the position of the last step it used."""
        step = steps[position]
        if step.type == APPROVAL_DECIDE:
            raise _Stop(FAILED, misplaced(steps, position), failure=True)
        if step.type != TOOL_CALL:
            return position  # assistant.output and artifact.write were checked when the file was read
        tool = self.checked_tool(step)
        runs = True
        if tool.needs_approval:
            decision = steps[position + 1] if position + 1 < len(steps) else None
            if decision is None or decision.type != APPROVAL_DECIDE:
                return position  # it would be held: it never runs
            runs, position = decision.approved, position + 1
        if runs:
            self.check_result(step, tool)
        return position

    def checked_tool(self, step: Step) -> Tool:
        """The tool a call names, its arguments checked against its inputSchema; _Stop (a case failure) when
        there is no such tool or the arguments break the schema."""
        tool = self.toolbox.get(step.tool)
        if tool is None:
            raise _Stop(FAILED, f"{step.where}: {self.toolbox.unknown(step.tool)}", failure=True)
        try:
            failures = validate(tool.input_schema, step.arguments)
        except PatternError as exc:  # a pattern that had to be stopped: the row is an ERROR naming it
            raise PatternError(f"{step.where}: {self.toolbox.source}: tool {tool.name!r}: {exc}") from None
        if failures:
            rules = "; ".join(str(failure) for failure in failures)
            raise _Stop(FAILED, f"{step.where}: the arguments do not fit {tool.name}'s inputSchema: {rules}",
                        failure=True)
        return tool

    def check_result(self, step: Step, tool: Tool) -> None:
        """_Stop (a case failure) when a call that runs has no way to give its output."""
        if step.live and not tool.handler:
            raise _Stop(FAILED, f"{step.where}: {tool.name} has no \"handler\" in {self.toolbox.source}, so a "
                                "live step cannot run it", failure=True)
        if not step.live and step.result is MISSING:
            raise _Stop(FAILED, f"{step.where}: the call to {tool.name} has no \"result\"; evals never run a "
                                "handler by surprise (give the result, or add \"live\": true to run it)",
                        failure=True)

    async def tool_call(self, steps: tuple[Step, ...], position: int) -> int:
        step = steps[position]
        tool = self.checked_tool(step)
        if tool.needs_approval:
            position = self.approval(steps, position, tool)
        output = await self.result(step, tool)
        self.event(step, TRACE_TOOL_CALL, name=tool.name, args=step.arguments, output=output,
                   **({"live": True} if step.live else {}))
        self.say(f"{step.where}: returned {_short(output)}")
        return position

    def approval(self, steps: tuple[Step, ...], position: int, tool: Tool) -> int:
        """Ask for approval; the position of the decision used, or _Stop when held or denied."""
        step = steps[position]
        self.event(step, APPROVAL_REQUESTED, tool=tool.name, args=step.arguments)
        self.say(f"{step.where}: approval requested")
        decision = steps[position + 1] if position + 1 < len(steps) else None
        if decision is None or decision.type != APPROVAL_DECIDE:
            raise _Stop(WAITING, held(tool.name), rest=position + 1)
        self.event(decision, APPROVAL_DECIDED, tool=tool.name, approved=decision.approved)
        self.say(f"{decision.where}: {'approved' if decision.approved else 'denied'}")
        if not decision.approved:
            raise _Stop(FAILED, denial(tool.name), rest=position + 2)
        return position + 1

    async def result(self, step: Step, tool: Tool) -> Any:
        self.check_result(step, tool)  # a live step has a handler from here on
        if step.live and tool.handler:
            info = os.fstat(self.folder())
            self.say(f"{step.where}: running {tool.handler}")
            answer = await call_handler(tool.handler, step.arguments, config=self.config, cwd=self.scratch,
                                        cwd_id=f"{info.st_dev}:{info.st_ino}", row_id=self.row_id, on_log=self.say)
            self.replay.reads = merged(self.replay.reads, answer.reads)
            self.replay.read_stats = merged_stats(self.replay.read_stats, answer.read_stats)
            if answer.error is not None:
                raise _Stop(FAILED, f"{step.where}: {answer.error}", failure=True, live=True)
            return answer.value
        return step.result

    def write_artifacts(self, step: Step) -> None:
        folder = self.folder()
        for file in step.files:
            try:
                self._write(folder, file.path, file.content.encode("utf-8"))
            except UnsafePath as exc:
                raise _Stop(FAILED, f"{step.where}: {file.path} leads out of the run's folder: {exc}",
                            failure=True) from None
            except OSError as exc:
                raise _Stop(FAILED, f"{step.where}: cannot write {file.path}: {exc.strerror or exc}",
                            failure=True) from None
            self.replay.artifacts.append(file.path)
            self.event(step, ARTIFACT_EVENT, path=file.path, mimeType=file.mime_type,
                       bytes=len(file.content.encode("utf-8")), content=file.content)
            self.say(f"{step.where}: wrote {file.path}")

    def _write(self, folder: int, path: str, data: bytes) -> None:
        """Write `data` at the relative `path` (checked when the case was read) under the row's folder,
        one name at a time: a link on the way (a live handler may leave one) is refused."""
        *folders, name = path.split("/")
        shown = self.scratch
        fd = os.dup(folder)
        try:
            for part in folders:
                shown = shown / part
                next_fd = open_folder_at(fd, part, str(shown), create=True, private=True)
                os.close(fd)
                fd = next_fd
            write_file_at(fd, name, data, str(shown / name), mode=PRIVATE_FILE_MODE)
        finally:
            os.close(fd)


def _scratch_problem(exc: OSError) -> str:
    """The row's error when its scratch folder can't be used."""
    if isinstance(exc, UnsafePath):
        return f"the replay's scratch folder is not safe to use: {exc}"
    return f"cannot use the replay's scratch folder: {exc.strerror or exc}"


def misplaced(steps: tuple[Step, ...], position: int) -> str:
    """Why an `approval.decide` at `position` is out of place (a correct one is used by its tool call)."""
    step = steps[position]
    if position == 0:
        why = "it is the first step"
    else:
        before = steps[position - 1]
        if before.type == APPROVAL_DECIDE:
            why = f"{before.where} already decided"
        elif before.type == TOOL_CALL:
            why = f"{before.tool} does not need approval"
        else:
            why = f"it follows {before.where}"
    return (f"{step.where} does not follow a tool call that needs approval ({why}); an approval.decide goes "
            "right after the tool.call it decides")


def _short(value: Any, limit: int = 80) -> str:
    return jsonio.preview(value, limit)


async def replay_case(case: Case, toolbox: Toolbox, *, config: Config, scratch: Path, row_id: str,
                      on_log: LogSink | None = None) -> RunOutcome:
    """The replay as the engine's outcome: the status document as output, every step in the trace."""
    started = time.perf_counter()
    try:
        replay = await Replayer(case, toolbox, config=config, scratch=scratch, row_id=row_id, on_log=on_log).run()
    except (ScratchRefused, PatternError) as exc:
        return RunOutcome(error=str(exc), duration_ms=(time.perf_counter() - started) * 1000)
    return RunOutcome(output=replay.document(), duration_ms=(time.perf_counter() - started) * 1000,
                      log="\n".join(replay.log), trace=replay.trace, reads=replay.reads, read_stats=replay.read_stats)


__all__ = ["APPROVAL_DECIDED", "APPROVAL_REQUESTED", "COMPLETED", "FAILED", "LIVE_FAILED", "RUN_STATUS", "WAITING",
           "Replay",
           "Replayer", "ScratchRefused", "denial", "held", "misplaced", "replay_case"]
