"""Workbench's side of the warm parent (`zygote_main.py`): start it, ask it to fork a row, and hand the
forked child to `process.supervise` exactly like a freshly started process.

Why: a target that is a plain `python agent.py` pays interpreter start-up and its imports on every
row. The warm parent pays them once per iteration; each row is a fork that runs the script as
`__main__` (see `zygote_main.py` for what the child does to look like a fresh process).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import re
import signal
import socket
import sys
from dataclasses import dataclass
from pathlib import Path

from .process import kill_group
from .reaper import REAPER

ZYGOTE = Path(__file__).with_name("zygote_main.py")
START_TIMEOUT_S = 30.0
_PYTHON_NAME = re.compile(r"python(\d+(\.\d+)?)?(\.exe)?$")
_MAX_MESSAGE = 1 << 20


class PreloadUnavailable(Exception):
    """The warm parent can't serve this target; rows run as fresh processes (the reason says why)."""


@dataclass(frozen=True, slots=True)
class PreloadPlan:
    """A command that is a Python interpreter running a script (or `-m module`)."""

    interpreter: str
    script: str | None  # absolute path
    argv0: str | None  # the script as the command wrote it (what sys.argv[0] shows)
    module: str | None
    args: list[str]
    unbuffered: bool

    def child_argv(self) -> list[str]:
        """What the child's sys.argv holds after argv[0] (the script or module is added by the child)."""
        return list(self.args)


def plan_preload(argv: list[str], root: Path) -> PreloadPlan | str | None:
    """How to preload `argv`: a plan, a reason it can't be (a Python command we can't serve), or None
    when it isn't a Python command at all."""
    if not argv:
        return None
    interpreter = argv[0]
    if not (_PYTHON_NAME.search(Path(interpreter).name) or interpreter == sys.executable):
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
        return PreloadPlan(interpreter, None, None, rest[1], rest[2:], unbuffered)
    if rest[0].startswith("-"):
        return f"interpreter option {rest[0]!r} is not supported by preload"
    script = Path(rest[0])
    path = script if script.is_absolute() else root / script
    if not path.is_file():
        return f"script {rest[0]!r} not found in {root}"
    return PreloadPlan(interpreter, str(path.resolve()), rest[0], None, rest[1:], unbuffered)


class ForkedChild:
    """A row's process, forked by the warm parent: the `ChildHandle` that `supervise` drives."""

    def __init__(self, parent: WarmParent, ident: int) -> None:
        self.parent = parent
        self.ident = ident
        self.pid = 0
        self.exit_code: int | None = None
        self.exited: asyncio.Future[None] = asyncio.get_running_loop().create_future()
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

    def __init__(self, plan: PreloadPlan, root: Path, env: dict[str, str]) -> None:
        self.plan = plan
        self.root = root
        self.env = env
        self.preloaded: list[str] = []
        self._proc: asyncio.subprocess.Process | None = None
        self._sock: socket.socket | None = None
        self._ids = itertools.count(1)
        self._waiting: dict[int, asyncio.Future[int]] = {}
        self._children: dict[int, ForkedChild] = {}
        self._reader: asyncio.Task[None] | None = None
        self._stderr = bytearray()
        self._stderr_task: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()

    async def start(self) -> None:
        """Start the parent and wait until it has imported what the script imports."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        spec = json.dumps({"script": self.plan.script, "module": self.plan.module, "project": str(self.root)})
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
            first = await asyncio.wait_for(loop.sock_recv(ours, _MAX_MESSAGE), START_TIMEOUT_S)
        except (TimeoutError, OSError):
            first = b""
        if not first:
            await self.close()
            tail = bytes(self._stderr[-2000:]).decode("utf-8", errors="replace").strip()
            raise PreloadUnavailable("the warm parent did not start" + (f": {tail}" if tail else ""))
        self.preloaded = list(json.loads(first).get("preloaded", []))
        self._reader = asyncio.ensure_future(self._read())

    async def _drain_stderr(self) -> None:
        assert self._proc is not None and self._proc.stderr is not None
        while chunk := await self._proc.stderr.read(65536):
            self._stderr += chunk
            del self._stderr[:-8192]

    async def _read(self) -> None:
        """Route the parent's messages: fork replies to the waiting `spawn`, exits to their child."""
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
                elif ident in self._waiting:
                    future = self._waiting.pop(ident)
                    if not future.done():
                        if "pid" in message:
                            future.set_result(int(message["pid"]))
                        else:
                            future.set_exception(PreloadUnavailable(str(message.get("error"))))
        except (OSError, ValueError):
            pass
        finally:
            self._fail_all()

    def _fail_all(self) -> None:
        for future in self._waiting.values():
            if not future.done():
                future.set_exception(PreloadUnavailable("the warm parent exited"))
        self._waiting.clear()
        for child in self._children.values():
            child.set_exit(-signal.SIGKILL)
        self._children.clear()

    async def spawn(self, env: dict[str, str], cwd: Path) -> ForkedChild:
        """Fork one row's process; its stdin/stdout/stderr are fresh pipes read here."""
        assert self._sock is not None
        ident = next(self._ids)
        child = ForkedChild(self, ident)
        pipes = [os.pipe(), os.pipe(), os.pipe()]
        theirs = [pipes[0][0], pipes[1][1], pipes[2][1]]
        ours = [pipes[0][1], pipes[1][0], pipes[2][0]]
        request = {"id": ident, "argv": self.plan.child_argv(), "argv0": self.plan.argv0, "env": env, "cwd": str(cwd),
                   "unbuffered": self.plan.unbuffered}
        loop = asyncio.get_running_loop()
        reply: asyncio.Future[int] = loop.create_future()
        self._waiting[ident] = reply
        self._children[ident] = child
        try:
            async with self._lock:
                await self._send(json.dumps(request).encode(), theirs)
        except BaseException:
            self._waiting.pop(ident, None)
            self._children.pop(ident, None)
            for fd in ours:
                os.close(fd)
            raise
        finally:
            for fd in theirs:
                os.close(fd)
        try:
            child.pid = await reply
        except BaseException:
            for fd in ours:
                os.close(fd)
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
        child.stdin = asyncio.StreamWriter(transport, protocol, None, loop)  # type: ignore[arg-type]
        child._transports.append(transport)
        for fd, name in ((stdout_fd, "stdout"), (stderr_fd, "stderr")):
            reader = asyncio.StreamReader(limit=2**20, loop=loop)
            read_transport, _ = await loop.connect_read_pipe(
                lambda reader=reader: asyncio.StreamReaderProtocol(reader, loop=loop), os.fdopen(fd, "rb", 0))
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
