"""The link's transport: found by the project's real path, only this user's processes on either end
(SO_PEERCRED), bounded messages, and no wait without a deadline — no session, a session that stopped
answering, a stale socket file all leave the client to run by itself (None) promptly."""

from __future__ import annotations

import asyncio
import os
import socket
import time
from pathlib import Path

import pytest
from helpers.session_link import Counted, linked_session

from workbench.config import load_config
from workbench.events import Trigger, TriggerKind
from workbench.session import Session
from workbench.session_link import LinkServer, ask_live_session, protocol
from workbench.session_link.address import link_address
from workbench.session_link.dial import dial
from workbench.session_link.peer import peer_allowed, peer_uid
from workbench.session_link.protocol import MAX_LINE, ProtocolError, read_message, selection_from_json

# -- whom it talks to ------------------------------------------------------------------------------------


def test_the_decision_admits_only_the_same_user() -> None:
    me = os.getuid()
    assert peer_allowed(me, me)
    assert not peer_allowed(me + 1, me)  # another user
    assert not peer_allowed(0, me) or me == 0  # root asking a user's session
    assert not peer_allowed(None, me)  # the platform could not say: refused


def test_the_kernel_says_who_is_at_the_other_end() -> None:
    ours, theirs = socket.socketpair(socket.AF_UNIX)
    with ours, theirs:
        assert peer_uid(ours) == os.getuid()


async def test_a_session_refuses_a_connection_from_another_user(tmp_path: Path) -> None:
    project = Counted(tmp_path)
    async with linked_session(project.root) as (session, server, _asked):
        await session.request(Trigger(TriggerKind.START))
        server.own_uid = os.getuid() + 1  # as if it served another user: this process is a stranger to it
        assert await ask_live_session(project.root) is None
        server.own_uid = os.getuid()
        assert await ask_live_session(project.root) is not None


async def test_a_second_session_of_the_project_leaves_the_serving_to_the_first(tmp_path: Path) -> None:
    project = Counted(tmp_path)
    async with linked_session(project.root):
        session = Session(load_config(project.root))
        notices: list[str] = []
        second = LinkServer(session, on_notice=notices.append)
        try:
            assert not await second.start()
        finally:
            await second.aclose()
            await session.aclose()
    assert notices == ["agent requests are served by the other workbench session open on this project"]


def test_the_name_is_the_users_and_the_projects_real_path(tmp_path: Path) -> None:
    real = tmp_path / "project"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    here = link_address(real, abstract=True)
    assert here is not None and link_address(tmp_path / "link", abstract=True) == here
    assert here.abstract and f"-{os.getuid()}-".encode() in here.name  # type: ignore[operator]
    other = link_address(tmp_path, abstract=True)
    assert other is not None and other.name != here.name


# -- no wait without a deadline ------------------------------------------------------------------------------


async def test_no_session_is_none_at_once(tmp_path: Path) -> None:
    project = Counted(tmp_path)
    started = time.monotonic()
    assert await ask_live_session(project.root) is None
    assert time.monotonic() - started < protocol.CONNECT_S


async def test_a_session_that_never_answers_is_given_up_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A listener that accepts (the kernel's backlog does, even for a frozen process) but never speaks."""
    project = Counted(tmp_path)
    address = link_address(project.root)
    assert address is not None
    monkeypatch.setattr(protocol, "STALL_S", 0.5)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as silent:
        silent.bind(address.name)
        silent.listen(1)
        assert await asyncio.wait_for(ask_live_session(project.root), 30) is None


async def test_a_stale_socket_file_is_no_session_and_a_new_session_replaces_it(tmp_path: Path) -> None:
    """Where there is no abstract namespace the socket is `.workbench/session.sock`; one left by a session
    that died refuses connections, and the next session removes it and listens there."""
    project = Counted(tmp_path, name="p")  # a socket file's path must fit in sun_path
    address = link_address(project.root, abstract=False)
    assert address is not None and isinstance(address.name, str)
    (project.root / ".workbench").mkdir(exist_ok=True)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as dead:
        dead.bind(address.name)  # bound, never listening, closed: what a killed session leaves behind
    assert await ask_live_session(project.root, address=address) is None

    async with linked_session(project.root, address=address) as (session, _server, _asked):
        await session.request(Trigger(TriggerKind.START))
        linked = await ask_live_session(project.root, address=address)
        assert linked is not None and linked.how == "recorded"
        assert oct(os.stat(address.name).st_mode & 0o777) == "0o600"
    assert not os.path.exists(address.name)  # removed when the session closed


async def test_a_socket_file_that_is_a_link_is_not_followed(tmp_path: Path) -> None:
    """A link where the session's socket file should be is never connected through, even to a live session."""
    elsewhere = Counted(tmp_path / "e", name="e")  # short: both socket files' paths must fit in sun_path
    project = Counted(tmp_path / "h", name="p")
    there = link_address(elsewhere.root, abstract=False)
    here = link_address(project.root, abstract=False)
    assert there is not None and here is not None
    async with linked_session(elsewhere.root, address=there) as (session, _server, _asked):
        await session.request(Trigger(TriggerKind.START))
        assert await ask_live_session(elsewhere.root, address=there) is not None
        (project.root / ".workbench").mkdir(exist_ok=True)
        os.symlink(str(there.name), str(here.name))
        assert await ask_live_session(project.root, address=here) is None


async def test_a_state_folder_that_is_a_link_is_refused_not_followed(tmp_path: Path) -> None:
    project = Counted(tmp_path, name="p")
    outside = tmp_path / "outside"
    outside.mkdir()
    (project.root / ".workbench").symlink_to(outside)
    address = link_address(project.root, abstract=False)
    assert address is not None
    session = Session(load_config(project.root), record=False)
    session.history = object()  # type: ignore[assignment]  # as if it kept history: it would listen
    notices: list[str] = []
    server = LinkServer(session, address=address, on_notice=notices.append)
    assert not await server.start()
    assert list(outside.iterdir()) == []
    assert notices and ".workbench" in notices[0]
    session.history = None
    await session.aclose()


# -- bounded messages ----------------------------------------------------------------------------------------


async def test_a_message_over_the_limit_is_refused_not_buffered() -> None:
    reader = asyncio.StreamReader(limit=MAX_LINE)
    reader.feed_data(b"{" + b" " * (MAX_LINE + 10))
    with pytest.raises(ProtocolError, match="limit"):
        await read_message(reader, 1.0)


async def test_a_message_must_be_a_json_object_with_a_type() -> None:
    for line in (b"[1]\n", b"not json\n", b'{"no": "type"}\n'):
        reader = asyncio.StreamReader(limit=MAX_LINE)
        reader.feed_data(line)
        with pytest.raises(ProtocolError):
            await read_message(reader, 1.0)


def test_a_selection_is_checked_field_by_field() -> None:
    assert selection_from_json({"rows": ["a"], "row_keys": [["default", "qa.json", "a"]]}).rows == ("a",)
    for bad in ({"rows": "a"}, {"sets": [1]}, {"row_keys": [["only two", "parts"]]}, {"tags": ["t"] * 5000}, []):
        with pytest.raises(ProtocolError):
            selection_from_json(bad)


async def test_a_full_backlog_is_waited_out_in_the_kernels_queue_not_given_up(tmp_path: Path) -> None:
    """Connect/close loops fill any backlog (a closed connection keeps its place until accepted): a client
    that finds it full waits for a place, and has one as soon as the session accepts."""
    address = link_address(tmp_path, abstract=True)
    assert address is not None
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listener:
        listener.bind(address.name)
        listener.listen(0)
        queued = []
        while True:  # fill it: the kernel says EAGAIN when it is full
            probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            probe.setblocking(False)
            queued.append(probe)
            try:
                probe.connect(address.name)
            except BlockingIOError:
                break
            assert len(queued) < 100, "the backlog never filled"
        waiting = asyncio.ensure_future(dial(address, timeout=60))
        await asyncio.sleep(0)  # let it try (and find the backlog full) before a place frees: order, not time
        assert not waiting.done()
        conn, _ = listener.accept()
        dialed = await asyncio.wait_for(waiting, 60)
        assert dialed is not None and dialed.uid == os.getuid()
        dialed.close()
        conn.close()
        for probe in queued:
            probe.close()
