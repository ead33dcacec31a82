"""The asking side: find the project's live session, check it is this user's, ask, follow, and fall back
(None) on anything short of an answer. The session is looked for at the fallback socket file (where it
listens when another user holds the name), then at its name; a listener of another user is never asked.
Every wait has a deadline: the connect, and each message (the session says it is alive at least every
HEARTBEAT_S while it works, so STALL_S of silence is a dead or frozen session, not a slow iteration)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..rescoring import RowFilter
from . import protocol
from .address import LinkAddress, fallback_address, link_address
from .dial import dial
from .peer import peer_allowed
from .protocol import VERSION, ProtocolError, encode, read_message, selection_to_json

log = logging.getLogger("workbench.session_link")

ProgressSink = Callable[[int, int], None]


@dataclass(frozen=True, slots=True)
class LinkedIteration:
    """The live session's answer: the history iteration whose results hold for the request."""

    number: int
    how: str  # "joined", "recorded" or "ran" (see session_link)
    rows: int = 0  # rows in that iteration


async def _connect(addresses: list[LinkAddress]
                   ) -> tuple[LinkAddress, asyncio.StreamReader, asyncio.StreamWriter] | None:
    """The first address where a process of this user listens, connected; None when there is none."""
    for address in addresses:
        dialed = await dial(address)
        if dialed is None:
            continue  # nobody listens (no session, or it died): the usual case, said by a refused connect
        if not peer_allowed(dialed.uid, os.getuid()):
            log.warning("%s is held by another user's process (uid %s): not asking it", address.shown,
                        "unknown" if dialed.uid is None else dialed.uid)
            dialed.close()
            continue
        try:
            reader, writer = await asyncio.open_unix_connection(sock=dialed.sock, limit=protocol.MAX_LINE)
        except BaseException:
            dialed.close()
            raise
        return address, reader, writer
    return None


def _addresses(root: Path) -> list[LinkAddress]:
    """Where the session may listen: the fallback socket file when there is one (it is looked at first: a
    process of another user on the name could make every request wait out its full backlog), then its name."""
    return [address for address in (fallback_address(root), link_address(root)) if address is not None]


async def ask_live_session(root: Path, selection: RowFilter | None = None, *, asked_by: str = "agent",
                           on_progress: ProgressSink | None = None,
                           address: LinkAddress | None = None) -> LinkedIteration | None:
    """Ask the TUI or `watch` session running on `root` for the iteration that answers `selection`;
    None when there is none, or it can't or won't answer (then run it yourself). See `session_link`.
    `address` asks there only (tests)."""
    found = await _connect([address] if address is not None else _addresses(root))
    if found is None:
        return None
    address, reader, writer = found
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
