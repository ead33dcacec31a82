"""Who is on the other end of a Unix socket, and whether they may talk to us: only the same user.

Both sides check: the session answers only its own user's processes (an agent of another user must not
start targets in this user's name), and a client believes only a session of its own user (another user
could bind the name first and answer with an iteration number that is not ours — a false verdict).
"""

from __future__ import annotations

import socket
import struct
import sys

_UCRED = struct.Struct("3i")  # Linux struct ucred: pid, uid, gid
_SOL_LOCAL, _LOCAL_PEERCRED = 0, 1  # macOS / FreeBSD: struct xucred {u_int version; uid_t uid; ...}
_XUCRED_HEAD = struct.Struct("Ii")


def peer_uid(sock: socket.socket) -> int | None:
    """The user id of the process at the other end (as the kernel says, not as it claims), or None when
    the platform can't say — which `peer_allowed` refuses."""
    try:
        if hasattr(socket, "SO_PEERCRED"):
            raw = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _UCRED.size)
            return int(_UCRED.unpack(raw)[1])
        if sys.platform == "darwin" or sys.platform.startswith("freebsd"):
            raw = sock.getsockopt(_SOL_LOCAL, _LOCAL_PEERCRED, 256)
            return int(_XUCRED_HEAD.unpack_from(raw)[1])
    except (OSError, struct.error):
        return None
    return None


def peer_allowed(peer: int | None, own: int) -> bool:
    """The decision: the peer is this very user. Unknown (None) is refused, and so is root talking to a
    user's session — root can do anything anyway, but it should not get targets run by asking."""
    return peer is not None and peer == own
