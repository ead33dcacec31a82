"""Refusals read the same in every agent tool (found on a new user's pass): `accept` of a name that is no row's
answered `is_error: false` while `row` refused the same name with `is_error: true`. A refused row now makes
`accept`'s answer an error too — the rows it could write are still written and named — and a row the
evaluator compares only in part is explained by what the evaluator compares (the rest listed as ignored)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers.agent import copy_example, mcp_session, text_of
from helpers.cli import invoke_workbench
from helpers.project import COMMAND_CONFIG, EXACT, eval_set, evaluator, make_project, row

from workbench.agent.queries import row_answer
from workbench.config import load_config

BOUNDARY = "score 50 passes (boundary)"
SET_FILE = Path("evals/default/eval-sets/grading.json")


@pytest.mark.process("the MCP server on stdio, started as a coding agent starts it")
async def test_accept_and_row_refuse_a_name_that_is_no_rows_alike(tmp_path: Path) -> None:
    root = copy_example("grading", tmp_path)
    async with mcp_session(root) as session:
        await session.call_tool("run", {})
        before = (root / SET_FILE).read_bytes()
        row = await session.call_tool("row", {"name": "no such row"})
        accept = await session.call_tool("accept", {"rows": ["no such row"]})
        assert row.is_error and accept.is_error, (text_of(row), text_of(accept))
        assert "no row 'no such row'" in text_of(row) and "no row 'no such row'" in text_of(accept)
        assert "no row 'no such row'" in row.structured_content["error"]
        assert "no row 'no such row'" in accept.structured_content["error"]
        assert (root / SET_FILE).read_bytes() == before

        mixed = await session.call_tool("accept", {"rows": [BOUNDARY, "no such row"]})
        assert mixed.is_error
        written, refused = mixed.structured_content["accepted"]
        assert written["written"] and not refused["written"] and "no row" in refused["refused"]
        assert text_of(mixed).splitlines()[0] == "refused 1 of 2 rows; wrote 1 row"
        assert json.loads((root / SET_FILE).read_text()) != json.loads(before)  # the good row was still written


def test_row_says_only_what_the_evaluator_compares_and_lists_the_rest_as_ignored(tmp_path: Path) -> None:
    """targetOutputKey = "details.band": `row` listed `notes` and `details.raw` as "not in expectedOutput", as if
    they were why the row failed; the evaluator never looks at them."""
    output = {"details": {"band": "fail", "raw": 50}, "notes": "x"}
    root = make_project(tmp_path / "p", config=COMMAND_CONFIG, evaluators={EXACT: evaluator("details.band")},
                        sets={"grades": [row("fifty", {"output": output}, {"details": {"band": "pass"}})]})
    assert invoke_workbench("run", str(root)).returncode == 1
    answer = row_answer(load_config(root), "fifty", None, None)
    [part] = answer.structured["evaluators"]
    assert part["differences"] == ['details.band: expected "pass", got "fail"']
    assert part["compares"] == "details.band" and sorted(part["ignored"]) == ["details.raw", "notes"]
    assert "not in expectedOutput" not in answer.text
    assert "ignored, not compared (it compares details.band): " in answer.text


def test_row_lists_what_json_similarity_gives_no_weight_as_ignored(tmp_path: Path) -> None:
    """uipath-json-similarity counts only the expected side's leaves: an extra key in the output is no reason it
    scored low, so `row` lists it as ignored, and the leaf that differs as the difference."""
    output = {"queue": "sales", "extra": [1, 2]}
    root = make_project(tmp_path / "p", config=COMMAND_CONFIG,
                        evaluators={"similar": evaluator("*", type_id="uipath-json-similarity")},
                        sets={"t": eval_set([row("r", {"output": output}, {"queue": "billing"}, ref="similar")],
                                            refs=["similar"])})
    assert invoke_workbench("run", str(root)).returncode == 1
    [part] = row_answer(load_config(root), "r", None, None).structured["evaluators"]
    assert part["verdict"] == "FAIL" and part["ignored"] == ["extra"], part
    assert len(part["differences"]) == 1 and part["differences"][0].startswith("queue: expected"), part
