"""Connecting to a link address, for both ends: with a deadline, through a listener's full backlog, and
knowing who answered (the kernel's word, SO_PEERCRED).

A non-blocking connect to a Unix socket whose backlog is full (a session busy, or flooded by another
user's connect/close loop: a closed connection keeps its place in the backlog until the session accepts
it) is EAGAIN at once. Then the connect is made blocking, in a thread, with `SO_SNDTIMEO` as its deadline:
the kernel queues it and wakes it the moment the session accepts — where a retry after a pause would find
the backlog refilled by the flood. (asyncio's `sock_connect` takes that EAGAIN for a connect in progress
and hands back a socket that is not connected at all.) A socket file is connected only when it is one
(`lstat`: a link there is never followed) in a `.workbench` that is a real folder.
"""

from __future__ import annotations

import asyncio
import os
import socket
import stat
import struct
from dataclasses import dataclass

from . import protocol
from .address import LinkAddress
from .peer import peer_uid


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
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.setblocking(False)
    try:
        sock.connect(address.name)
    except BlockingIOError:  # EAGAIN: the backlog is full; wait in the kernel's queue for a place
        sock.close()
        waited = await _wait_for_place(address, protocol.CONNECT_S if timeout is None else timeout)
        if waited is None:
            return None
        sock = waited
    except OSError:
        sock.close()
        return None  # nobody listens (no session, or it died): the usual case
    return Dialed(sock, peer_uid(sock))


async def _wait_for_place(address: LinkAddress, timeout: float) -> socket.socket | None:
    future = asyncio.get_running_loop().run_in_executor(None, _blocking_connect, address.name, timeout)
    try:
        return await asyncio.shield(future)
    except asyncio.CancelledError:
        future.add_done_callback(_close_result)  # the thread ends by its deadline; its socket is closed then
        raise


def _blocking_connect(name: str | bytes, timeout: float) -> socket.socket | None:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        whole = int(timeout)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO,
                        struct.pack("@ll", whole, int((timeout - whole) * 1_000_000)))
        sock.connect(name)  # blocking, GIL released: returns once there is a place, EAGAIN at the deadline
        sock.setblocking(False)
    except OSError:
        sock.close()
        return None
    return sock


def _close_result(future: asyncio.Future[socket.socket | None]) -> None:
    if not future.cancelled() and future.exception() is None and (sock := future.result()) is not None:
        sock.close()
