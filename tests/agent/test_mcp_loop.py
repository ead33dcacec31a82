"""`workbench mcp` through the SDK's own client on the grading example: the tools and their schemas, `check`,
a failing `run` whose digest names the row and its first difference, an edit and a `run` that reports the
flip, `row`, `history`, and `accept` writing surgically and returning the diff it wrote (issue 23)."""

from __future__ import annotations

import difflib
import json
from pathlib import Path

import pytest
from helpers.agent import copy_example, mcp_session, text_of

from workbench.agent.loop import AGENT_KIND

pytestmark = pytest.mark.process("the MCP server on stdio, started as a coding agent starts it")

BOUNDARY = "score 50 passes (boundary)"
SET_FILE = Path("evals/default/eval-sets/grading.json")


async def test_tools_are_listed_with_input_schemas(tmp_path: Path) -> None:
    root = copy_example("grading", tmp_path)
    async with mcp_session(root) as session:
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
    assert set(tools) == {"check", "run", "status", "row", "history", "accept", "add_row"}
    for tool in tools.values():
        assert tool.description
        assert tool.input_schema["type"] == "object" and tool.input_schema["additionalProperties"] is False
    assert set(tools["run"].input_schema["properties"]) == {"sets", "rows", "tags", "failing_only", "reuse", "repeat",
                                                           "wait_s"}
    assert tools["accept"].input_schema["required"] == ["rows"]
    assert tools["add_row"].input_schema["required"] == ["set", "name", "inputs"]


async def test_the_loop_check_run_fix_run_row_history(tmp_path: Path) -> None:
    root = copy_example("grading", tmp_path)
    async with mcp_session(root) as session:
        check = await session.call_tool("check", {})
        assert not check.is_error and check.structured_content["passed"] is True
        assert "check passed: 0 errors" in text_of(check)

        first = await session.call_tool("run", {})
        digest = first.structured_content
        assert not first.is_error and digest["complete"] and not digest["green"]
        assert digest["rows"] == {"total": 5, "passing": 4, "failing": 1, "erroring": 0}
        [failing] = digest["failing"]
        assert failing["row"] == BOUNDARY and failing["set"] == "grading"
        [failure] = failing["failures"]
        assert failure["evaluator"] == "exact-match-evaluator"
        assert 'details.band: expected "pass", got "fail"' in failure["digest"]
        text = text_of(first)
        assert BOUNDARY in text and 'details.band: expected "pass", got "fail"' in text
        assert f'next: row("{BOUNDARY}")' in text
        assert digest["loop"]["iterations_since_green"] is None and not digest["loop"]["stalled"]

        grade = root / "grade.py"
        grade.write_text(grade.read_text().replace("if score > 50:", "if score >= 50:"))
        second = await session.call_tool("run", {})
        digest = second.structured_content
        assert digest["green"] and digest["iteration"] == first.structured_content["iteration"] + 1
        assert digest["flips"]["fixed"] == [BOUNDARY] and digest["flips"]["newly_failing"] == []
        assert digest["loop"]["iterations_since_green"] == 0
        assert f"fixed 1: '{BOUNDARY}'" in text_of(second) and "all green" in text_of(second)

        row = await session.call_tool("row", {"name": BOUNDARY, "iteration": first.structured_content["iteration"]})
        detail = row.structured_content
        assert not row.is_error and detail["inputs"] == {"score": 50}
        [evaluator] = detail["evaluators"]
        assert evaluator["verdict"] == "FAIL" and evaluator["actual"]["details"]["band"] == "fail"
        assert evaluator["expected"]["details"]["band"] == "pass"
        assert any("details.band" in line for line in evaluator["differences"])
        assert "details.band" in text_of(row)

        history = await session.call_tool("history", {"last": 5})
        [one, two] = history.structured_content["iterations"]
        assert (one["rows"]["passing"], two["rows"]["passing"]) == (4, 5)
        assert two["flips"]["fixed"] == [BOUNDARY] and two["trigger_kind"] == str(AGENT_KIND)


async def test_accept_writes_the_expectation_surgically_and_returns_the_diff(tmp_path: Path) -> None:
    root = copy_example("grading", tmp_path)
    before = (root / SET_FILE).read_text()
    async with mcp_session(root) as session:
        await session.call_tool("run", {})
        accepted = await session.call_tool("accept", {"rows": [BOUNDARY]})
        assert not accepted.is_error, text_of(accepted)
        [outcome] = accepted.structured_content["accepted"]
        assert outcome["written"] and outcome["file"] == SET_FILE.as_posix()
        after = (root / SET_FILE).read_text()
        written = ["".join(line) for line in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="")
                   if line.startswith(("-", "+")) and not line.startswith(("---", "+++"))]
        # Only the one expectation's line changed, and the diff returned is the change written.
        assert len(written) == 2 and '"band": "pass"' in written[0] and '"band": "fail"' in written[1]
        assert all(line in outcome["diff"] for line in written)
        assert json.loads(after)["evaluations"][0] == json.loads(before)["evaluations"][0]
        rerun = await session.call_tool("run", {})
        assert rerun.structured_content["green"]
        assert rerun.structured_content["rescored_rows"] == 5  # only the expectation changed: nothing ran
        refused = await session.call_tool("accept", {"rows": ["no such row"]})
        [outcome] = refused.structured_content["accepted"]
        assert not outcome["written"] and "no row 'no such row'" in outcome["refused"]
