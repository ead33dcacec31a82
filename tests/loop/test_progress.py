"""The watch loop's one line per iteration: what got fixed, what broke, what still fails, and stalls."""

from __future__ import annotations

from pathlib import Path

from helpers.project import make_project, row

from workbench.config import load_config
from workbench.events import IterationReport, Trigger
from workbench.model import Problem, Result, Verdict
from workbench.progress import IterationSummary, LoopTracker, progress_line
from workbench.session import Session


def result(name: str, verdict: str = "PASS", *, evaluator: str = "exact", detail: str = "") -> Result:
    return Result(scope="default", set_file="qa.json", row_id=name, row_name=name, evaluator=evaluator,
                  verdict=Verdict(verdict), score=1.0 if verdict == "PASS" else 0.0, detail=detail, actual=None,
                  expected=None, duration_ms=5.0)


MANUAL = Trigger("manual")


def report(*results: Result, trigger: Trigger = MANUAL, problems: list[Problem] | None = None,
           number: int | None = None) -> IterationReport:
    return IterationReport(trigger=trigger, results=list(results), problems=problems or [], duration_s=0.84,
                           complete=True, number=number)


def line(tracker: LoopTracker, *results: Result, number: int = 1, partial: bool = False, **kwargs: object) -> str:
    return progress_line(tracker.update(report(*results, number=number, **kwargs), partial=partial))  # type: ignore[arg-type]


def test_the_first_iteration_shows_the_count_and_the_first_failing_row_with_its_reason() -> None:
    text = line(LoopTracker(), result("85 passes"), result("unpaid invoice", "FAIL",
                                                          detail='status: expected "unpaid", got "paid"\nmore'))
    assert text == ("iteration 1 (re-run): 1/2 rows pass in 0.8s — still failing: 'unpaid invoice' "
                    "(status: expected \"unpaid\", got \"paid\")")


def test_a_fix_shows_the_gain_and_names_the_fixed_row() -> None:
    tracker = LoopTracker()
    line(tracker, result("a", "FAIL", detail="x"), result("b", "FAIL", detail="why b"))
    text = line(tracker, result("a"), result("b", "FAIL", detail="why b"), number=2,
                trigger=Trigger("change", ("grade.py",)))
    assert text == ("iteration 2 (changed grade.py): 1/2 rows pass (+1) in 0.8s — fixed: 'a' — "
                    "still failing: 'b' (why b)")


def test_a_row_that_breaks_is_named_newly_failing_not_still_failing() -> None:
    tracker = LoopTracker()
    line(tracker, result("a"), result("b"))
    text = line(tracker, result("a"), result("b", "ERROR", detail="the target exited with code 1"), number=2)
    assert "1/2 rows pass (-1)" in text
    assert "newly failing: 'b'" in text
    assert "still failing" not in text


def test_an_error_row_reason_says_error() -> None:
    text = line(LoopTracker(), result("a", "ERROR", detail="the target timed out after 5s"))
    assert "still failing: 'a' (ERROR: the target timed out after 5s)" in text


def test_a_row_passes_only_when_every_evaluator_on_it_passes() -> None:
    text = line(LoopTracker(), result("a", evaluator="one"), result("a", "FAIL", evaluator="two", detail="no"))
    assert "0/1 rows pass" in text and "still failing: 'a' (no)" in text


def test_long_lists_are_shortened() -> None:
    tracker = LoopTracker()
    names = [f"row {i}" for i in range(6)]
    line(tracker, *(result(n, "FAIL", detail="d") for n in names))
    text = line(tracker, *(result(n) for n in names[:5]), result("row 5", "FAIL", detail="d"),
                result("row 6", "FAIL", detail="d"), result("row 7", "FAIL", detail="d"), number=2)
    assert "fixed: 'row 0'; 'row 1'; 'row 2' (+2 more)" in text
    assert "still failing: 'row 5' (d) (+2 more)" in text


def test_all_green_and_file_problems_are_said() -> None:
    assert line(LoopTracker(), result("a")).endswith("1/1 rows pass in 0.8s — all green")
    problem = Problem("evals/default/eval-sets/qa.json", "not valid JSON", "error")
    text = line(LoopTracker(), result("a"), problems=[problem])
    assert "problem: evals/default/eval-sets/qa.json: not valid JSON" in text and "all green" not in text
    text = line(LoopTracker(), result("a"), problems=[problem, problem])
    assert "(+1 more file problem)" in text


def test_the_changed_files_are_named_and_long_lists_shortened() -> None:
    files = ("a.py", "b.py", "evals/default/eval-sets/qa.json", "c.py", "d.py")
    text = line(LoopTracker(), result("a"), trigger=Trigger("change", files))
    assert text.startswith("iteration 1 (changed a.py, b.py, evals/default/eval-sets/qa.json and 2 more): ")


def test_stalled_after_the_configured_number_of_iterations_without_more_passes() -> None:
    tracker = LoopTracker(stall_after=3)
    failing = (result("a"), result("b", "FAIL", detail="d"))
    lines = [line(tracker, *failing, number=n) for n in range(1, 6)]
    assert ["stalled" in text for text in lines] == [False, False, False, True, True]
    assert lines[3].endswith("stalled: no improvement in passes for 3 iterations")
    assert lines[4].endswith("stalled: no improvement in passes for 4 iterations")
    # One more pass ends the stall.
    assert "stalled" not in line(tracker, result("a"), result("b"), number=6)


def test_an_iteration_that_improves_ends_the_stall_even_below_the_best_count() -> None:
    tracker = LoopTracker(stall_after=1)
    line(tracker, result("a"), result("b", "FAIL", detail="d"))
    dropped = line(tracker, result("a", "FAIL", detail="d"), result("b", "FAIL", detail="d"), number=2)
    assert "stalled: no improvement in passes for 1 iteration" in dropped
    text = line(tracker, result("a"), result("b", "FAIL", detail="d"), number=3)
    assert "(+1)" in text and "fixed: 'a'" in text and "stalled" not in text
    # Staying at that count is no improvement again.
    assert "stalled: no improvement in passes for 1 iteration" in line(
        tracker, result("a"), result("b", "FAIL", detail="d"), number=4)


def test_all_green_is_never_stalled() -> None:
    tracker = LoopTracker(stall_after=1)
    for number in range(1, 4):
        assert "stalled" not in line(tracker, result("a"), number=number)


def test_a_partial_rerun_says_so_and_does_not_count_towards_a_stall() -> None:
    tracker = LoopTracker(stall_after=1)
    line(tracker, result("a", "FAIL", detail="d"), result("b", "FAIL", detail="d"))
    text = line(tracker, result("a"), number=2, partial=True)
    assert "1/1 re-run rows pass" in text and "fixed: 'a'" in text and "stalled" not in text
    # The partial run's pass is remembered: the next full run does not call 'a' fixed again.
    summary = tracker.update(report(result("a"), result("b", "FAIL", detail="d"), number=3))
    assert summary.fixed == [] and summary.change == 0


def test_summary_numbers() -> None:
    summary = LoopTracker().update(report(result("a"), result("b", "FAIL", detail="d")))
    assert isinstance(summary, IterationSummary)
    assert (summary.rows_passed, summary.rows_total, summary.change) == (1, 2, None)


async def test_a_new_session_remembers_the_last_iteration_so_the_first_fix_after_a_restart_is_named(
        tmp_path: Path) -> None:
    root = make_project(tmp_path, sets={"qa": [row("question a", {"q": "a"}, {"answer": "A"})]},
                        config={"kind": "command", "command": ["{python}", "target.py"], "timeout": 30},
                        files={"target.py": "import json; print(json.dumps({'answer': 'wrong'}))\n"})
    session = Session(load_config(root))
    try:
        await session.iterate_now(Trigger("manual"))
    finally:
        await session.aclose()
    (root / "target.py").write_text("import json; print(json.dumps({'answer': 'A'}))\n", encoding="utf-8")
    summaries: list[IterationSummary] = []
    session = Session(load_config(root), on_iteration=lambda _report, summary: summaries.append(summary))
    try:
        await session.iterate_now(Trigger("manual"))
    finally:
        await session.aclose()
    assert progress_line(summaries[0]).startswith("iteration 2 (re-run): 1/1 rows pass (+1) in ")
    assert "fixed: 'question a'" in progress_line(summaries[0])
