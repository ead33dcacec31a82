"""The session link against another local user (issue 32, points 5 and 6), with a real second user made for
the module (skipped, with the reason, when not root): a name they bind first is said to be theirs and the link
moves to the socket file in `.workbench`, where the client finds it; their listener is never asked; a flood of
their connections is closed unread at accept while this user's requests are all answered by the session."""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

import pytest
from helpers.other_user import FLOODER, SQUATTER, OtherUser, other_user
from helpers.session_link import Counted, linked_session

from workbench.config import load_config
from workbench.events import Trigger, TriggerKind
from workbench.session import Session
from workbench.session_link import LinkServer, ask_live_session
from workbench.session_link.address import LinkAddress, check_state_folder, link_address

__all__ = ["other_user"]  # the fixture, imported to be used here

REQUESTS_UNDER_FLOOD = 10
SERVED_BY_OTHER = "agent requests are served by the other workbench session open on this project"


def primary(root: Path) -> LinkAddress:
    address = link_address(root)
    assert address is not None and isinstance(address.name, bytes)
    return address


async def second_server_notices(root: Path) -> list[str]:
    """What a second session of this user on `root` says when it starts (it must not serve)."""
    session = Session(load_config(root))
    notices: list[str] = []
    server = LinkServer(session, on_notice=notices.append)
    try:
        assert not await server.start()
    finally:
        await server.aclose()
        await session.aclose()
    return notices


async def test_a_name_another_user_holds_is_said_and_the_link_moves_to_the_state_folder(
        tmp_path: Path, other_user: OtherUser) -> None:
    project = Counted(tmp_path, name="p")  # the fallback socket file's path must fit in sun_path
    name = primary(project.root)
    squatter = other_user.start(SQUATTER, bytes(name.name).hex())
    squatter.expect("bound")
    notices: list[str] = []
    async with linked_session(project.root, on_notice=notices.append) as (session, server, asked):
        fallback = project.root / ".workbench" / "session.sock"
        assert notices == [f"the session name {name.shown} is held by another user's process (uid {other_user.uid}):"
                           f" agent requests are served at {fallback} instead"]
        assert server.address is not None and server.address.name == str(fallback)
        info = os.lstat(fallback)
        assert stat.S_ISSOCK(info.st_mode) and stat.S_IMODE(info.st_mode) == 0o600

        await session.request(Trigger(TriggerKind.START))
        linked = await ask_live_session(project.root)  # at the file (the name, theirs, is not even tried)
        assert linked is not None and linked.how == "recorded" and [a.number for a in asked] == [linked.number]
        assert project.count() == 2  # the start iteration's two rows; the answer ran nothing

        squatter.finish()  # the name is free again: the session is still found at the file
        again = await ask_live_session(project.root)
        assert again is not None and again.number == linked.number
        assert await second_server_notices(project.root) == [SERVED_BY_OTHER]  # not a second one on the free name
    assert not fallback.exists()  # removed when the session closed


async def test_another_users_listener_is_never_asked(tmp_path: Path, other_user: OtherUser,
                                                      caplog: pytest.LogCaptureFixture) -> None:
    """No session of ours anywhere, their process on the name: the client runs by itself (None), and says why."""
    project = Counted(tmp_path)
    squatter = other_user.start(SQUATTER, bytes(primary(project.root).name).hex())
    squatter.expect("bound")
    with caplog.at_level(logging.WARNING, logger="workbench.session_link"):
        assert await ask_live_session(project.root) is None
    assert f"(uid {other_user.uid}): not asking it" in caplog.text
    squatter.finish()


async def test_a_flood_from_another_user_is_dropped_and_every_request_is_answered(
        tmp_path: Path, other_user: OtherUser) -> None:
    project = Counted(tmp_path)
    notices: list[str] = []
    async with linked_session(project.root, on_notice=notices.append) as (session, server, asked):
        await session.request(Trigger(TriggerKind.START))
        name = bytes(primary(project.root).name).hex()
        flooders = [other_user.start(FLOODER, name, "32", "20000000") for _ in range(2)]  # hang guard: 20M
        for flooder in flooders:
            flooder.expect("flooding")
        answers = [await ask_live_session(project.root) for _ in range(REQUESTS_UNDER_FLOOD)]
        running = [flooder.proc.poll() is None for flooder in flooders]
        counts = [flooder.finish() for flooder in flooders]

    assert running == [True, True], f"a flood ended before the requests did: {counts}"  # they overlapped
    assert all(answer is not None and answer.how == "recorded" for answer in answers), answers
    assert len(asked) == REQUESTS_UNDER_FLOOD  # each answered by the session, none left to run by itself
    assert project.count() == 2  # only the start iteration ran its rows
    connected = sum(int(count.split()[0]) for count in counts)
    assert server.refused >= 2 and connected >= 2 * 32, counts  # the flood did reach it, and was closed unread
    assert notices == [f"agent requests: refused a connection from another user's process (uid {other_user.uid})"]


async def test_no_fallback_in_a_state_folder_another_user_owns(tmp_path: Path, other_user: OtherUser) -> None:
    """A `.workbench` of another user's, open to all: workbench can't make it private (it tightens only its own;
    one of its own left 0777 by an older version is made 0700 on first use: tests/hardening/test_state_modes.py),
    so that user could put a socket where the session's should be: no fallback there."""
    project = Counted(tmp_path, name="p")
    name = primary(project.root)
    squatter = other_user.start(SQUATTER, bytes(name.name).hex())
    squatter.expect("bound")
    (project.root / ".workbench").mkdir(exist_ok=True)
    (project.root / ".workbench").chmod(0o777)
    os.chown(project.root / ".workbench", other_user.uid, -1)
    notices = await second_server_notices(project.root)
    fallback = project.root / ".workbench" / "session.sock"
    assert len(notices) == 1 and notices[0].startswith(
        f"the session name {name.shown} is held by another user's process (uid {other_user.uid}), and agent "
        f"requests can't be served at {fallback}: {fallback.parent} belongs to another user (uid {other_user.uid})")
    assert not fallback.exists()
    squatter.finish()


def test_a_state_folder_other_users_may_write_is_no_fallback(tmp_path: Path) -> None:
    """Another user who may write to `.workbench` could put their socket where the session's should be."""
    folder = tmp_path / ".workbench"
    folder.mkdir()
    folder.chmod(0o777)
    with pytest.raises(OSError, match=r"can be written by other users \(mode 0777\).*chmod 700"):
        check_state_folder(folder)
    folder.chmod(0o700)
    check_state_folder(folder)
