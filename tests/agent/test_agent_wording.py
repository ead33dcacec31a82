"""The agent's words agree with their numbers as the CLI's do (issue 22 point 11, found by H12 on a new user's
pass): `check`'s tool says `1 set`, like `workbench check`; one more evaluator, one stalled iteration and one
iteration of `[agent] max_iterations` are singular. And what the tools tell an agent is true and usable."""

from __future__ import annotations

import shlex
from dataclasses import replace
from pathlib import Path

from helpers.agent import copy_example
from helpers.cli import invoke_json, invoke_workbench

from workbench.agent.digest import FailingRow, build_digest
from workbench.agent.loop import AgentLoop, AgentRefusal
from workbench.agent.loop_status import LoopStatus
from workbench.agent.queries import check_answer, locate_row, row_answer
from workbench.config import load_config
from workbench.model import Result, Verdict
from workbench.project import load_project


def test_the_check_tool_ends_with_the_line_workbench_check_ends_with(tmp_path: Path) -> None:
    root = copy_example("agent-tools", tmp_path)  # one set, four rows, seven evaluators
    answer = check_answer(load_config(root))
    last = answer.text.splitlines()[-1]
    assert last == "check passed: 0 errors, 0 warnings (1 set, 4 rows, 7 evaluators)"
    assert invoke_workbench("check", str(root)).stdout.splitlines()[-1] == last


def test_one_more_evaluator_and_one_stalled_iteration_are_singular() -> None:
    row = FailingRow("s", "r", "r1", "FAIL", [("a", "x"), ("b", "y"), ("c", "z")])
    assert row.line().endswith("(+1 more evaluator)")
    status = LoopStatus(without_progress=1, stall_after=1, since_green=None, last_green=None, full_iterations=1)
    assert status.describe().startswith("stalled: no progress in 1 iteration;")
    failing = Result("default", "s.json", "r1", "r", "exact", Verdict.FAIL, 0.0, "expected 1, got 2")
    digest = build_digest([failing], None, iteration=1, status=status)
    assert digest.next.startswith("stalled — no progress in 1 iteration;")


def test_row_explains_a_contains_or_classification_failure_by_its_detail_not_a_diff_of_the_whole_output(
        tmp_path: Path) -> None:
    """A `uipath-contains` criterion is no expected output: `row` said `(whole output): expected "billing team"
    (string), got {...} (object)`, which is not why it failed. Its detail is; evaluators that do compare with
    expectedOutput keep their differences."""
    root = copy_example("agent-tools", tmp_path)
    assert invoke_workbench("run", str(root)).returncode == 1
    answer = row_answer(load_config(root), "refund goes to billing", None, None)
    parts = {part["evaluator"]: part for part in answer.structured["evaluators"]}
    for ref in ("reply-mentions-queue", "routing", "ticket-args"):  # contains, classification, tool-call args
        assert "differences" not in parts[ref], parts[ref]
    assert "(whole output)" not in answer.text
    assert 'reply does not contain "billing team"' in answer.text
    assert 'ticket.queue: expected class "billing", got "sales"' in answer.text
    assert any("ticket.queue" in line for line in parts["ticket-similarity"]["differences"])


def test_an_answer_from_the_live_sessions_iteration_says_nothing_ran_again_not_nothing_ran(tmp_path: Path) -> None:
    """The watcher's iteration ran 5 rows and the agent's call none: `nothing ran` beside `5 run` contradicted
    itself; the call ran nothing *again*."""
    root = copy_example("grading", tmp_path)
    assert invoke_workbench("run", str(root)).returncode == 1  # iteration 1: 5 rows run
    digest = AgentLoop(load_config(root), join_live=False).digest_recorded(1, "recorded")
    assert digest.trigger.endswith("the live session's iteration answers for these files: nothing ran again")
    assert "(0 re-scored, 5 run" in digest.text()


def test_run_brief_hints_at_commands_not_mcp_tools(tmp_path: Path) -> None:
    """An agent reading `run --brief` has no `row()` tool: the next hint is a command that shows the row's
    expected, actual and every difference, and it works as printed (re-scored, not run)."""
    root = copy_example("grading", tmp_path)
    brief = invoke_workbench("run", "--brief", str(root))
    [hint] = [line for line in brief.stdout.splitlines() if line.startswith("next: ")]
    assert "row(" not in brief.stdout and "check()" not in brief.stdout
    command = hint.removeprefix("next: ").split(" for the first failing row")[0]
    assert command == "workbench run --set grading --row 'score 50 passes (boundary)' --reuse --json"
    args = [arg for arg in shlex.split(command)[1:] if arg != "--json"]
    _, shown = invoke_json(*args, str(root))
    [result] = shown["results"]
    assert result["reused"] is True and result["expected"]["details"]["band"] == "pass"
    assert result["actual"]["details"]["band"] == "fail"


def test_a_narrowed_run_that_passes_is_not_the_projects_green(tmp_path: Path) -> None:
    """`run(rows=[...])` on one passing row said `all green — stop here and report` with another row still
    failing: an agent stops on that. A narrowed run is green only for its rows, says how many it left out and
    to run them all; `run --brief --row` says the same in commands."""
    root = copy_example("grading", tmp_path)
    project = load_project(root, load_config(root))
    one = Result("default", "grading.json", "pass-85", "score 85 passes with distinction", "exact-match-evaluator",
                 Verdict.PASS, 1.0, "")
    key = next(s.key_of(r) for s in project.sets for r in s.rows if r.name == one.row_name)
    one = replace(one, row_id=key.row_id)
    digest = build_digest([one], project, iteration=3)
    assert not digest.green and digest.to_json()["rows_left_out"] == 4
    assert digest.next.startswith("the selected rows pass, 4 rows of the project not run: run() with no sets")
    assert "all green" not in digest.text() and "stop here" not in digest.text()
    brief = invoke_workbench("run", "--brief", "--row", "score 40 fails", str(root))
    assert brief.returncode == 0 and "all green" not in brief.stdout
    assert "next: the selected rows pass, 4 rows of the project not run: `workbench run` with no --set" in brief.stdout
    everything = build_digest([replace(one, row_id=k.row_id, set_file=k.set_file) for k in
                               (s.key_of(r) for s in project.sets for r in s.rows)], project, iteration=4)
    assert everything.green and everything.next == "all green — stop here and report"


def test_row_with_a_name_cut_short_says_which_row_was_meant(tmp_path: Path) -> None:
    root = copy_example("grading", tmp_path)
    project = load_project(root, load_config(root))
    try:
        locate_row(project, "score 50 passes", None)
    except AgentRefusal as refused:
        assert str(refused) == ("no row 'score 50 passes' in any eval set (did you mean 'score 50 passes (boundary)'? "
                                "give its id or exact name; sets: bands, grading)")
    else:
        raise AssertionError("a name that is no row's was found")
