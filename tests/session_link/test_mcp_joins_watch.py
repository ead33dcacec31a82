"""Issue 23's must-show through the agent's real path: `watch --plain` runs, a target counts its
invocations, an expectation is edited, and `workbench mcp`'s `run` (through the MCP SDK's stdio client)
answers from the watch session with 0 extra target runs while `watch` prints that the agent asked."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from helpers.agent import mcp_session, text_of
from helpers.cli import closing_fixture
from helpers.session_link import Counted, WatchPlain

pytestmark = pytest.mark.process("a live watch session and the MCP server, each a process of its own")

pytest.importorskip("mcp")

watch = closing_fixture(WatchPlain)


async def test_the_agents_run_after_an_edit_is_the_watch_sessions_iteration(tmp_path: Path, watch) -> None:
    project = Counted(tmp_path)
    session = watch(project.root)
    await asyncio.to_thread(session.expect, r"^iteration 1 \(start\): 2/2 rows pass")

    project.expect(b="not B")
    async with mcp_session(project.root) as agent:
        result = await agent.call_tool("run", {})
    assert not result.is_error, text_of(result)
    number = result.structured_content["iteration"]
    assert result.structured_content["rows"]["failing"] == 1, text_of(result)
    assert project.count() == 2, "the agent's run ran the target again"
    await asyncio.to_thread(session.expect, rf"^iteration {number} · asked by agent")
