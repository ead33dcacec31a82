"""A second local user for the tests about other users (issue 32): created for the test module with `useradd`
when the tests run as root, removed with `userdel` at the end; skipped with the reason otherwise.

`OtherUser.start(script, *args)` runs a tiny `python3 -c` script as that user (Popen's user/group, no
supplementary groups), importing nothing of workbench's: the user may not even be able to read this
checkout. Its stdin is a pipe the test closes to stop it; its stdout is read line by line with a deadline.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import pwd
import queue
import secrets
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import IO

import pytest

WAIT_S = 60.0  # for something that should happen; reached only when a test fails
_USERS_LOCK = "/tmp/workbench-tests-useradd.lock"  # useradd/userdel of parallel workers take turns on /etc/passwd

# Bind the abstract name (hex argv[1]) and hold it, accepting nothing, until stdin closes.
SQUATTER = """\
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(bytes.fromhex(sys.argv[1]))
s.listen(64)
print("bound", flush=True)
sys.stdin.read()
"""

# Connect/close to the abstract name (hex argv[1]) in bursts of argv[2] connections held open until the next
# burst, until stdin closes; a hang guard of argv[3] connections in all. Prints "flooding" after its first
# burst, then "<connected> <backlog full or refused>" at the end.
FLOODER = """\
import select, socket, sys
name, burst, limit = bytes.fromhex(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
made = failed = 0
held = []
while made + failed < limit and not select.select([sys.stdin], [], [], 0)[0]:
    for s in held:
        s.close()
    held = []
    for _ in range(burst):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.setblocking(False)
        try:
            s.connect(name)
            made += 1
        except OSError:
            failed += 1
        held.append(s)
    if made + failed == burst:
        print("flooding", flush=True)
print(made, failed, flush=True)
"""


@dataclass
class Foreign:
    """A process running as the other user."""

    proc: subprocess.Popen[str]
    lines: queue.Queue[str | None] = field(default_factory=queue.Queue)

    def expect(self, wanted: str) -> None:
        """Wait for its next stdout line and check it is `wanted`."""
        line = self.lines.get(timeout=WAIT_S)
        assert line == wanted, f"the other user's process said {line!r}, not {wanted!r} (exit {self.proc.poll()})"

    def finish(self) -> str:
        """Close its stdin (its signal to stop) and return its last line."""
        assert self.proc.stdin is not None
        with contextlib.suppress(BrokenPipeError):
            self.proc.stdin.close()
        self.proc.wait(WAIT_S)
        last = ""
        while (line := self.lines.get(timeout=WAIT_S)) is not None:
            last = line
        return last

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(WAIT_S)


@dataclass
class OtherUser:
    name: str
    uid: int
    gid: int
    python: str
    started: list[Foreign] = field(default_factory=list)

    def start(self, script: str, *args: str) -> Foreign:
        proc = subprocess.Popen([self.python, "-I", "-S", "-c", script, *args], user=self.uid, group=self.gid,
                                extra_groups=[], cwd="/", env={"PATH": "/usr/bin:/bin"}, stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        foreign = Foreign(proc)
        assert proc.stdout is not None
        threading.Thread(target=_pump, args=(proc.stdout, foreign.lines), daemon=True).start()
        self.started.append(foreign)
        return foreign


def _pump(stream: IO[str], lines: queue.Queue[str | None]) -> None:
    for line in stream:
        lines.put(line.rstrip("\n"))
    lines.put(None)


@contextlib.contextmanager
def _users_lock() -> Iterator[None]:
    with open(_USERS_LOCK, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _python_for(uid: int, gid: int) -> str | None:
    """An interpreter the user can run (this one may sit in root's home, which they can't enter)."""
    for candidate in dict.fromkeys([sys.executable, "/usr/bin/python3", shutil.which("python3") or ""]):
        if not candidate:
            continue
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            done = subprocess.run([candidate, "-I", "-S", "-c", "pass"], user=uid, group=gid, extra_groups=[],
                                  cwd="/", env={"PATH": "/usr/bin:/bin"}, capture_output=True, timeout=WAIT_S)
            if done.returncode == 0:
                return candidate
    return None


@pytest.fixture(scope="module")
def other_user() -> Iterator[OtherUser]:
    """A throwaway local user (`wbtest-<random>`), removed when the module's tests are done."""
    if not sys.platform.startswith("linux"):
        pytest.skip("the tests with a second local user use Linux's useradd and abstract sockets")
    if os.geteuid() != 0:
        pytest.skip("creating a second local user for this test needs root (useradd); run as root to include it")
    useradd, userdel = shutil.which("useradd"), shutil.which("userdel")
    if useradd is None or userdel is None:
        pytest.skip("useradd/userdel are not installed: no second local user can be made for this test")
    name = f"wbtest-{secrets.token_hex(4)}"
    with _users_lock():
        made = subprocess.run([useradd, "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name],
                              capture_output=True, text=True, timeout=WAIT_S)
    if made.returncode != 0:
        pytest.skip(f"useradd could not create a second local user: {made.stderr.strip()}")
    user: OtherUser | None = None
    try:
        entry = pwd.getpwnam(name)
        python = _python_for(entry.pw_uid, entry.pw_gid)
        if python is None:
            pytest.skip(f"no python3 the user {name} may run was found")
        user = OtherUser(name, entry.pw_uid, entry.pw_gid, python)
        yield user
    finally:
        for foreign in user.started if user else []:
            foreign.kill()
        with _users_lock():
            subprocess.run([userdel, name], capture_output=True, timeout=WAIT_S)
