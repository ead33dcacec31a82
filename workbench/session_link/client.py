"""The asking side: find the project's live session, check it is this user's, ask, follow, and fall back
(None) on anything short of an answer. Every wait has a deadline: the connect, and each message (the
session says it is alive at least every HEARTBEAT_S while it works, so STALL_S of silence is a dead or
frozen session, not a slow iteration)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..engine import RowFilter
from . import protocol
from .address import LinkAddress, link_address
from .peer import peer_allowed, peer_uid
from .protocol import VERSION, ProtocolError, encode, read_message, selection_to_json

log = logging.getLogger("workbench.session_link")

ProgressSink = Callable[[int, int], None]


@dataclass(frozen=True, slots=True)
class LinkedIteration:
    """The live session's answer: the history iteration whose results hold for the request."""

    number: int
    how: str  # "joined", "recorded" or "ran" (see session_link)
    rows: int = 0  # rows in that iteration


async def _connect(address: LinkAddress) -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | None:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.setblocking(False)
    try:
        await asyncio.wait_for(asyncio.get_running_loop().sock_connect(sock, address.name), protocol.CONNECT_S)
    except (OSError, TimeoutError):
        sock.close()
        return None  # nobody listens (no session, or it died): the usual case, said by a refused connect
    if not peer_allowed(peer_uid(sock), os.getuid()):
        log.warning("%s is held by another user's process: not asking it", address.shown)
        sock.close()
        return None
    return await asyncio.open_unix_connection(sock=sock, limit=protocol.MAX_LINE)


async def ask_live_session(root: Path, selection: RowFilter | None = None, *, asked_by: str = "agent",
                           on_progress: ProgressSink | None = None,
                           address: LinkAddress | None = None) -> LinkedIteration | None:
    """Ask the TUI or `watch` session running on `root` for the iteration that answers `selection`;
    None when there is none, or it can't or won't answer (then run it yourself). See `session_link`."""
    address = address or link_address(root)
    if address is None:
        return None
    streams = await _connect(address)
    if streams is None:
        return None
    reader, writer = streams
    try:
        writer.write(encode({"type": "ask", "version": VERSION, "project": address.project,
                             "selection": selection_to_json(selection), "asked_by": asked_by}))
        await asyncio.wait_for(writer.drain(), protocol.STALL_S)
        return await _follow(reader, on_progress)
    except (OSError, TimeoutError, ProtocolError) as exc:
        log.info("the live session did not answer: %s", exc or type(exc).__name__)
        return None
    finally:
        writer.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(writer.wait_closed(), 1.0)


async def _follow(reader: asyncio.StreamReader, on_progress: ProgressSink | None) -> LinkedIteration | None:
    while True:
        message = await read_message(reader, protocol.STALL_S)
        if message is None:
            log.info("the live session closed the connection before answering")
            return None
        kind = message["type"]
        if kind == "progress" and on_progress is not None:
            done, total = message.get("done"), message.get("total")
            if isinstance(done, int) and isinstance(total, int):
                on_progress(done, total)
        elif kind == "answer":
            number, how, rows = message.get("number"), message.get("how"), message.get("rows", 0)
            if not isinstance(number, int) or isinstance(number, bool) or not isinstance(how, str):
                raise ProtocolError("an answer without an iteration number")
            return LinkedIteration(number, how, rows if isinstance(rows, int) else 0)
        elif kind == "declined":
            log.info("the live session declined: %s", message.get("reason"))
            return None
