"""Run one child process safely: argv only (no shell), its own process group, a timeout, capped
output, and the whole group killed when it finishes, times out or is cancelled — no orphans."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from .reaper import REAPER

LogSink = Callable[[str], None]

# After the child exits, how long pipes may stay open (held by a process that escaped the group).
DRAIN_GRACE_S = 1.0
LOG_KEEP_BYTES = 256 * 1024
_READ_CHUNK = 64 * 1024


@dataclass(slots=True)
class ProcessResult:
    exit_code: int | None = None
    stdout: bytes = b""
    log: str = ""
    timed_out: bool = False
    stdout_overflow: bool = False
    start_error: str | None = None
    start_errno: int | None = None
    duration_ms: float = 0.0

    def failure(self, timeout: float, stdout_cap: int) -> str | None:
        """Why this run did not produce usable stdout, or None."""
        if self.start_error:
            return self.start_error
        if self.timed_out:
            return f"timed out after {timeout:g}s; the process group was killed"
        if self.stdout_overflow:
            return (f"printed more than {stdout_cap / 2**20:g} MiB on stdout; stopped and killed "
                    "(raise [runner] max_output_mb if that is expected)")
        if self.exit_code is not None and self.exit_code < 0:
            try:
                name = signal.Signals(-self.exit_code).name
            except ValueError:
                name = f"signal {-self.exit_code}"
            return f"was killed by {name}"
        if self.exit_code:
            return f"exited with code {self.exit_code}"
        return None


def _consume(future: asyncio.Future[Any]) -> None:
    """Mark a finished background future's outcome as seen, so asyncio doesn't warn about it."""
    if not future.cancelled():
        future.exception()


def kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def run_probe(argv: list[str], *, cwd: Path | str, env: dict[str, str], timeout: float) -> ProbeResult:
    """A short question asked of another program from synchronous code (an interpreter's version and packages):
    argv only, its own process group, stdin closed, and the whole group killed when it answers, fails or times
    out, so nothing it started outlives the question (`subprocess.run(timeout=...)` kills only the child).
    subprocess.TimeoutExpired when it does not answer in time; OSError when it can't start."""
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except BaseException:  # a timeout, or Ctrl-C while waiting: the group dies and the pipes are let go
        kill_group(proc.pid)
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()
        proc.wait()
        raise
    finally:
        kill_group(proc.pid)  # whatever it left running in its group (a daemon a sitecustomize started)
    return ProbeResult(proc.returncode, out, err)


@dataclass(frozen=True, slots=True)
class ProbeResult:
    returncode: int
    stdout: bytes
    stderr: bytes


class _Protocol(asyncio.subprocess.SubprocessStreamProtocol):
    """Stream pipes, plus a future that resolves when the child exits. `Process.wait()` also waits for
    the pipes to close, which a grandchild holding them open would delay until the timeout."""

    def __init__(self, limit: int, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(limit=limit, loop=loop)
        self.exited: asyncio.Future[None] = loop.create_future()

    def process_exited(self) -> None:
        super().process_exited()
        if not self.exited.done():
            self.exited.set_result(None)


class TailBuffer:
    """Keeps the last `limit` bytes of a stream; the text says when earlier bytes were dropped."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.data = bytearray()
        self.truncated = False

    def add(self, chunk: bytes) -> None:
        self.data += chunk
        if len(self.data) > self.limit * 2:
            del self.data[: len(self.data) - self.limit]
            self.truncated = True

    def text(self) -> str:
        data = self.data
        if len(data) > self.limit:
            data = data[-self.limit:]
            self.truncated = True
        text = data.decode("utf-8", errors="replace")
        if self.truncated:
            text = f"[earlier output dropped: only the last {self.limit // 1024} KiB are kept]\n" + text
        return text


class ChildHandle(Protocol):
    """A started child in its own process group: its pipes, and a future that resolves when it exits.
    `run_process` starts one with asyncio; the preload runner gets one forked by its warm parent."""

    pid: int
    stdin: asyncio.StreamWriter
    stdout: asyncio.StreamReader
    stderr: asyncio.StreamReader
    exited: asyncio.Future[None]

    @property
    def returncode(self) -> int | None: ...

    async def kill_and_wait(self) -> None:
        """SIGKILL the child itself (not only its group) and wait until it is gone."""

    def close(self) -> None:
        """Release the pipes."""


class _SpawnedChild:
    def __init__(self, transport: asyncio.SubprocessTransport, protocol: _Protocol,
                 loop: asyncio.AbstractEventLoop) -> None:
        self.transport = transport
        self.protocol = protocol
        self.proc = asyncio.subprocess.Process(transport, protocol, loop)
        self.pid = self.proc.pid
        assert self.proc.stdin and self.proc.stdout and self.proc.stderr
        self.stdin, self.stdout, self.stderr = self.proc.stdin, self.proc.stdout, self.proc.stderr
        self.exited = protocol.exited

    @property
    def returncode(self) -> int | None:
        return self.proc.returncode

    async def kill_and_wait(self) -> None:
        if self.proc.returncode is None:
            # os.kill, not proc.kill(): Popen.kill() polls first, reaping the child behind asyncio's
            # child watcher ("Unknown child process pid ..." on stderr, exit code reported as 255).
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(self.pid, signal.SIGKILL)
            await asyncio.shield(self.exited)

    def close(self) -> None:
        self.transport.close()


async def run_process(
    argv: list[str],
    *,
    stdin: bytes,
    cwd: Path,
    env: dict[str, str],
    timeout: float,
    stdout_cap: int,
    on_log: LogSink | None = None,
) -> ProcessResult:
    started = time.perf_counter()
    loop = asyncio.get_running_loop()
    try:
        transport, protocol = await loop.subprocess_exec(
            lambda: _Protocol(_READ_CHUNK, loop),
            *argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=cwd,
            env=env,
            start_new_session=True,
        )
    except (OSError, ValueError) as exc:  # ValueError: a NUL byte in an argument
        result = ProcessResult(start_error=f"could not start {argv[0]!r}: {getattr(exc, 'strerror', None) or exc}",
                               start_errno=getattr(exc, "errno", None))
        result.duration_ms = (time.perf_counter() - started) * 1000
        return result
    child = _SpawnedChild(transport, protocol, loop)
    REAPER.track(child.pid)
    try:
        return await supervise(child, stdin=stdin, timeout=timeout, stdout_cap=stdout_cap, on_log=on_log,
                               started=started)
    finally:
        REAPER.untrack(child.pid)


async def _feed(child: ChildHandle, stdin: bytes) -> None:
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        child.stdin.write(stdin)
        await child.stdin.drain()
    with contextlib.suppress(BrokenPipeError, ConnectionResetError, RuntimeError):
        child.stdin.close()


async def _read_stdout(child: ChildHandle, stdout: bytearray, stdout_cap: int, result: ProcessResult) -> None:
    """Stdout into `stdout` up to `stdout_cap` bytes; past it the group is killed (`stdout_overflow`)."""
    while chunk := await child.stdout.read(_READ_CHUNK):
        if len(stdout) + len(chunk) > stdout_cap:
            result.stdout_overflow = True
            kill_group(child.pid)
            break
        stdout.extend(chunk)


async def _read_stderr(child: ChildHandle, log: TailBuffer, on_log: LogSink | None) -> None:
    """Stderr into the kept tail `log`, and line by line (or chunk by chunk, for a very long line) to `on_log`."""
    pending = b""
    while chunk := await child.stderr.read(_READ_CHUNK):
        log.add(chunk)
        if on_log is None:
            continue
        pending += chunk
        *lines, pending = pending.split(b"\n")
        for line in lines:
            on_log(line.decode("utf-8", errors="replace"))
        if len(pending) > _READ_CHUNK:
            on_log(pending.decode("utf-8", errors="replace"))
            pending = b""
    if pending and on_log is not None:
        on_log(pending.decode("utf-8", errors="replace"))


async def supervise(child: ChildHandle, *, stdin: bytes, timeout: float, stdout_cap: int,
                    on_log: LogSink | None, started: float) -> ProcessResult:
    """Feed stdin, collect capped stdout and the stderr log (line by line to `on_log`), enforce the
    timeout, and kill the child's whole group however this ends — a cancel included."""
    result = ProcessResult()
    stdout = bytearray()
    log = TailBuffer(LOG_KEEP_BYTES)
    io = asyncio.gather(_feed(child, stdin), _read_stdout(child, stdout, stdout_cap, result),
                        _read_stderr(child, log, on_log))
    try:
        try:
            await asyncio.wait_for(asyncio.shield(child.exited), timeout)
        except TimeoutError:
            result.timed_out = True
        # Grandchildren that still hold our pipes die with the group; then the pipes reach EOF.
        kill_group(child.pid)
        try:
            await asyncio.wait_for(asyncio.shield(io), DRAIN_GRACE_S)
        except TimeoutError:
            io.cancel()
    except BaseException:
        kill_group(child.pid)
        io.cancel()
        raise
    finally:
        kill_group(child.pid)
        await child.kill_and_wait()
        if not io.done():
            io.cancel()
        io.add_done_callback(_consume)
        child.close()
    result.exit_code = child.returncode
    result.stdout = bytes(stdout)
    result.log = log.text()
    result.duration_ms = (time.perf_counter() - started) * 1000
    return result
