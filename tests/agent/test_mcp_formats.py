"""`run` through `workbench mcp` on the other example formats: each failing row carries its format's compact
account — a conversation's failing turn and assertion, a scripted replay's step — and `accept` names why a
format has no expectation to write (issue 23)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.agent import copy_example, mcp_session, text_of
from helpers.project import COMMAND_CONFIG, EXACT, evaluator, make_project, row

pytestmark = pytest.mark.process("the MCP server on stdio, started as a coding agent starts it")


async def test_a_conversation_digest_names_the_turn_and_the_assertion(tmp_path: Path) -> None:
    root = copy_example("support-bot", tmp_path)
    async with mcp_session(root) as session:
        digest = (await session.call_tool("run", {})).structured_content
        [failing] = digest["failing"]
        assert failing["row"] == "order-refund"
        [failure] = failing["failures"]
        assert "turn 2" in failure["digest"] and "issueRefund was not called" in failure["digest"]
        refused = await session.call_tool("accept", {"rows": ["order-refund"]})
        [outcome] = refused.structured_content["accepted"]
        assert not outcome["written"] and "order-refund" in outcome["refused"]
        row = await session.call_tool("row", {"name": "order-refund"})
        assert not row.is_error and row.structured_content["evaluators"][0]["verdict"] == "FAIL"


async def test_a_replay_digest_names_the_step(tmp_path: Path) -> None:
    root = copy_example("refund-agent", tmp_path)
    async with mcp_session(root) as session:
        result = await session.call_tool("run", {})
    [failing] = result.structured_content["failing"]
    assert failing["row"] == "refund-typo" and failing["set"] == "scripts"
    assert "script[0] (tool.call issue_refund)" in failing["failures"][0]["digest"]
    assert "refund-typo" in text_of(result) and 'next: row("refund-typo")' in text_of(result)


async def test_row_carries_what_check_says_about_the_row(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p", sets={"math": [row("two", {"output": {"sum": 2}}, {"Sum": 2})]},
                        evaluators={EXACT: evaluator("sum")}, config=COMMAND_CONFIG)
    async with mcp_session(root) as session:
        await session.call_tool("run", {})
        detail = (await session.call_tool("row", {"name": "two"})).structured_content
    assert any('"Sum" — did you mean "sum"?' in warning for warning in detail["warnings"]), detail["warnings"]
