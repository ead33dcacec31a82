"""Connecting to a link address, for both ends: with a deadline, through a listener's full backlog, and
knowing who answered (the kernel's word, SO_PEERCRED).

A Unix socket's connect never waits on its own when non-blocking: a full backlog (a session busy or
flooded) is EAGAIN at once, so it is tried again with a short growing pause until `CONNECT_S` is spent.
asyncio's `sock_connect` would take that EAGAIN for a connect in progress and hand back a socket that is
not connected at all. A socket file is connected only when it is one (`lstat`: a link there is never
followed) in a `.workbench` that is a real folder.
"""

from __future__ import annotations

import asyncio
import os
import socket
import stat
import time
from dataclasses import dataclass

from . import protocol
from .address import LinkAddress
from .peer import peer_uid

_FIRST_PAUSE_S = 0.002
_LONGEST_PAUSE_S = 0.05


@dataclass(slots=True)
class Dialed:
    """A connected socket (non-blocking) and the user id of the process listening at the other end."""

    sock: socket.socket
    uid: int | None

    def close(self) -> None:
        self.sock.close()


def _is_socket_file(address: LinkAddress) -> bool:
    """A file address names a socket, reached without a link (its folder and itself)."""
    path = str(address.name)
    try:
        folder = os.lstat(os.path.dirname(path))
        here = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISDIR(folder.st_mode) and stat.S_ISSOCK(here.st_mode)


async def dial(address: LinkAddress, timeout: float | None = None) -> Dialed | None:
    """Connect to `address`; None when nobody listens there (refused, no such name or file, not a socket)
    or the listener's backlog stayed full for `timeout` (default `protocol.CONNECT_S`)."""
    if not address.abstract and not _is_socket_file(address):
        return None
    deadline = time.monotonic() + (protocol.CONNECT_S if timeout is None else timeout)
    pause = _FIRST_PAUSE_S
    while True:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.setblocking(False)
        try:
            sock.connect(address.name)
        except BlockingIOError:  # EAGAIN: the backlog is full; a slot frees as soon as the listener accepts
            sock.close()
            if time.monotonic() + pause > deadline:
                return None
            await asyncio.sleep(pause)
            pause = min(pause * 2, _LONGEST_PAUSE_S)
            continue
        except OSError:
            sock.close()
            return None  # nobody listens (no session, or it died): the usual case
        return Dialed(sock, peer_uid(sock))
