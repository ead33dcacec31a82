"""The session's side: answer other processes' requests for an iteration of the project's files.

A request (a row selection) is answered with the history number of the iteration whose results hold for
the files as they are when it is answered:

1. the session is running (or has queued) an iteration: join it — stream its progress — and once it
   finished, prove it still holds (`rescoring/proof.py`: same loaded project, every selected row re-scorable from
   it); a change during it means the watcher's next iteration (or, failing that, a new one) answers;
2. nothing runs and the session's last iteration is proven to hold: answer with it, nothing runs;
3. else the session runs one with `TriggerKind.AGENT` (queued behind nothing — it re-scores what the
   proof allows, like a file change does) and answers with it when it is done.

An AGENT iteration every waiter has given up on is cancelled (its processes killed); the person's
iterations (start, change, R) are never cancelled for a client.

Who may ask is decided at accept, before anything else: this user's processes only (see `session_link`
for the name another user holds and the fallback socket file).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import socket
import stat
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ..events import Event, IterationReport, IterationStarted, ResultReady, Trigger, TriggerKind
from ..project import load_project
from ..rescoring import RowFilter, answers_now
from ..session import Session
from ..textsafe import one_line
from .address import LinkAddress, fallback_address, link_address, socket_folder
from .dial import dial
from .peer import peer_allowed, peer_uid
from .protocol import (
    HEARTBEAT_S,
    MAX_LINE,
    REQUEST_S,
    VERSION,
    ProtocolError,
    encode,
    read_message,
    selection_from_json,
)

MAX_CLIENTS = 16  # this user's requests at once (each holds a handler); more are declined
BACKLOG = 1024  # connections the kernel queues before accept (the kernel caps it at net.core.somaxconn)
ACCEPT_BATCH = 256  # connections taken per wake-up before the loop gets a turn
ACCEPT_RETRY_S = 0.5  # accepting failed (no descriptors left): try again after this
_OUT_OF_RESOURCES = {errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM}
MAX_ROUNDS = 8  # iterations joined or started for one request before it gives up (the files keep changing)
PROGRESS_EVERY_S = 0.05
WATCHER_MARGIN_S = 0.5  # beyond [watch] debounce_ms: how long a watcher may take to see a save and start
_HOW = {"joined": " (joined it while it ran)", "recorded": " (its results still hold: nothing ran again)", "ran": ""}


@dataclass(frozen=True, slots=True)
class AgentAsk:
    """A request answered: which iteration, who asked, and how it was answered."""

    number: int
    asked_by: str
    how: str  # "joined", "recorded" or "ran"

    def line(self) -> str:
        """`iteration 12 · asked by agent` (what watch prints and the TUI shows), with how it was answered."""
        return f"iteration {self.number} · asked by {self.asked_by}{_HOW.get(self.how, '')}"


class _Ours(Exception):
    """The name is held by another session of this user: it serves the project."""


class _Taken(Exception):
    """The name is held by someone else (`who`, as said in the notice)."""

    def __init__(self, who: str) -> None:
        super().__init__(who)
        self.who = who


class Declined(Exception):
    """The session won't answer this request; the client runs it itself."""


@dataclass(slots=True, eq=False)
class _Waiter:
    """One connection's view of the iteration its answer waits on."""

    done: int = 0
    total: int = 0
    following: bool = False  # its answer waits on an iteration (progress is sent from then on)
    changed: asyncio.Event = field(default_factory=asyncio.Event)


class LinkServer:
    """Serves a Session's iterations to this user's other processes (see `session_link`)."""

    def __init__(self, session: Session, *, on_asked: Callable[[AgentAsk], None] | None = None,
                 on_notice: Callable[[str], None] | None = None, address: LinkAddress | None = None) -> None:
        self.session = session
        self.on_asked = on_asked or (lambda _ask: None)
        self.on_notice = on_notice or (lambda _text: None)
        self.address = address or link_address(session.config.root)
        self.own_uid = os.getuid()  # whom it serves (tests change it to see another user refused)
        self._listener: socket.socket | None = None
        self._retry: asyncio.TimerHandle | None = None  # accepting paused after an error, resumed by this
        self.refused = 0  # connections from other users, closed unread
        self._strangers: set[int | None] = set()  # their uids, each said once
        self._file: tuple[str, int] | None = None  # a socket file it made: (path, inode)
        self._waiters: set[_Waiter] = set()
        self._handlers: set[asyncio.Task[None]] = set()
        self._agent_tasks: dict[asyncio.Task[IterationReport | None], int] = {}  # AGENT iteration → waiters
        self._progress: tuple[int, int] | None = None  # rows done / total of the iteration running now
        self._started = asyncio.Event()  # an iteration started (set by the event stream)

    @property
    def serving(self) -> bool:
        return self._listener is not None

    async def start(self) -> bool:
        """Listen; False (with a notice) when this session can't serve: another live session of the project
        holds the name, the socket's path is too long, `.workbench` is a link. A session that keeps no
        history has no iteration numbers to answer with: it doesn't listen at all. When another user's
        process holds the name, it says so and listens at the fallback socket file instead."""
        if self.session.history is None:
            return False
        if self.address is None:
            self.on_notice("agent requests are not served: the project's path is too long for a socket")
            return False
        sock = await self._claim()
        if sock is None:
            return False
        self._listener = sock
        loop = asyncio.get_running_loop()
        loop.add_reader(sock.fileno(), self._on_connections)
        self.session.listeners.append(self._on_event)
        return True

    async def _claim(self) -> socket.socket | None:
        """A listening socket at the name, or at the fallback when another user holds the name; None (said)
        when neither can be had."""
        assert self.address is not None
        name = self.address
        fallback = fallback_address(self.session.config.root)
        if fallback is not None and fallback != name and await self._ours_at(fallback):
            self.on_notice("agent requests are served by the other workbench session open on this project")
            return None  # it listens at the file (another user held the name when it started)
        try:
            return await self._listen_at(name)
        except _Ours:
            self.on_notice("agent requests are served by the other workbench session open on this project")
            return None
        except _Taken as taken:
            said = f"the session name {name.shown} is held by {taken.who}"
        except OSError as exc:
            self.on_notice(f"agent requests are not served: {exc}")
            return None
        if fallback is None or fallback == name:
            why = "" if fallback == name else " (the project's path is too long for a socket file in .workbench)"
            self.on_notice(f"{said}: agent requests are not served{why}")
            return None
        try:
            sock = await self._listen_at(fallback)
        except _Ours:
            self.on_notice("agent requests are served by the other workbench session open on this project")
            return None
        except _Taken as taken:
            self.on_notice(f"{said}, and {fallback.shown} by {taken.who}: agent requests are not served")
            return None
        except OSError as exc:
            self.on_notice(f"{said}, and agent requests can't be served at {fallback.shown}: {exc}")
            return None
        self.on_notice(f"{said}: agent requests are served at {fallback.shown} instead")
        self.address = fallback
        return sock

    async def _ours_at(self, address: LinkAddress) -> bool:
        """A process of this user listens at `address` (a socket file that is there)."""
        dialed = await dial(address)
        if dialed is None:
            return False
        dialed.close()
        return peer_allowed(dialed.uid, self.own_uid)

    async def _listen_at(self, address: LinkAddress) -> socket.socket:
        """A listening socket bound to `address`. When the name is in use, its holder is asked who it is:
        `_Ours` for this user's (another session of the project), `_Taken` for another user's or one that
        does not answer; OSError for anything else."""
        with _unless_in_use():
            return self._bind(address)
        dialed = await dial(address)
        if dialed is None:  # the holder just went (a session closing), or it does not answer
            with _unless_in_use():
                return self._bind(address)
            raise _Taken("a process that does not answer")
        dialed.close()
        if peer_allowed(dialed.uid, self.own_uid):
            raise _Ours()
        raise _Taken(f"another user's process (uid {'unknown' if dialed.uid is None else dialed.uid})")

    def _bind(self, address: LinkAddress) -> socket.socket:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            if not address.abstract:
                socket_folder(address)
                _clear_stale(str(address.name))
            sock.bind(address.name)
            if not address.abstract:
                os.chmod(address.name, 0o600)
                self._file = (str(address.name), os.lstat(address.name).st_ino)
            sock.listen(BACKLOG)
            sock.setblocking(False)
        except BaseException:
            sock.close()
            raise
        return sock

    async def aclose(self) -> None:
        """Stop listening and drop every connection (their clients then run themselves)."""
        if self._listener is None:
            return
        with contextlib.suppress(ValueError):
            self.session.listeners.remove(self._on_event)
        self._stop_listening()
        handlers = list(self._handlers)
        for task in handlers:
            task.cancel()
        for task in handlers:
            with contextlib.suppress(BaseException):
                await task
        if self._file is not None:
            path, inode = self._file
            with contextlib.suppress(OSError):
                if os.lstat(path).st_ino == inode:
                    os.unlink(path)
            self._file = None

    def _stop_listening(self) -> None:
        if self._retry is not None:
            self._retry.cancel()
            self._retry = None
        if self._listener is not None:
            with contextlib.suppress(Exception):
                asyncio.get_running_loop().remove_reader(self._listener.fileno())
            self._listener.close()
            self._listener = None

    # -- accepting -----------------------------------------------------------------------------------

    def _on_connections(self) -> None:
        """The listener is readable: take what waits (a bounded batch, the loop stays responsive), each
        checked with the kernel before anything else. Another user's connection is closed at once — it never
        reaches a handler, is never read, never holds a slot; this user's get a handler each."""
        listener = self._listener
        if listener is None:
            return
        for _ in range(ACCEPT_BATCH):
            try:
                conn, _ = listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:
                if exc.errno not in _OUT_OF_RESOURCES:
                    continue  # that connection went wrong on the way in; the next may not
                loop = asyncio.get_running_loop()  # out of descriptors: pause accepting rather than spin on it
                loop.remove_reader(listener.fileno())
                self._retry = loop.call_later(ACCEPT_RETRY_S, self._resume, listener)
                self.on_notice(f"agent requests: accepting a connection failed ({exc}); trying again shortly")
                return
            uid = peer_uid(conn)
            if not peer_allowed(uid, self.own_uid):
                conn.close()
                self.refused += 1
                if uid not in self._strangers:
                    self._strangers.add(uid)
                    self.on_notice(f"agent requests: refused a connection from another user's process "
                                   f"(uid {'unknown' if uid is None else uid})")
                continue
            conn.setblocking(False)
            task = asyncio.ensure_future(self._connection(conn))
            self._handlers.add(task)
            task.add_done_callback(self._handlers.discard)

    def _resume(self, listener: socket.socket) -> None:
        self._retry = None
        if self._listener is listener:
            asyncio.get_running_loop().add_reader(listener.fileno(), self._on_connections)

    # -- progress ------------------------------------------------------------------------------------

    def _on_event(self, event: Event) -> None:
        if isinstance(event, IterationStarted):
            self._started.set()
            progress = (0, event.total_rows)
        elif isinstance(event, ResultReady) and event.row_complete:
            progress = (event.done_rows, event.total_rows)
        else:
            return
        self._progress = progress
        for waiter in self._waiters:
            if waiter.following:
                waiter.done, waiter.total = progress
                waiter.changed.set()

    # -- one connection ------------------------------------------------------------------------------

    async def _connection(self, conn: socket.socket) -> None:
        try:
            reader, writer = await asyncio.open_unix_connection(sock=conn, limit=MAX_LINE)
        except BaseException as exc:  # the session closing meanwhile (cancelled), or the client gone
            conn.close()
            if isinstance(exc, OSError):
                return
            raise
        try:
            await self._serve(reader, writer)
        except (OSError, ProtocolError, TimeoutError):
            pass  # a client that went away or spoke nonsense: nothing to answer
        except Exception as exc:  # a bug here must not reach the loop's exception handler (the TUI's screen)
            self.on_notice(f"an agent request failed: {type(exc).__name__}: {one_line(str(exc), 200)}")
        finally:
            writer.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(writer.wait_closed(), 1.0)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if len(self._handlers) > MAX_CLIENTS:
            await _send(writer, {"type": "declined", "reason": "too many requests at once"})
            return
        request = await read_message(reader, REQUEST_S)
        if request is None:
            return
        try:
            selection, asked_by = self._parse(request)
        except ProtocolError as exc:
            await _send(writer, {"type": "declined", "reason": str(exc)})
            return
        waiter = _Waiter()
        self._waiters.add(waiter)
        answer = asyncio.ensure_future(self._answer(selection, asked_by, waiter))
        gone = asyncio.ensure_future(reader.read(1))  # ends when the client closes (or says more: also wrong)
        try:
            await self._stream(writer, waiter, answer, gone)
        finally:
            self._waiters.discard(waiter)
            for task in (answer, gone):
                task.cancel()
            for task in (answer, gone):
                with contextlib.suppress(BaseException):
                    await task

    def _parse(self, request: dict[str, Any]) -> tuple[RowFilter, str]:
        if request.get("type") != "ask" or request.get("version") != VERSION:
            raise ProtocolError(f"this session speaks version {VERSION} of \"ask\"")
        if request.get("project") != (self.address.project if self.address else None):
            raise ProtocolError("this session serves another project")
        asked_by = request.get("asked_by", "agent")
        if not isinstance(asked_by, str):
            raise ProtocolError("asked_by must be a string")
        return selection_from_json(request.get("selection", {})), one_line(asked_by, 40) or "agent"

    async def _stream(self, writer: asyncio.StreamWriter, waiter: _Waiter,
                      answer: asyncio.Future[tuple[int, str, int]], gone: asyncio.Future[bytes]) -> None:
        """Progress and heartbeats until the answer is there (sent) or the client is gone (dropped)."""
        sent_at = 0.0
        while True:
            due = PROGRESS_EVERY_S - (time.monotonic() - sent_at)
            watch: set[asyncio.Future[Any]] = {answer, gone}
            changed = asyncio.ensure_future(waiter.changed.wait()) if due <= 0 else None
            if changed is not None:
                watch.add(changed)
            try:
                await asyncio.wait(watch, timeout=HEARTBEAT_S if due <= 0 else due,
                                   return_when=asyncio.FIRST_COMPLETED)
            finally:
                if changed is not None:
                    changed.cancel()
            if gone.done():
                return
            if answer.done():
                await _send(writer, _answer_message(answer))
                return
            if waiter.changed.is_set() and due <= 0:
                waiter.changed.clear()
                sent_at = time.monotonic()
                await _send(writer, {"type": "progress", "done": waiter.done, "total": waiter.total})
            elif due <= 0:
                await _send(writer, {"type": "alive"})

    # -- answering -----------------------------------------------------------------------------------

    async def _answer(self, selection: RowFilter, asked_by: str, waiter: _Waiter) -> tuple[int, str, int]:
        """(iteration number, how, rows) — see the module's docstring; Declined when it won't."""
        session = self.session
        self._check(selection)
        project = await asyncio.to_thread(load_project, session.config.root, session.config)
        unmatched = selection.unmatched(project)
        if unmatched:
            raise Declined(f"nothing matches {' and '.join(unmatched)}")
        for attempt in range(MAX_ROUNDS):
            task = session.pending
            mine = task is None  # nothing runs: either the last iteration holds, or one is started for this
            if task is None:
                async with session.exclusive():
                    last = session.last_report
                    if await answers_now(session.config, session.reuse, last, selection):
                        assert last is not None and last.number is not None
                        return self._asked(last, asked_by, "recorded")
                if attempt == 0 and await self._watcher_starts_one():
                    continue  # the edit the proof saw is the watcher's iteration now: join that one
                task = session.request(Trigger(TriggerKind.AGENT), selection, replace=False)
                self._agent_tasks[task] = 0
            report = await self._follow(task, waiter)
            if report is None or report.number is None:
                continue  # cancelled by a change (the watcher's iteration is next), or not recorded
            if mine:  # it read the files as they were when this request came: that is the answer
                return self._asked(report, asked_by, "ran")
            async with session.exclusive():
                if await answers_now(session.config, session.reuse, report, selection):
                    return self._asked(report, asked_by, "joined")
        raise Declined("the project kept changing while the session ran it")

    async def _watcher_starts_one(self) -> bool:
        """The files differ from the last iteration's: an agent asks right after its edit, and a watching
        session's watcher is about to start an iteration for it. Give the watcher its quiet time (plus a
        margin) to do so rather than start a second one that its change would cancel mid-run (its
        targets' work wasted). Only how much runs depends on this wait, never what is answered."""
        session = self.session
        if not session.watching or session.paused:
            return False
        grace = session.config.watch.debounce_ms / 1000 + WATCHER_MARGIN_S
        self._started.clear()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._started.wait(), grace)
        return session.pending is not None

    def _check(self, selection: RowFilter) -> None:
        session = self.session
        if session.history is None:
            raise Declined("this session keeps no history")
        overrides = session.config.overrides
        if (overrides.tags and not selection.tags) or (overrides.kinds and not selection.kinds):
            raise Declined("this session runs only some rows (--tag / --type)")

    async def _follow(self, task: asyncio.Task[IterationReport | None], waiter: _Waiter) -> IterationReport | None:
        """Wait for an iteration however it ends, streaming progress (at once: where the running one is);
        its report, or None. Leaving while it runs gives up on it: an AGENT iteration nobody else waits for
        is then cancelled."""
        counted = task in self._agent_tasks
        if counted:
            self._agent_tasks[task] += 1
        waiter.following = True
        if self.session.running and self._progress is not None:
            waiter.done, waiter.total = self._progress
            waiter.changed.set()
        try:
            await asyncio.wait({task})
        finally:
            waiter.following = False
            if counted:
                self._agent_tasks[task] -= 1
                if self._agent_tasks[task] <= 0:
                    del self._agent_tasks[task]
                    if not task.done():
                        task.cancel()
        if task.cancelled() or task.exception() is not None:
            return None
        return task.result()

    def _asked(self, report: IterationReport, asked_by: str, how: str) -> tuple[int, str, int]:
        assert report.number is not None
        self.on_asked(AgentAsk(report.number, asked_by, how))
        return report.number, how, len({result.row_key for result in report.results})


def _answer_message(answer: asyncio.Future[tuple[int, str, int]]) -> dict[str, Any]:
    if answer.cancelled():
        return {"type": "declined", "reason": "the session is closing"}
    error = answer.exception()
    if isinstance(error, Declined):
        return {"type": "declined", "reason": str(error)}
    if error is not None:
        return {"type": "declined", "reason": f"{type(error).__name__}: {one_line(str(error), 300)}"}
    number, how, rows = answer.result()
    return {"type": "answer", "number": number, "how": how, "rows": rows}


async def _send(writer: asyncio.StreamWriter, message: dict[str, Any]) -> None:
    writer.write(encode(message))
    await asyncio.wait_for(writer.drain(), REQUEST_S)


@contextlib.contextmanager
def _unless_in_use() -> Iterator[None]:
    """Let EADDRINUSE pass (the caller goes on to ask the holder); every other OSError is raised."""
    try:
        yield
    except OSError as exc:
        if exc.errno != errno.EADDRINUSE:
            raise


def _clear_stale(path: str) -> None:
    """A socket file left by a session that died is removed; one a live session listens on is left
    (EADDRINUSE follows); anything else there (a file, a link) is refused, never removed."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    if not stat.S_ISSOCK(info.st_mode):
        raise OSError(errno.EEXIST, f"{path} is in the way (not a socket): remove it")
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.settimeout(1.0)
        probe.connect(path)
    except (ConnectionRefusedError, FileNotFoundError):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
        return
    except OSError:
        pass
    finally:
        probe.close()
    raise OSError(errno.EADDRINUSE, "another session listens")
