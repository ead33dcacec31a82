"""The guard rails and the safety of `workbench mcp` (issue 23): `[agent] max_iterations` refuses politely,
names in arguments can't reach outside the project and a refused write writes nothing, arguments are
checked against the tools' schemas, `failing_only` / `reuse=false` / `add_row` do what they say, and a
missing `mcp` extra is a clear message."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from helpers.agent import copy_example, mcp_session, text_of
from helpers.checks import tree_digest
from helpers.cli import invoke_workbench

pytestmark = pytest.mark.process("the MCP server on stdio, started as a coding agent starts it")

BOUNDARY = "score 50 passes (boundary)"


async def test_max_iterations_makes_run_refuse_politely(tmp_path: Path) -> None:
    root = copy_example("grading", tmp_path)
    (root / "workbench.toml").write_text((root / "workbench.toml").read_text() + "\n[agent]\nmax_iterations = 2\n")
    async with mcp_session(root) as session:
        for _ in range(2):
            assert not (await session.call_tool("run", {})).is_error
        refused = await session.call_tool("run", {})
        assert refused.is_error
        assert "[agent] max_iterations = 2 reached" in text_of(refused) and "report" in text_of(refused)
        assert len((await session.call_tool("history", {})).structured_content["iterations"]) == 2  # nothing ran
        assert not (await session.call_tool("row", {"name": BOUNDARY})).is_error  # reading is not limited


async def test_names_in_arguments_never_reach_outside_the_project(tmp_path: Path) -> None:
    root = copy_example("grading", tmp_path / "inside")
    (tmp_path / "outside.json").write_text('{"evaluations": []}\n')
    before_outside = tree_digest(tmp_path / "inside") | {"outside": (tmp_path / "outside.json").read_text()}
    async with mcp_session(root) as session:
        await session.call_tool("run", {})
        evals_before = tree_digest(root / "evals")
        attempts = [
            ("run", {"sets": ["../../outside"]}, "nothing matches eval set '../../outside'"),
            ("row", {"name": BOUNDARY, "set": "../../../outside"}, "no eval set '../../../outside'"),
            ("accept", {"rows": [BOUNDARY], "set": str(tmp_path / "outside")}, "no eval set"),
            ("accept", {"rows": ["../../outside.json"]}, "no row '../../outside.json'"),
            ("add_row", {"set": "../../outside", "name": "x", "inputs": {"score": 1}}, "no eval set '../../outside'"),
            ("run", {"sets": "grading"}, "is not of type 'array'"),
            ("row", {"name": BOUNDARY, "path": "/etc/passwd"}, "Additional properties are not allowed"),
        ]
        for tool, args, said in attempts:
            result = await session.call_tool(tool, args)
            shown = text_of(result)
            assert said in shown, (tool, shown)
            assert result.is_error or not any(o.get("written") for o in result.structured_content.get("accepted", []))
        assert tree_digest(root / "evals") == evals_before
    assert (tmp_path / "outside.json").read_text() == before_outside["outside"]
    assert not (tmp_path / ".workbench").exists() and not (tmp_path / "inside" / ".workbench").exists()


async def test_failing_only_reuse_false_and_add_row(tmp_path: Path) -> None:
    root = copy_example("grading", tmp_path)
    async with mcp_session(root) as session:
        refused = await session.call_tool("run", {"failing_only": True})
        assert refused.is_error and "nothing has run yet" in text_of(refused)
        await session.call_tool("run", {})
        only = (await session.call_tool("run", {"failing_only": True})).structured_content
        assert only["rows"]["total"] == 1 and only["failing"][0]["row"] == BOUNDARY
        again = (await session.call_tool("run", {"reuse": False})).structured_content
        assert again["ran_rows"] == 5 and again["rescored_rows"] == 0
        warm = (await session.call_tool("run", {})).structured_content
        assert warm["rescored_rows"] == 5 and warm["ran_rows"] == 0

        added = await session.call_tool("add_row", {"set": "bands", "name": "score 60 passes",
                                                     "inputs": {"score": 60}})
        assert not added.is_error, text_of(added)
        doc = added.structured_content
        assert doc["output"]["details"]["band"] == "pass" and "+" in doc["diff"] and "score 60 passes" in doc["diff"]
        written = json.loads((root / "evals/default/eval-sets/bands.json").read_text())
        assert written["evaluations"][-1]["name"] == "score 60 passes"
        assert written["evaluations"][-1]["id"] == doc["row_id"]
        taken = await session.call_tool("add_row", {"set": "bands", "name": "score 60 passes", "inputs": {"score": 6}})
        assert taken.is_error and "already has a row named 'score 60 passes'" in text_of(taken)
        after = (await session.call_tool("run", {})).structured_content
        assert after["rows"]["total"] == 6


def test_a_missing_mcp_extra_says_how_to_install_it(tmp_path: Path, monkeypatch) -> None:
    root = copy_example("grading", tmp_path)
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "mcp" else real(name, *a))
    result = invoke_workbench("mcp", str(root))
    assert result.returncode == 1
    assert "pip install 'workbench-evals[mcp]'" in result.stderr and "pip install -e '.[mcp]'" in result.stderr
    assert result.stdout == ""


async def test_failing_only_remembers_rows_a_narrower_run_left_out(tmp_path: Path) -> None:
    root = copy_example("grading", tmp_path)
    bands = root / "evals/default/eval-sets/bands.json"
    bands.write_text(bands.read_text().replace('"merit"', '"MERIT"', 1))
    async with mcp_session(root) as session:
        first = (await session.call_tool("run", {})).structured_content
        assert {row["row"] for row in first["failing"]} == {BOUNDARY, "score 72 is a merit"}
        narrow = (await session.call_tool("run", {"failing_only": True, "sets": ["grading"]})).structured_content
        assert [row["row"] for row in narrow["failing"]] == [BOUNDARY] and narrow["rows"]["total"] == 1
        both = (await session.call_tool("run", {"failing_only": True})).structured_content
        assert both["rows"]["total"] == 2  # the bands row, left out of the narrower run, is still failing
