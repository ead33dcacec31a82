"""Where a project's live session listens: one name per (user, project), found by both sides alike.

On Linux an abstract-namespace Unix socket (`\\0workbench-<uid>-<digest of the project's real path>`):
nothing is written on disk, and the name is gone the moment the process holding it dies, so a dead
session never leaves a stale socket behind. Elsewhere a socket file `.workbench/session.sock`, inside the
project and never outside it, in a `.workbench` that is a real folder (a link is refused, as everywhere);
a stale file there is found by a refused connection and replaced.
"""

from __future__ import annotations

import hashlib
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from ..config import STATE_DIR
from ..safe_paths import real_folder

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


def socket_folder(address: LinkAddress) -> None:
    """Make sure a socket file's folder is the project's real `.workbench` (raises UnsafePath on a link)."""
    if not address.abstract:
        real_folder(Path(address.project) / STATE_DIR)
