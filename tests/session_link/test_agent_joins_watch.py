"""Issue 23's "one loop, two drivers", end to end: `workbench watch --plain` runs in its own interpreter,
a target counts its invocations, and an agent's request (`session_link.ask_live_session`, as
`workbench mcp` makes it) after an eval-file edit is answered by the watch session's iteration with no
extra target run, and `watch` prints that the agent asked. Killing the session leaves the agent to run
by itself (None, at once). `run --reuse` right after a watch iteration re-scores every row, though it
is started from another folder than watch was."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers.cli import closing_fixture
from helpers.session_link import Counted, WatchPlain, shell_env

from workbench.config import load_config
from workbench.history import HistoryStore
from workbench.session_link import ask_live_session, protocol

pytestmark = pytest.mark.process("a live watch session in another process, which this process's runs and agent join")

watch = closing_fixture(WatchPlain)


def triggers(root: Path) -> dict[int, str]:
    with HistoryStore.open(load_config(root)) as store:
        return {info.number: str(info.trigger.kind) for info in store.iterations()}


def passing(root: Path, number: int) -> dict[str, str]:
    with HistoryStore.open(load_config(root)) as store:
        return {result.row_name: result.verdict.value for result in store.results(number)}


async def test_an_agent_request_after_an_eval_edit_runs_no_target_and_watch_says_the_agent_asked(
        tmp_path: Path, watch) -> None:
    project = Counted(tmp_path)
    session = watch(project.root)
    await asyncio.to_thread(session.expect, r"^iteration 1 \(start\): 2/2 rows pass")
    assert project.count() == 2

    project.expect(b="not B")  # the person (or the agent) edits an expectation
    progress: list[tuple[int, int]] = []
    linked = await ask_live_session(project.root, asked_by="agent", on_progress=lambda d, t: progress.append((d, t)))

    assert linked is not None
    assert project.count() == 2, "the agent's request ran the target again"
    assert passing(project.root, linked.number) == {"question a": "PASS", "question b": "FAIL"}
    line = await asyncio.to_thread(session.expect, rf"^iteration {linked.number} · asked by agent")
    assert linked.how in ("joined", "recorded", "ran"), line
    # The session's answer is in its history: the start iteration, then what answered the agent.
    assert triggers(project.root)[linked.number] in ("change", "agent")

    again = await ask_live_session(project.root)  # nothing changed since: an iteration that holds, nothing runs
    assert again is not None and again.how in ("recorded", "joined") and again.number >= linked.number
    assert project.count() == 2


async def test_a_killed_session_leaves_the_agent_to_run_by_itself_at_once(tmp_path: Path, watch) -> None:
    project = Counted(tmp_path)
    session = watch(project.root)
    await asyncio.to_thread(session.expect, r"^iteration 1 \(start\)")
    assert await ask_live_session(project.root) is not None

    session.kill()  # kill -9: no goodbye, no cleanup
    started = time.monotonic()
    assert await ask_live_session(project.root) is None
    assert time.monotonic() - started < protocol.STALL_S / 2, "the client waited for a dead session"


def test_run_reuse_right_after_a_watch_iteration_re_scores_every_row(tmp_path: Path, watch) -> None:
    """The watch session started in the project folder, `run --reuse` from another one: what differs is
    the folder each was started in (PWD), which no target sees — it runs in the project either way."""
    project = Counted(tmp_path, "abc")
    session = watch(project.root, cwd=project.root)
    session.expect(r"^iteration 1 \(start\): 3/3 rows pass")
    assert project.count() == 3

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    proc = subprocess.run([sys.executable, "-m", "workbench", "run", str(project.root), "--reuse", "--json",
                           "--explain-reuse"], env=shell_env(elsewhere), cwd=elsewhere, capture_output=True,
                          text=True, timeout=120)
    doc = json.loads(proc.stdout)
    assert [(r["row_name"], r["verdict"], r.get("reused", False)) for r in doc["results"]] == [
        ("question a", "PASS", True), ("question b", "PASS", True), ("question c", "PASS", True)], doc.get("reuse")
    assert project.count() == 3, "run --reuse ran the target again"
