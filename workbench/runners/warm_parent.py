"""Workbench's side of the warm parent (`zygote_main.py`): start it, ask it to fork a row, and hand the
forked child to `process.supervise` exactly like a freshly started process.

Why: a target that is a plain `python agent.py` pays interpreter start-up and its imports on every
row. The warm parent pays them once per iteration; each row is a fork that runs the script as
`__main__` (see `zygote_main.py` for what the child does to look like a fresh process).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import json
import os
import signal
import socket
import time
from dataclasses import dataclass
from pathlib import Path

from .process import kill_group
from .python_command import is_python
from .read_audit import ReadsFile
from .reaper import REAPER

ZYGOTE = Path(__file__).with_name("zygote_main.py")
# The parent's start (interpreter and imports) waits at most this long, or the row timeout if shorter; a
# fork request at most FORK_TIMEOUT_S. Past either the parent is killed and rows run as fresh processes.
START_TIMEOUT_S = 30.0
FORK_TIMEOUT_S = 10.0
_MAX_MESSAGE = 1 << 20


class PreloadUnavailable(Exception):
    """The warm parent can't serve this target; rows run as fresh processes (the reason says why)."""


@dataclass(frozen=True, slots=True)
class PreloadPlan:
    """A command that is a Python interpreter running a script (or `-m module`)."""

    interpreter: str
    script: str | None  # absolute, symlinks resolved (to read its imports and find sys.path[0])
    argv0: str | None  # the script as the command wrote it (what sys.argv[0] and, made absolute, __file__ show)
    module: str | None
    args: list[str]
    unbuffered: bool
    argv: tuple[str, ...] = ()  # the whole command, as sys.orig_argv shows it

    def child_argv(self) -> list[str]:
        """What the child's sys.argv holds after argv[0] (the script or module is added by the child)."""
        return list(self.args)


def plan_preload(argv: list[str], root: Path) -> PreloadPlan | str | None:
    """How to preload `argv`: a plan, a reason it can't be (a Python command we can't serve), or None
    when it isn't a Python command at all."""
    if not argv:
        return None
    interpreter = argv[0]
    if not is_python(interpreter):
        return None
    rest = list(argv[1:])
    unbuffered = False
    while rest and rest[0] == "-u":
        unbuffered = True
        rest.pop(0)
    if not rest:
        return "the command starts Python without a script"
    if rest[0] == "-m":
        if len(rest) < 2 or not rest[1]:
            return "`-m` without a module name"
        return PreloadPlan(interpreter, None, None, rest[1], rest[2:], unbuffered, tuple(argv))
    if rest[0].startswith("-"):
        return f"interpreter option {rest[0]!r} is not supported by preload"
    script = Path(rest[0])
    path = script if script.is_absolute() else root / script
    if not path.is_file():
        return f"script {rest[0]!r} not found in {root}"
    return PreloadPlan(interpreter, str(path.resolve()), rest[0], None, rest[1:], unbuffered, tuple(argv))


class ForkedChild:
    """A row's process, forked by the warm parent: the `ChildHandle` that `supervise` drives."""

    def __init__(self, parent: WarmParent, ident: int) -> None:
        self.parent = parent
        self.ident = ident
        self.pid = 0
        self.exit_code: int | None = None
        self.exited: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.orphaned = False  # the warm parent went away while this child ran: its exit status is unknown
        self.stdin: asyncio.StreamWriter
        self.stdout: asyncio.StreamReader
        self.stderr: asyncio.StreamReader
        self._transports: list[asyncio.BaseTransport] = []

    @property
    def returncode(self) -> int | None:
        return self.exit_code

    def set_exit(self, code: int | None) -> None:
        if not self.exited.done():
            self.exit_code = code
            self.exited.set_result(None)

    async def kill_and_wait(self) -> None:
        if self.exited.done():
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(self.pid, signal.SIGKILL)
        try:
            await asyncio.wait_for(asyncio.shield(self.exited), START_TIMEOUT_S)
        except TimeoutError:  # the warm parent is gone and can't tell us: it was killed with it
            self.set_exit(-signal.SIGKILL)

    def close(self) -> None:
        for transport in self._transports:
            transport.close()
        REAPER.untrack(self.pid)


class WarmParent:
    """One warm parent per iteration (a new one per iteration, so edits to the script take effect)."""

    def __init__(self, plan: PreloadPlan, root: Path, env: dict[str, str], scratch: Path, *,
                 trust_subprocesses: bool = False) -> None:
        self.plan = plan
        self.trust_subprocesses = trust_subprocesses  # programs the script starts don't make its reads unseen
        self.root = root
        self.env = env
        self.scratch = scratch  # workbench's temp folder for this runner: the reads files go there
        self.preloaded: list[str] = []
        self.import_seconds = 0.0  # from starting the interpreter to its ready message
        self.ready_at = 0.0  # time.perf_counter() of the ready message
        self._reads: ReadsFile | None = None
        self._proc: asyncio.subprocess.Process | None = None
        self._sock: socket.socket | None = None
        self._ids = itertools.count(1)
        self._waiting: dict[int, asyncio.Future[int]] = {}
        self._children: dict[int, ForkedChild] = {}
        self._reader: asyncio.Task[None] | None = None
        self._stderr = bytearray()
        self._stderr_task: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()

    def forked_pids(self) -> list[int]:
        """The pids of the rows forked from this parent that still run (a row has one once its fork
        answered)."""
        return [child.pid for child in self._children.values() if child.pid]

    def reads(self) -> tuple[str, ...]:
        """What the parent read (its interpreter's start-up modules, the preloaded ones): every row forked
        from it uses them, so they count among each row's reads."""
        return self._reads.paths() if self._reads is not None else ()

    def read_stats(self) -> dict[str, tuple[int, ...]]:
        """Each file the parent read, with its stat when the parent opened it."""
        if self._reads is None:
            return {}
        self._reads.paths()
        return self._reads.stats()

    async def start(self, deadline: float = START_TIMEOUT_S) -> None:
        """Start the parent and wait until it has imported what the script imports; a parent that takes
        longer than `deadline` seconds (a hanging import) is killed and PreloadUnavailable raised."""
        started = time.perf_counter()
        self._reads = ReadsFile(str(self.scratch / "warm-parent.reads"))
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        spec = json.dumps({"script": self.plan.script, "module": self.plan.module, "project": str(self.root),
                           "reads": self._reads.path, "orig_argv": list(self.plan.argv),
                           "trust_subprocesses": self.trust_subprocesses})
        try:
            self._proc = await asyncio.create_subprocess_exec(
                self.plan.interpreter, str(ZYGOTE), str(theirs.fileno()), spec,
                stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.PIPE, cwd=self.root, env=self.env, pass_fds=(theirs.fileno(),),
                start_new_session=True)
        except (OSError, ValueError) as exc:
            ours.close()
            raise PreloadUnavailable(f"could not start {self.plan.interpreter!r}: {exc}") from None
        finally:
            theirs.close()
        REAPER.track(self._proc.pid)
        ours.setblocking(False)
        self._sock = ours
        self._stderr_task = asyncio.ensure_future(self._drain_stderr())
        loop = asyncio.get_running_loop()
        try:
            first = await asyncio.wait_for(loop.sock_recv(ours, _MAX_MESSAGE), deadline)
        except TimeoutError:
            await self.close()
            raise PreloadUnavailable(f"the warm parent had not finished importing what the script imports after "
                                     f"{deadline:g}s (an import that hangs?); it was stopped") from None
        except OSError:
            first = b""
        if not first:
            await self.close()
            tail = bytes(self._stderr[-2000:]).decode("utf-8", errors="replace").strip()
            raise PreloadUnavailable("the warm parent did not start" + (f": {tail}" if tail else ""))
        self.ready_at = time.perf_counter()
        self.import_seconds = self.ready_at - started
        self.preloaded = list(json.loads(first).get("preloaded", []))
        self._reader = asyncio.ensure_future(self._read())

    async def _drain_stderr(self) -> None:
        assert self._proc is not None and self._proc.stderr is not None
        while chunk := await self._proc.stderr.read(65536):
            self._stderr += chunk
            del self._stderr[:-8192]

    async def _read(self) -> None:
        """Route the messages: pids (sent by each child once it runs) and fork errors to the waiting
        `spawn`, exits to their child."""
        assert self._sock is not None
        loop = asyncio.get_running_loop()
        try:
            while data := await loop.sock_recv(self._sock, _MAX_MESSAGE):
                message = json.loads(data)
                ident = message.get("id")
                if "exit" in message:
                    child = self._children.pop(ident, None)
                    if child is not None:
                        child.set_exit(int(message["exit"]))
                    self._answer(ident, PreloadUnavailable(
                        f"a forked child exited with {message['exit']} before it started running the script"))
                elif "pid" in message:
                    self._answer(ident, int(message["pid"]))
                else:
                    self._answer(ident, PreloadUnavailable(str(message.get("error"))))
        except (OSError, ValueError):
            pass
        finally:
            self._fail_all()

    def _answer(self, ident: object, answer: int | PreloadUnavailable) -> None:
        future = self._waiting.pop(ident, None)  # type: ignore[call-overload]
        if future is None or future.done():
            if isinstance(answer, int):  # a child whose row gave up waiting (a deadline, a cancel): nobody
                kill_group(answer)       # supervises it, so it must not run
            return
        if isinstance(answer, PreloadUnavailable):
            future.set_exception(answer)
        else:
            future.set_result(answer)

    def _fail_all(self) -> None:
        for future in self._waiting.values():
            if not future.done():
                future.set_exception(PreloadUnavailable("the warm parent exited"))
        self._waiting.clear()
        for child in self._children.values():
            child.orphaned = True
            child.set_exit(-signal.SIGKILL)
        self._children.clear()

    async def spawn(self, env: dict[str, str], cwd: Path, reads: str | None = None,
                    deadline: float | None = None) -> ForkedChild:
        """Fork one row's process; its stdin/stdout/stderr are fresh pipes read here, its reads go to the
        file `reads` (created by the caller). A fork that doesn't answer within `deadline` seconds (a
        blocking `os.register_at_fork` hook) raises PreloadUnavailable; the caller stops the parent."""
        assert self._sock is not None
        deadline = FORK_TIMEOUT_S if deadline is None else deadline
        ident = next(self._ids)
        child = ForkedChild(self, ident)
        pipes = [os.pipe(), os.pipe(), os.pipe()]
        theirs = [pipes[0][0], pipes[1][1], pipes[2][1]]
        ours = [pipes[0][1], pipes[1][0], pipes[2][0]]
        request = {"id": ident, "argv": self.plan.child_argv(), "argv0": self.plan.argv0, "env": env, "cwd": str(cwd),
                   "unbuffered": self.plan.unbuffered, "reads": reads}
        loop = asyncio.get_running_loop()
        reply: asyncio.Future[int] = loop.create_future()
        self._waiting[ident] = reply
        self._children[ident] = child

        def close_theirs() -> None:
            while theirs:
                os.close(theirs.pop())

        async def handshake() -> int:
            try:
                async with self._lock:
                    await self._send(json.dumps(request).encode(), theirs)
            finally:
                close_theirs()
            return await reply

        try:
            child.pid = await asyncio.wait_for(handshake(), deadline)
        except BaseException as exc:
            close_theirs()  # when the handshake was cancelled before it began
            self._waiting.pop(ident, None)
            self._children.pop(ident, None)
            for fd in ours:
                os.close(fd)
            if isinstance(exc, TimeoutError):
                raise PreloadUnavailable(f"the warm parent did not fork a row within {deadline:g}s (an "
                                         "os.register_at_fork hook that blocks?); it was stopped") from None
            raise
        REAPER.track(child.pid)
        await self._connect(child, ours)
        return child

    async def _send(self, data: bytes, fds: list[int]) -> None:
        assert self._sock is not None
        loop = asyncio.get_running_loop()
        while True:
            try:
                socket.send_fds(self._sock, [data], fds)
                return
            except BlockingIOError:
                ready = loop.create_future()
                loop.add_writer(self._sock, ready.set_result, None)
                try:
                    await ready
                finally:
                    loop.remove_writer(self._sock)

    @staticmethod
    async def _connect(child: ForkedChild, fds: list[int]) -> None:
        loop = asyncio.get_running_loop()
        stdin_fd, stdout_fd, stderr_fd = fds
        transport, protocol = await loop.connect_write_pipe(
            lambda: asyncio.streams.FlowControlMixin(loop=loop), os.fdopen(stdin_fd, "wb", 0))
        child.stdin = asyncio.StreamWriter(transport, protocol, None, loop)
        child._transports.append(transport)
        for fd, name in ((stdout_fd, "stdout"), (stderr_fd, "stderr")):
            reader = asyncio.StreamReader(limit=2**20, loop=loop)
            read_transport, _ = await loop.connect_read_pipe(
                functools.partial(asyncio.StreamReaderProtocol, reader, loop=loop), os.fdopen(fd, "rb", 0))
            child._transports.append(read_transport)
            setattr(child, name, reader)

    async def close(self) -> None:
        """Stop the parent (its rows were already killed by their own supervision)."""
        if self._sock is not None:
            self._sock.close()
            self._sock = None
        if self._proc is not None:
            kill_group(self._proc.pid)
            with contextlib.suppress(ProcessLookupError):
                self._proc.kill()
            await self._proc.wait()
            REAPER.untrack(self._proc.pid)
            self._proc = None
        for task in (self._reader, self._stderr_task):
            if task is not None and not task.done():
                task.cancel()
        self._fail_all()
        if self._reads is not None:
            self._reads.paths()  # keep what it recorded for reads() after the file is gone
            self._reads.close()
