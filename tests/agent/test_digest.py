"""The agent digest (issue 23): bounded whatever the project (at most 20 rows, the text at most about 4 KB,
the rest counted with how to see more), failing rows first with ERRORs before FAILs, flips against the
previous iteration, the loop's stall and iterations since the last green, and `run --brief`."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from helpers.agent import copy_example
from helpers.cli import invoke_workbench

from workbench.agent.digest import MAX_ROWS, TEXT_BUDGET, build_digest
from workbench.agent.loop_status import loop_status
from workbench.events import Trigger, TriggerKind
from workbench.history import IterationInfo
from workbench.model import Problem, Result, Verdict


def result(index: int, verdict: Verdict = Verdict.FAIL, detail: str | None = None) -> Result:
    why = detail if detail is not None else f"details.band: expected \"pass\", got \"fail {index}\" {'x' * 400}"
    return Result("default", "big.json", f"row-{index}", f"row number {index}", "exact", verdict,
                  1.0 if verdict is Verdict.PASS else 0.0, why)


def test_two_hundred_failing_rows_stay_within_the_budget() -> None:
    results = [result(i) for i in range(200)]
    digest = build_digest(results, None, iteration=7)
    text = digest.text()
    assert len(text.encode()) <= TEXT_BUDGET
    assert len(digest.failing) == MAX_ROWS and digest.failing_total == 200
    shown = sum(1 for line in text.splitlines() if line.startswith("FAIL "))
    assert 1 <= shown <= MAX_ROWS
    assert f"… {200 - shown} more failing rows not shown: row(name, set)" in text
    assert 'next: row("row number 0")' in text
    assert len(digest.to_json()["failing"]) == MAX_ROWS


def test_errors_come_first_and_passing_rows_are_only_counted() -> None:
    results = [result(0, Verdict.PASS, ""), result(1), result(2, Verdict.ERROR, "the target exited with 3"),
               result(3, Verdict.PASS, "")]
    digest = build_digest(results, None, iteration=1)
    assert [row.row for row in digest.failing] == ["row number 2", "row number 1"]
    assert (digest.rows_passing, digest.rows_failing, digest.rows_erroring) == (2, 1, 1)
    assert "row number 0" not in digest.text()


def test_flips_name_the_rows_fixed_and_newly_failing() -> None:
    before = [result(0), result(1, Verdict.PASS, ""), result(2)]
    now = [result(0, Verdict.PASS, ""), result(1), result(2)]
    digest = build_digest(now, None, iteration=5, previous=before, previous_number=4)
    assert digest.flips.fixed == ["row number 0"] and digest.flips.newly_failing == ["row number 1"]
    assert "vs #4: fixed 1: 'row number 0'; newly failing 1: 'row number 1'" in digest.text()


def info(number: int, passed: int, total: int = 4, *, partial: bool = False,
         problems: list[Problem] | None = None) -> IterationInfo:
    now = datetime.now(UTC)
    return IterationInfo(number, now, now, Trigger(TriggerKind.RUN), partial, total, passed, total - passed, 0,
                         total, passed, 0.1, problems or [])


def test_the_loop_status_counts_stalls_and_iterations_since_green() -> None:
    status = loop_status([info(1, 2), info(2, 4), info(3, 3), info(4, 3), info(5, 3, partial=True), info(6, 2)], 3)
    assert status.stalled and status.without_progress == 3
    assert (status.since_green, status.last_green) == (3, 2)
    assert status.describe() == "stalled: no progress in 3 iterations; 3 iterations since the last green (#2)"
    digest = build_digest([result(0)], None, iteration=6, status=status)
    assert digest.next.startswith("stalled — no progress in 3 iterations")
    fresh = loop_status([info(1, 1), info(2, 2)], 3)
    assert not fresh.stalled and fresh.since_green is None
    assert fresh.describe() == "not green in the last 2 recorded full iterations"
    broken = loop_status([info(1, 4, problems=[Problem("evals/x.json", "bad")])], 3)
    assert broken.since_green is None  # every row passing with a broken file is not green


def test_run_brief_prints_the_digest(tmp_path: Path) -> None:
    root = copy_example("grading", tmp_path)
    first = invoke_workbench("run", "--brief", str(root))
    assert first.returncode == 1
    lines = first.stdout.splitlines()
    assert lines[0].startswith("iteration 1 (workbench run): 4/5 rows pass")
    assert lines[1].startswith("FAIL  grading › score 50 passes (boundary) — [exact-match-evaluator] details.band:")
    assert "next: workbench run --set grading --row 'score 50 passes (boundary)' --reuse --json" in first.stdout
    assert not any(line.startswith("PASS") for line in lines)  # no line per result
    grade = root / "grade.py"
    grade.write_text(grade.read_text().replace("if score > 50:", "if score >= 50:"))
    second = invoke_workbench("run", "--brief", str(root))
    assert second.returncode == 0
    assert "vs #1: fixed 1: 'score 50 passes (boundary)'" in second.stdout and "all green" in second.stdout
    both = invoke_workbench("run", "--brief", "--json", str(root))
    assert both.returncode == 2 and "--brief or --json" in both.stderr


def test_the_budget_holds_for_wide_characters_and_many_file_problems() -> None:
    results = [result(i, detail=f"{i} " + "差异 " * 200) for i in range(50)]
    problems = [Problem(f"evals/{'长' * 100}{i}.json", "坏 " * 300) for i in range(10)]
    digest = build_digest(results, None, iteration=3, problems=problems)
    text = digest.text()
    assert len(text.encode()) <= TEXT_BUDGET and text.splitlines()[-1].startswith("next: ")
    assert sum(line.startswith("FAIL ") for line in text.splitlines()) >= 5  # rows before file problems' words
    assert "more failing rows not shown" in text and "… 7 more file problems: check()" in text


def test_rows_failing_the_same_way_are_one_line() -> None:
    crashed = [result(i, Verdict.ERROR, "the target exited with status 1") for i in range(150)]
    digest = build_digest([*crashed, result(150)], None, iteration=2)
    lines = digest.text().splitlines()
    assert lines[1] == ("ERROR 150 rows of big.json the same way ('row number 0', 'row number 1', 'row number 2', …) "
                        "— [exact] the target exited with status 1")
    assert lines[2].startswith("FAIL  big.json › row number 150 — [exact] details.band")
    assert "more failing rows not shown" not in digest.text()  # every row is accounted for in two lines
    [group] = digest.to_json()["same_failure"]
    assert group["count"] == 150 and group["rows"][:2] == ["row number 0", "row number 1"]
