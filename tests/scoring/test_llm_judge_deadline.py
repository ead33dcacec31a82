"""Issue 12, point 14: `[judge] timeout` is a deadline for the whole HTTP call (an endpoint trickling a
byte at a time can't stretch it), and a cancelled call is abandoned: shutdown never waits on it."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from workbench.config import JudgeConfig
from workbench.scoring.judge_client import JudgeError, JudgeRequest, ask, clear_cache

GUARD_S = 30.0  # the trickle below would last ~100 s; this only catches a deadline that is not kept


def _serve(listener: socket.socket, stop: threading.Event, trickle: bool, accepted: Path | None) -> None:
    """Accept connections; answer with headers, then one body byte every 0.1 s (or never answer).
    `accepted` is created once a connection is taken: the request is out."""
    held: list[socket.socket] = []
    listener.settimeout(0.1)
    while not stop.is_set():
        try:
            conn, _ = listener.accept()
        except TimeoutError:
            continue
        held.append(conn)
        if accepted is not None:
            accepted.touch()
        if trickle:
            threading.Thread(target=_trickle, args=(conn, stop), daemon=True).start()
    for conn in held:
        conn.close()


def _trickle(conn: socket.socket, stop: threading.Event) -> None:
    try:
        conn.recv(65536)
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n")
        while not stop.wait(0.1):
            conn.sendall(b" ")
    except OSError:
        pass


def _endpoint(trickle: bool, accepted: Path | None = None) -> Iterator[str]:
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()
    thread = threading.Thread(target=_serve, args=(listener, stop, trickle, accepted), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
    finally:
        stop.set()
        thread.join(timeout=5)
        listener.close()


@pytest.fixture
def trickling() -> Iterator[str]:
    yield from _endpoint(trickle=True)


@pytest.fixture
def accepted(tmp_path: Path) -> Path:
    return tmp_path / "accepted"


@pytest.fixture
def silent(accepted: Path) -> Iterator[str]:
    yield from _endpoint(trickle=False, accepted=accepted)


async def test_a_trickling_endpoint_is_an_error_once_the_timeout_has_passed(trickling: str) -> None:
    clear_cache()
    judge = JudgeConfig(url=trickling, model="m", timeout=1.0)
    with pytest.raises(JudgeError, match="did not answer within 1s"):
        await asyncio.wait_for(ask(judge, Path("."), JudgeRequest("system", "user")), GUARD_S)


CANCEL_SCRIPT = """
import asyncio, sys
from pathlib import Path
from workbench.config import JudgeConfig
from workbench.scoring.judge_client import JudgeRequest, ask

async def main():
    judge = JudgeConfig(url=sys.argv[1], model="m", timeout=600)
    task = asyncio.create_task(ask(judge, Path("."), JudgeRequest("system", "user")))
    while not Path(sys.argv[2]).exists():  # until the endpoint has the request (and says nothing)
        await asyncio.sleep(0.01)
    task.cancel()  # what Ctrl-C does to a running iteration
    try:
        await task
    except asyncio.CancelledError:
        print("cancelled")

asyncio.run(main())  # returns only when nothing is left to wait for
"""


def test_cancelling_a_judge_call_never_waits_for_the_endpoint(silent: str, accepted: Path) -> None:
    proc = subprocess.run([sys.executable, "-c", CANCEL_SCRIPT, silent, str(accepted)], capture_output=True,
                          text=True, timeout=GUARD_S)
    assert proc.stdout.strip() == "cancelled", proc.stderr
