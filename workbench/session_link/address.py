"""Where a project's live session listens: one name per (user, project), found by both sides alike.

On Linux an abstract-namespace Unix socket (`\\0workbench-<uid>-<digest of the project's real path>`):
nothing is written on disk, and the name is gone the moment the process holding it dies, so a dead
session never leaves a stale socket behind. Elsewhere a socket file `.workbench/session.sock`, inside the
project and never outside it, in a `.workbench` that is a real folder (a link is refused, as everywhere);
a stale file there is found by a refused connection and replaced.

The abstract name is predictable and has no permissions: any local user can bind it first. The socket
file is the fallback then (`fallback_address`): only the owner of a `.workbench` that no other user can
write to can create a name in it, so nobody else can take it (`check_state_folder` refuses a folder that
another user owns or may write to).
"""

from __future__ import annotations

import hashlib
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from ..config import STATE_DIR
from ..safe_paths import UnsafePath, real_folder

SOCKET_FILE = "session.sock"
_MAX_PATH = 108 if sys.platform.startswith("linux") else 104  # sun_path's size, with its NUL


@dataclass(frozen=True, slots=True)
class LinkAddress:
    """An address to bind or connect to: `name` as the socket module takes it (bytes starting with NUL
    for the abstract namespace, else a file path), and the project it belongs to."""

    name: str | bytes
    project: str  # the project's real path

    @property
    def abstract(self) -> bool:
        return isinstance(self.name, bytes)

    @property
    def shown(self) -> str:
        return f"@{self.name[1:].decode()}" if isinstance(self.name, bytes) else str(self.name)


def project_key(root: Path) -> str:
    """The project's real path: a link to it or a relative path names the same session."""
    return os.path.realpath(root)


def link_address(root: Path, *, abstract: bool | None = None) -> LinkAddress | None:
    """The address of `root`'s session for this user; None when there can be none (the socket file's
    path is too long for the platform). `abstract` forces a kind (tests); default: Linux's abstract one."""
    real = project_key(root)
    if abstract if abstract is not None else sys.platform.startswith("linux"):
        digest = hashlib.sha256(os.fsencode(real)).hexdigest()[:32]
        return LinkAddress(f"\0workbench-{os.getuid()}-{digest}".encode(), real)
    path = os.path.join(real, STATE_DIR, SOCKET_FILE)
    if len(os.fsencode(path)) >= _MAX_PATH:
        return None
    return LinkAddress(path, real)


def fallback_address(root: Path) -> LinkAddress | None:
    """The socket file another user can't take, for when the abstract name is held by one; None when the
    primary address is that file already (not Linux) or its path is too long for a socket."""
    if not sys.platform.startswith("linux"):
        return None
    return link_address(root, abstract=False)


def socket_folder(address: LinkAddress) -> None:
    """Make sure a socket file's folder is the project's real `.workbench` (raises UnsafePath on a link), and
    that no other user can create or replace a name in it (UnsafePath naming the folder and its mode)."""
    if not address.abstract:
        check_state_folder(real_folder(Path(address.project) / STATE_DIR))


def check_state_folder(folder: Path) -> None:
    """The folder is this user's and only this user may write to it: else another user could put their own
    socket where the session's should be (UnsafePath, naming the folder and what is wrong)."""
    info = os.lstat(folder)
    if info.st_uid != os.getuid():
        raise UnsafePath(f"{folder} belongs to another user (uid {info.st_uid}): agent requests are served only "
                         f"from a .workbench folder of your own")
    if info.st_mode & 0o022:
        raise UnsafePath(f"{folder} can be written by other users (mode {info.st_mode & 0o777:04o}): another user "
                         f"could take the session's socket there; chmod 700 {folder}")
