"""How a live session answers a request, in-process (a Session and its LinkServer on the test's loop, the
client over the real socket): join the running iteration, answer with the last one when it is proven to
hold, else run one with trigger `agent`; give up on an agent iteration nobody waits for, never on the
person's; decline what it can't answer faithfully."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from helpers.checks import process_alive
from helpers.session_link import WAIT_S, Counted, linked_session

from workbench.config import load_config
from workbench.events import Trigger, TriggerKind
from workbench.history import HistoryStore
from workbench.rescoring import RowFilter
from workbench.session import Session
from workbench.session_link import LinkServer, ask_live_session


def kinds(root: Path) -> list[str]:
    with HistoryStore.open(load_config(root)) as store:
        return [str(info.trigger.kind) for info in store.iterations()]


async def test_a_request_while_an_iteration_runs_joins_it_and_streams_its_progress(tmp_path: Path) -> None:
    project = Counted(tmp_path, "ab", gated=True)
    async with linked_session(project.root) as (session, _server, asked):
        running = session.request(Trigger(TriggerKind.MANUAL))
        await project.until_called(2)  # both rows are at their gate

        progress: list[tuple[int, int]] = []
        joined = asyncio.Event()

        def seen(done: int, total: int) -> None:
            progress.append((done, total))
            joined.set()

        ask = asyncio.ensure_future(ask_live_session(project.root, on_progress=seen))
        await asyncio.wait_for(joined.wait(), WAIT_S)  # the session sends where it is as soon as it joins
        project.open_gate("a")
        project.open_gate("b")
        linked = await asyncio.wait_for(ask, WAIT_S)
        report = await running

    assert linked is not None and report is not None
    assert (linked.number, linked.how, linked.rows) == (report.number, "joined", 2)
    assert progress[0] == (0, 2) and progress[-1][1] == 2
    assert project.count() == 2, "joining ran the target again"
    assert [a.line() for a in asked] == [f"iteration {report.number} · asked by agent (joined it while it ran)"]
    assert kinds(project.root) == ["manual"]


async def test_with_nothing_running_the_last_iteration_answers_when_it_still_holds(tmp_path: Path) -> None:
    project = Counted(tmp_path)
    async with linked_session(project.root) as (session, _server, asked):
        first = await session.request(Trigger(TriggerKind.START))
        linked = await ask_live_session(project.root, RowFilter(rows=("question a",)))
    assert first is not None and linked is not None
    assert (linked.number, linked.how) == (first.number, "recorded")
    assert project.count() == 2 and kinds(project.root) == ["start"]
    assert asked[0].line() == f"iteration {first.number} · asked by agent (its results still hold: nothing ran again)"


async def test_after_an_eval_edit_the_session_runs_an_agent_iteration_that_re_scores(tmp_path: Path) -> None:
    """No watcher here, so nothing else will pick the edit up: the session runs an iteration for the agent
    (trigger `agent`, in history) — re-scoring, since only an eval file changed."""
    project = Counted(tmp_path)
    async with linked_session(project.root) as (session, _server, asked):
        await session.request(Trigger(TriggerKind.START))
        project.expect(a="not A")
        linked = await ask_live_session(project.root)
        report = session.last_report
    assert linked is not None and report is not None
    assert (linked.number, linked.how) == (report.number, "ran")
    assert report.trigger == Trigger(TriggerKind.AGENT) and report.reused_rows == 2
    assert project.count() == 2
    assert kinds(project.root) == ["start", "agent"]
    assert asked[0].line() == f"iteration {report.number} · asked by agent"


async def test_after_a_target_edit_the_agent_iteration_runs_the_rows(tmp_path: Path) -> None:
    project = Counted(tmp_path)
    async with linked_session(project.root) as (session, _server, _asked):
        await session.request(Trigger(TriggerKind.START))
        target = project.root / "target.py"
        target.write_text(target.read_text() + "\n# edited\n", encoding="utf-8")
        linked = await ask_live_session(project.root)
    assert linked is not None and linked.how == "ran"
    assert project.count() == 4  # what the target is changed: every row runs once more, once


async def test_an_agent_iteration_nobody_waits_for_any_more_is_cancelled_and_its_targets_killed(
        tmp_path: Path) -> None:
    project = Counted(tmp_path, "ab", gated=True)
    async with linked_session(project.root) as (session, _server, _asked):
        ask = asyncio.ensure_future(ask_live_session(project.root))
        await project.until_called(2)
        assert session.pending is not None
        ask.cancel()  # the agent cancelled its request
        assert await session.wait_idle() is None  # the iteration was cancelled, not finished
        deadline = time.monotonic() + WAIT_S
        while any(process_alive(pid) for pid in project.pids()):
            assert time.monotonic() < deadline, "the cancelled iteration's targets still run"
            await asyncio.sleep(0.02)
    assert kinds(project.root) == []


async def test_the_persons_iteration_goes_on_when_the_agent_stops_waiting(tmp_path: Path) -> None:
    project = Counted(tmp_path, "ab", gated=True)
    async with linked_session(project.root) as (session, _server, _asked):
        running = session.request(Trigger(TriggerKind.START))
        await project.until_called(2)
        joined = asyncio.Event()
        ask = asyncio.ensure_future(ask_live_session(project.root, on_progress=lambda _d, _t: joined.set()))
        await asyncio.wait_for(joined.wait(), WAIT_S)
        ask.cancel()
        project.open_gate("a")
        project.open_gate("b")
        report = await running
    assert report is not None and report.complete
    assert kinds(project.root) == ["start"]


async def test_a_session_narrowed_by_tag_declines_a_request_for_every_row(tmp_path: Path) -> None:
    project = Counted(tmp_path)
    config = load_config(project.root)
    config.overrides.tags = ("smoke",)
    session = Session(config)
    server = LinkServer(session)
    try:
        assert await server.start()
        assert await ask_live_session(project.root) is None
        assert await ask_live_session(project.root, RowFilter(rows=("no such row",))) is None
    finally:
        await server.aclose()
        await session.aclose()
    assert project.count() == 0


async def test_a_session_without_history_does_not_listen(tmp_path: Path) -> None:
    project = Counted(tmp_path)
    session = Session(load_config(project.root), record=False)
    server = LinkServer(session)
    try:
        assert not await server.start()
        assert await ask_live_session(project.root) is None
    finally:
        await session.aclose()
