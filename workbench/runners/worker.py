"""`kind = "worker"`: long-lived target processes that speak JSON lines, one row at a time each.

Per row, workbench writes `{"id": N, "inputs": {...}, "trace": "/path"}` + newline to a worker's
stdin and waits for `{"id": N, "output": ...}` or `{"id": N, "error": "..."}` on its stdout.
stderr is the log of the row in flight on that process. A stdout line that does not begin with `{`
is logged too (a stray print); a line that begins with `{` but is not a reply to the row in flight
breaks the protocol: that row is an ERROR and the process is replaced. So does a second reply to
the request answered last: the request it answered twice is the ERROR when the duplicate comes before
its answer was taken, else the row then in flight is (a duplicate arriving while no row is in flight
only replaces the process). So is a process that dies mid-row, runs past `timeout` (its whole process
group is killed), or closes its stdout and keeps running (it can never answer again, so it is killed
at once instead of being waited on until the timeout). A worker that cannot serve at all may print
`{"fatal": "why"}`: every remaining row then fails with that reason, without restarts.

Start-up is the worker's, not its first row's: a worker may print `{"ready": true}` once it can take rows
(after its imports), and a row's timeout and duration start when the worker is ready to take it — at the
request for a worker that already was, at its ready line for one still starting. Workers known to print it
(`announces`: workbench's own children, `worker_main.py` and the children formats ship, which serve through
it and are told to by `READY_ENV`) have until `START_TIMEOUT_S` after they started to print it; one that
doesn't is killed and its row is an ERROR naming the start-up, and no more workers start this iteration (the
next would hang as long). Another worker's first row runs on `timeout` from the request, since nothing tells
its start-up from its work, until it prints the line: then the row's clock starts again from there, and the
pool expects the line from the workers it starts later.

The pool lives as long as the runner, which the engine creates per iteration: processes start on
the first rows and are killed in `aclose`, so every file change gets fresh processes.

A worker command that is a Python interpreter running a script or `-m module` (interpreter options
such as `-X dev` kept) starts through `audited_main.py` and `script_main.py` (`python_command.py`), which
record the files the process reads (`read_audit.py`); every row a process serves gets all it read so far,
start-up included, as `RunOutcome.reads` (a superset is safe: it can only cause a re-run). A Python
command that can't be watched (`-c`, ...) gets the unseen marker; other commands' reads are unknown: ().
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import shutil
import signal
import tempfile
import time
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import jsonio
from ..config import Config
from ..trace import read_trace
from .base import PACKAGE_DIR, LogSink, Runner, RunOutcome, RunRequest, describe_failure, expand_argv, target_env
from .concurrency import concurrency_of
from .process import DRAIN_GRACE_S, LOG_KEEP_BYTES, kill_group
from .python_command import PythonCommand, parse_python_command
from .read_audit import ReadsFile, unseen_reads
from .reaper import REAPER

# Worker deaths before any worker has answered a row, after which the pool stops restarting them.
MAX_STARTUP_DEATHS = 3
_LOG_LINE_FLUSH = 64 * 1024
_IDLE_LOG_LINES = 200
_SHOWN_LINE = 200
# A worker that closes its stdout is usually exiting; one still running after this long is killed.
STDOUT_CLOSED_GRACE_S = 0.5
# How long a worker known to say when it is ready (`announces`) may take from its start to its ready line:
# its interpreter, its imports (an SDK's take seconds on a busy machine), loading a model. Past it, it hangs.
# Kept under the Ray driver's grace for a row's answer (cluster/faults.py), which adds it for actor rows.
START_TIMEOUT_S = 120.0
# Set in the environment of a worker known to announce: worker_main.py then prints its ready line (and takes
# the variable out of its environment before any of the project's code runs, so no target sees it).
READY_ENV = "WORKBENCH_WORKER_READY"


def describe_exit(code: int | None) -> str:
    if code is None:
        return "stopped"
    if code < 0:
        try:
            return f"was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with code {code}"


@dataclass(slots=True)
class _Reply:
    output: Any = None
    error: str | None = None  # the target's own error, from an `error` reply
    failure: str | None = None  # workbench's reason the row has no usable reply
    stopped: bool = False  # the worker exited with code 0 instead of answering: it stopped serving


@dataclass(slots=True)
class _Row:
    """The request in flight on one process, and the log lines it has produced so far."""

    id: int
    future: asyncio.Future[_Reply]
    on_log: LogSink | None
    timeout: float = 0.0
    lines: list[str] = field(default_factory=list)
    size: int = 0
    dropped: bool = False
    breach: str | None = None  # answered twice before its answer was taken: the row is an ERROR
    started: float | None = None  # time.perf_counter() when its clock started: the worker was ready for it
    timer: asyncio.TimerHandle | None = None  # its timeout, or the worker's start-up deadline before that

    def log(self, line: str) -> None:
        self.lines.append(line)
        self.size += len(line) + 1
        while self.size > LOG_KEEP_BYTES and len(self.lines) > 1:
            self.size -= len(self.lines.pop(0)) + 1
            self.dropped = True
        if self.on_log is not None:
            self.on_log(line)

    def text(self) -> str:
        head = "[workbench] earlier log lines were dropped\n" if self.dropped else ""
        return head + "\n".join(self.lines)

    def settle(self, reply: _Reply) -> None:
        if not self.future.done():
            self.future.set_result(reply)


class _Pipes(asyncio.SubprocessProtocol):
    """Hands pipe data and exit to the Worker as it arrives (no reader tasks, no per-line awaits)."""

    def __init__(self, worker: Worker) -> None:
        self.worker = worker

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        if fd == 1:
            self.worker.stdout_data(data)
        else:
            self.worker.stderr_data(data)

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        if fd == 0:
            self.worker.deaf = True
        elif fd == 1:
            self.worker.stdout_closed()

    def process_exited(self) -> None:
        self.worker.exited()

    def connection_lost(self, exc: Exception | None) -> None:
        self.worker.closed()


class Worker:
    """One target process. Serves one row at a time; once `dead`, it is replaced, never reused."""

    def __init__(self, pool: WorkerRunner) -> None:
        self.pool = pool
        self.transport: asyncio.SubprocessTransport | None = None
        self.pid = 0
        self.row: _Row | None = None
        self.idle_log: list[str] = []
        self.dead = False
        self.deaf = False  # it closed its stdin: it may still answer the row in flight, but no other
        self.killed = False  # by workbench (timeout, protocol error, close), not by itself
        self.answered_id: int | None = None  # the request it answered last; a second reply to it breaks the protocol
        self.gone: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.reads: ReadsFile | None = None  # what this process recorded reading, when it records
        self.started_at = 0.0  # the loop's time when it was started (its start-up deadline counts from it)
        self.ready_at: float | None = None  # time.perf_counter() of its ready line
        self._out = bytearray()
        self._err = bytearray()
        self._grace: asyncio.TimerHandle | None = None
        self._mute: asyncio.TimerHandle | None = None

    async def start(self, argv: list[str], cwd: Path, env: dict[str, str]) -> None:
        loop = asyncio.get_running_loop()
        transport, _ = await loop.subprocess_exec(
            lambda: _Pipes(self), *argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, cwd=cwd, env=env, start_new_session=True)
        self.transport = transport
        self.pid = transport.get_pid()
        self.started_at = loop.time()
        REAPER.track(self.pid)

    # -- one row -----------------------------------------------------------------------------------

    async def call(self, row_id: int, message: bytes, on_log: LogSink | None, timeout: float) -> tuple[_Reply, _Row]:
        loop = asyncio.get_running_loop()
        row = _Row(row_id, loop.create_future(), on_log, timeout)
        for line in self.idle_log:
            row.log(line)
        self.idle_log.clear()
        self.row = row
        if self.ready_at is None and self.pool.announces:  # still starting: its start-up has its own deadline
            row.timer = loop.call_at(self.started_at + START_TIMEOUT_S, self._not_ready, row)
        else:
            self._start_clock(row)
        try:
            stdin = self.transport.get_pipe_transport(0) if self.transport else None
            if not isinstance(stdin, asyncio.WriteTransport) or stdin.is_closing():
                row.settle(_Reply(failure="the worker closed its stdin"))
            else:
                stdin.write(message)
            reply = await row.future
            if row.breach is not None:
                reply = _Reply(failure=_broke(row.breach))
        except asyncio.CancelledError:
            self.kill()
            raise
        finally:
            if row.timer is not None:
                row.timer.cancel()
            self.row = None
        return reply, row

    def _start_clock(self, row: _Row) -> None:
        """The row's timeout and duration start now: the worker is ready to take it."""
        if row.timer is not None:
            row.timer.cancel()
        row.started = time.perf_counter()
        row.timer = asyncio.get_running_loop().call_later(row.timeout, self._time_out, row, row.timeout)

    def _not_ready(self, row: _Row) -> None:
        """Its start-up deadline passed without a ready line: it hangs starting, and so would the next one."""
        what = self.pool.not_ready()
        row.settle(_Reply(failure=what))
        self.kill()

    def became_ready(self) -> None:
        if self.ready_at is not None:
            self._log("[workbench] ignored a second ready line from this worker")
            return
        self.ready_at = time.perf_counter()
        self.pool.announces = True  # the workers started after this one say so too: the same program
        row = self.row
        if row is not None and not row.future.done():
            self._start_clock(row)

    def _time_out(self, row: _Row, timeout: float) -> None:
        row.settle(_Reply(failure=f"timed out after {timeout:g}s; the worker's process group was killed "
                                  "(a new worker takes the remaining rows)"))
        self.kill()

    # -- pipe callbacks ----------------------------------------------------------------------------

    def stdout_data(self, data: bytes) -> None:
        buffer = self._out
        buffer += data
        if b"\n" not in data:
            if len(buffer) > self.pool.stdout_cap:
                self._break(f"printed a stdout line longer than {self.pool.stdout_cap / 2**20:g} MiB "
                            "(raise [runner] max_output_mb if that is expected)")
            return
        *lines, rest = bytes(buffer).split(b"\n")
        self._out = bytearray(rest)
        for line in lines:
            self._stdout_line(line)

    def _stdout_line(self, raw: bytes) -> None:
        line = raw.strip()
        if not line:
            return
        if not line.startswith(b"{"):
            self._log("[stdout] " + raw.decode("utf-8", errors="replace").rstrip("\r"))
            return
        try:
            message = jsonio.loads(line)
        except jsonio.JsonError as exc:
            self._break(f"printed a stdout line that begins with '{{' but is not one JSON object ({exc}): "
                        f"{_shown(line)}. Each reply must be a single line")
            return
        if not isinstance(message, dict):  # e.g. `{}` is fine; `{...}garbage` was refused above
            self._break(f"printed a stdout line that is not a reply: {_shown(line)}")
            return
        if "fatal" in message and "id" not in message:
            self.pool.fatal = str(message["fatal"])
            if self.row is not None:
                self.row.settle(_Reply(failure=self.pool.fatal_reason()))
            return
        if "ready" in message and "id" not in message:
            self.became_ready()
            return
        if self.answered_id is not None and message.get("id") == self.answered_id:
            self._twice(line)
            return
        row = self.row
        if row is None or row.future.done():
            self._log(f"[workbench] ignored a stdout line while no row was waiting on this worker: {_shown(line)}")
            return
        if message.get("id") != row.id:
            self._break(f"replied with id {jsonio.dumps(message.get('id'))[:_SHOWN_LINE]} while the row in "
                        f"flight has id {row.id} (echo the request's id unchanged): {_shown(line)}")
            return
        if message.get("error") is not None:
            error = message["error"]
            reply = _Reply(error=error if isinstance(error, str) else jsonio.dumps(error))
        elif "output" in message:
            reply = _Reply(output=message["output"])
        else:
            self._break(f"replied without \"output\" or \"error\": {_shown(line)}")
            return
        self.pool.answered = True
        self.answered_id = row.id
        if self.ready_at is None:  # it answered, so it takes rows now (a worker that never says it is ready)
            self.ready_at = time.perf_counter()
        self._drain_stderr()
        row.settle(reply)

    def _twice(self, line: bytes) -> None:
        """A second reply to the request answered last, whenever it comes: that request is the ERROR while
        its answer is not yet taken, else the row in flight is; with none in flight no row is blamed. The
        process is replaced either way."""
        what = f"answered request {self.answered_id} twice (one reply per request): {_shown(line)}"
        if self.row is not None and self.row.id == self.answered_id:
            self.row.breach = what
            self.kill()
        else:
            self._break(what)

    def _drain_stderr(self) -> None:
        """Take what the process wrote on stderr before its reply, now, into the row it replied for. The two
        pipes are read by separate loop callbacks, so on a loaded machine the reply could be taken first and
        the row's last log lines land in the next row's log; a child that flushes stderr before replying
        (`worker_main.py` does) has them in the pipe already: read until it would block."""
        stderr = self.transport.get_pipe_transport(2) if self.transport else None
        pipe = stderr.get_extra_info("pipe") if stderr is not None and not stderr.is_closing() else None
        if pipe is None or os.get_blocking(pipe.fileno()):  # asyncio's pipes are non-blocking; never wait here
            return
        for _ in range(64):  # at most 64 reads of 64 KiB: a child writing without pause can't hold the loop
            try:
                data = os.read(pipe.fileno(), 65536)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                return
            if not data:  # end of file: the transport sees it too, and closes the pipe itself
                return
            self.stderr_data(data)

    def stderr_data(self, data: bytes) -> None:
        buffer = self._err
        buffer += data
        if b"\n" in data:
            *lines, rest = buffer.split(b"\n")
            self._err = bytearray(rest)
            for line in lines:
                self._log(line.decode("utf-8", errors="replace").rstrip("\r"))
        elif len(buffer) > _LOG_LINE_FLUSH:
            self._log(buffer.decode("utf-8", errors="replace"))
            self._err = bytearray()

    def _log(self, line: str) -> None:
        if self.row is not None:
            self.row.log(line)
        else:
            self.idle_log.append(line)
            if len(self.idle_log) > _IDLE_LOG_LINES:
                del self.idle_log[0]

    def _break(self, what: str) -> None:
        """The protocol broke: fail the row in flight and replace this process."""
        if self.row is not None:
            self.row.settle(_Reply(failure=_broke(what)))
        else:
            self.idle_log.append(f"[workbench] the worker broke the protocol: it {what}; it was replaced")
        self._out = bytearray()
        self.kill()

    def stdout_closed(self) -> None:
        """It can't answer any more: no new row goes to it, and if it doesn't exit by itself it is killed."""
        self.dead = True
        if self.gone.done() or (self.transport is not None and self.transport.get_returncode() is not None):
            return
        self._mute = asyncio.get_running_loop().call_later(STDOUT_CLOSED_GRACE_S, self._mute_but_running)

    def _mute_but_running(self) -> None:
        if self.gone.done() or (self.transport is not None and self.transport.get_returncode() is not None):
            return
        what = "closed its stdout but kept running, so it could not answer"
        if self.row is not None:
            self.row.settle(_Reply(failure=f"the worker {what}; its process group was killed "
                                           "(a new worker takes the remaining rows)"))
        else:
            self.idle_log.append(f"[workbench] the worker {what}; it was replaced")
        self.kill()

    def exited(self) -> None:
        kill_group(self.pid)  # grandchildren that still hold our pipes go with it
        self.dead = True
        self._grace = asyncio.get_running_loop().call_later(DRAIN_GRACE_S, self.closed)

    def closed(self) -> None:
        """The process is gone and its pipes are drained (or the grace period ran out)."""
        if self.gone.done():
            return
        for timer in (self._grace, self._mute):
            if timer is not None:
                timer.cancel()
        self.dead = True
        for partial in (self._err, self._out):
            if partial.strip():
                self._log(partial.decode("utf-8", errors="replace"))
        code = self.transport.get_returncode() if self.transport else None
        # Once ready, a death is the row's doing, not the start-up's (a worker that never says: any before an answer).
        if not self.killed and not self.pool.answered and self.pool.fatal is None and self.ready_at is None:
            self.pool.startup_death(code, self.row.text() if self.row else "\n".join(self.idle_log))
        if self.row is not None and not self.row.future.done():
            if self.ready_at is None and self.pool.announces:
                reason = f"the worker {describe_exit(code)} during its start-up, before it was ready for this row"
            else:
                reason = f"the worker {describe_exit(code)} while running this row"
            if self.pool.fatal is not None:
                reason = self.pool.fatal_reason()
            elif not self.pool.broken:
                reason += " (a new worker takes the remaining rows)"
            self.row.settle(_Reply(failure=reason, stopped=code == 0 and not self.killed))
        self.gone.set_result(None)
        REAPER.untrack(self.pid)
        if self.reads is not None:
            self.reads.paths()  # kept for a row that asks after the file is gone
            self.reads.close()

    def kill(self) -> None:
        self.killed = True
        self.dead = True
        # Once reaped, the group was killed in `exited`; its id may since belong to someone else.
        if self.transport is not None and self.transport.get_returncode() is None:
            kill_group(self.pid)

    async def close(self) -> None:
        self.kill()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(self.gone), DRAIN_GRACE_S + 1)
        if self.transport is not None:
            self.transport.close()


def announces_ready(argv: list[str]) -> bool:
    """Whether `argv` runs one of workbench's own Python children (`{workbench}/...`: `worker_main.py`, or a
    format's child, which serves through it), which print the ready line when `READY_ENV` asks them to."""
    command = parse_python_command(argv)
    if not isinstance(command, PythonCommand) or not command.target or command.target[0] == "-m":
        return False
    script = Path(command.target[0])
    return script.is_absolute() and PACKAGE_DIR in script.parents and script.suffix == ".py"


def _broke(what: str) -> str:
    return (f"the worker broke the protocol: it {what}. Print logs to stderr. The worker was replaced for the "
            "remaining rows")


def _shown(line: bytes) -> str:
    text = line[:_SHOWN_LINE].decode("utf-8", errors="replace")
    return repr(text + ("…" if len(line) > _SHOWN_LINE else ""))


class WorkerRunner(Runner):
    """A pool of `concurrency` workers, started lazily and killed in `aclose`."""

    target = "the worker"

    def __init__(self, config: Config, argv: list[str] | None = None, *, announces: bool | None = None) -> None:
        super().__init__(config)
        if argv is None:
            assert config.runner.command
            argv = expand_argv(config.runner.command)
        self.argv = argv
        # Whether its workers print a ready line (then their start-up has its own deadline); learned from the
        # first that does, for a command workbench can't tell in advance.
        self.announces = announces_ready(argv) if announces is None else announces
        self.fatal: str | None = None
        self.broken: str | None = None
        self.answered = False  # once any worker has answered, the target can start: deaths are per row
        self._startup_deaths = 0
        self._idle: asyncio.Queue[Worker | None] | None = None
        self._workers: list[Worker] = []
        self._ids = itertools.count(1)
        self._trace_dir = Path(tempfile.mkdtemp(prefix="workbench-trace-"))
        self._env = target_env(config)
        if self.announces:
            self._env[READY_ENV] = "1"
        self._closed = False
        self._reads_ids = itertools.count(1)

    def audited_argv(self, reads: str) -> list[str] | None:
        """The command that also records the process's reads into the file `reads`, or None when this
        command can't (`unwatched` says whether that is because it is Python started in a way that can't be
        watched)."""
        command = parse_python_command(self.argv)
        if not isinstance(command, PythonCommand):
            return None
        return command.audited(reads, trust_subprocesses=self.config.cache.trust_subprocesses)

    def unwatched(self) -> tuple[str, ...]:
        """The reads of a worker whose command can't record them: the unseen marker for a Python command
        that can't be watched, else () (not Python: not known)."""
        command = parse_python_command(self.argv)
        return unseen_reads(command) if isinstance(command, str) else ()

    def fatal_reason(self) -> str:
        return f"{self.target} cannot run: {self.fatal}"

    def startup_death(self, code: int | None, log: str) -> None:
        """A worker died and none has ever answered; after a few of those, stop restarting."""
        self._startup_deaths += 1
        if self._startup_deaths >= MAX_STARTUP_DEATHS and self.broken is None:
            self.broken = describe_failure(
                f"{self.target} {describe_exit(code)} before answering any row, {self._startup_deaths} times; "
                "workbench stopped restarting it for this iteration", log, b"")

    def error_text(self, error: str) -> str:
        return f"{self.target} reported an error: {error}"

    def startup_words(self) -> str:
        """What a worker does before it is ready, in words."""
        return "starting the program and loading what it loads before its first row"

    def not_ready(self) -> str:
        """A worker missed its start-up deadline: every row not yet started fails with the reason returned."""
        if self.broken is None:
            self.broken = (f"the worker did not get ready within {START_TIMEOUT_S:g}s of starting (its start-up: "
                           f"{self.startup_words()}); it was killed with its process group, and workbench stopped "
                           "starting workers for this iteration")
        return self.broken

    async def run(self, request: RunRequest, on_log: LogSink | None = None) -> RunOutcome:
        refused = self._refusal()
        if refused:
            return RunOutcome(error=refused)
        slot = _Slot(await self._pool().get())
        try:
            return await self._run_in(slot, request, on_log)
        finally:
            self._check_in(slot)

    def hold(self) -> AbstractAsyncContextManager[Runner]:
        return _Held(self)

    def _pool(self) -> asyncio.Queue[Worker | None]:
        if self._idle is None:
            self._idle = asyncio.Queue()
            for _ in range(concurrency_of(self.config)):
                self._idle.put_nowait(None)
        return self._idle

    async def _run_in(self, slot: _Slot, request: RunRequest, on_log: LogSink | None) -> RunOutcome:
        """One request on the slot's worker, started (or replaced, when it died) as needed."""
        if slot.worker is not None and slot.worker.deaf and not slot.worker.dead:
            slot.worker.kill()  # it can't read another request; a fresh one takes this one
        for attempt in range(2):
            refused = self._refusal()  # checked again after the wait for a slot: no worker starts for nothing
            if refused:
                return RunOutcome(error=refused)
            if slot.worker is None or slot.worker.dead:
                try:
                    slot.worker = await self._spawn()
                except OSError as exc:
                    self.broken = f"could not start {self.argv[0]!r}: {exc.strerror or exc}"
                    return RunOutcome(error=self.broken)
            refused = self._refusal()
            if refused:
                return RunOutcome(error=refused)
            outcome, stopped = await self._call(slot.worker, request, on_log)
            # A worker that exits cleanly (one that recycles itself after some rows, say) may have
            # quit before reading this row: the row gets one fresh worker before it counts as failed.
            if not stopped or attempt:
                return outcome
        return outcome

    def _check_in(self, slot: _Slot) -> None:
        worker = slot.worker
        if worker is not None and worker.deaf and not worker.dead:
            worker.kill()  # it can't read another request; a fresh one takes the next row
        self._pool().put_nowait(worker if worker is not None and not worker.dead else None)

    def _refusal(self) -> str | None:
        if self._closed:
            return "the iteration is closing"
        if self.fatal is not None:
            return self.fatal_reason()
        return self.broken

    async def _spawn(self) -> Worker:
        worker = Worker(self)
        reads = ReadsFile(str(self._trace_dir / f"worker-{next(self._reads_ids)}.reads"))
        argv = self.audited_argv(reads.path)
        if argv is None:
            reads.close()
        else:
            worker.reads = reads
        try:
            await worker.start(argv or self.argv, self.config.root, self._env)
        except BaseException:
            reads.close()
            raise
        self._workers.append(worker)
        return worker

    async def _call(self, worker: Worker, request: RunRequest, on_log: LogSink | None) -> tuple[RunOutcome, bool]:
        """One row on a started worker, and whether the worker stopped (exit 0) instead of answering.
        Its duration starts when the worker was ready for it (at the request, for one that never says)."""
        requested = time.perf_counter()
        row_id = next(self._ids)
        trace_path = f"{self._trace_dir}/{row_id}.jsonl"
        message = jsonio.dumps_bytes({"id": row_id, "inputs": request.inputs, "trace": trace_path}) + b"\n"
        reply, row = await worker.call(row_id, message, on_log, request.time_limit(self.config.runner.timeout))
        trace: list[dict[str, Any]] = []
        if os.path.exists(trace_path):  # most targets write none; skip the open() and its exception
            trace, complaints = read_trace(Path(trace_path))
            Path(trace_path).unlink(missing_ok=True)
            for complaint in complaints:
                row.log(f"[workbench] {complaint}")
        log = row.text()
        started = row.started if row.started is not None else requested
        outcome = RunOutcome(duration_ms=(time.perf_counter() - started) * 1000, log=log, trace=trace,
                             reads=worker.reads.paths() if worker.reads is not None else self.unwatched(),
                             read_stats=worker.reads.stats() if worker.reads is not None else {})
        if reply.failure is not None:
            outcome.error = describe_failure(reply.failure, log, b"", log_name="log")
        elif reply.error is not None:
            outcome.error = describe_failure(self.error_text(reply.error), log, b"", log_name="log")
        else:
            outcome.output = reply.output
        return outcome, reply.stopped

    async def aclose(self) -> None:
        self._closed = True
        workers, self._workers = self._workers, []
        await asyncio.gather(*(worker.close() for worker in workers), return_exceptions=True)
        shutil.rmtree(self._trace_dir, ignore_errors=True)


@dataclass(slots=True)
class _Slot:
    """A place in the pool: the worker serving it, or None until one is started."""

    worker: Worker | None


class _Held(Runner):
    """One slot of the pool kept for a block of requests, so they all reach the same process."""

    def __init__(self, pool: WorkerRunner) -> None:
        super().__init__(pool.config)
        self.pool = pool
        self.slot = _Slot(None)

    async def __aenter__(self) -> _Held:
        self.slot = _Slot(await self.pool._pool().get())
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        self.pool._check_in(self.slot)

    async def run(self, request: RunRequest, on_log: LogSink | None = None) -> RunOutcome:
        refused = self.pool._refusal()
        if refused:
            return RunOutcome(error=refused)
        return await self.pool._run_in(self.slot, request, on_log)
