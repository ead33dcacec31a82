"""`workbench run` output that scales to a real suite (issue 12 point 11): `-q/--quiet` prints what did
not pass and the summary only; a row whose target crashed prints its error once, not once per
evaluator; `--set scope/name` picks one of two same-named sets, as it does in `accept`."""

from __future__ import annotations

from pathlib import Path

from helpers.cli import invoke_json, invoke_workbench
from helpers.project import COMMAND_CONFIG, EXACT, eval_set, evaluator, make_project, row

SECOND = "second-exact"
ROWS = [
    row("passes", {"output": {"grade": "PASS"}}, {"grade": "PASS"}, ref=[EXACT, SECOND]),
    row("fails", {"output": {"grade": "FAIL"}}, {"grade": "PASS"}, ref=[EXACT, SECOND]),
    row("crashes", {"stderr": "KeyError: 'score'", "exit": 3}, {"grade": "PASS"}, ref=[EXACT, SECOND]),
]


def two_evaluator_project(tmp_path: Path) -> Path:
    evaluators = {EXACT: evaluator("*"), SECOND: evaluator("grade")}
    return make_project(tmp_path / "p", config=COMMAND_CONFIG, evaluators=evaluators,
                        sets={"grading": eval_set(ROWS, refs=[EXACT, SECOND])})


def test_quiet_prints_only_what_did_not_pass_and_the_summary(tmp_path: Path) -> None:
    root = two_evaluator_project(tmp_path)
    loud = invoke_workbench("run", str(root))
    quiet = invoke_workbench("run", str(root), "-q")
    assert loud.returncode == quiet.returncode == 1
    assert "PASS  grading.json › passes" in loud.stdout
    assert "PASS " not in quiet.stdout
    lines = quiet.stdout.splitlines()
    # The two evaluators fail the row for the same reason: one line names both.
    assert lines[0].startswith(f"FAIL  grading.json › fails [{EXACT}, {SECOND}]  ")
    assert lines[-1].startswith("2 passed, 2 failed, 2 errors (6 results in ")
    long_form = invoke_workbench("run", str(root), "--quiet").stdout
    assert [line[:5] for line in long_form.splitlines()] == [line[:5] for line in lines]


def test_a_crashing_row_prints_its_error_once_naming_every_evaluator(tmp_path: Path) -> None:
    root = two_evaluator_project(tmp_path)
    out = invoke_workbench("run", str(root), "-q").stdout
    assert out.count("the target exited with code 3") == 1, out
    assert out.count("inputs: ") == 2  # once for the failing row, once for the crashing one
    [error_line] = [line for line in out.splitlines() if line.startswith("ERROR")]
    assert error_line.startswith(f"ERROR grading.json › crashes [{EXACT}, {SECOND}]  ")
    _, doc = invoke_json("run", str(root))  # the machine report keeps one result per evaluator
    assert [r["evaluator"] for r in doc["results"] if r["row_name"] == "crashes"] == [EXACT, SECOND]


def test_failures_that_differ_by_evaluator_keep_their_own_lines(tmp_path: Path) -> None:
    rows = [row("differs", {"output": {"grade": "FAIL", "extra": 1}}, {"grade": "PASS"}, ref=[EXACT, SECOND])]
    root = make_project(tmp_path / "p", config=COMMAND_CONFIG, evaluators={EXACT: evaluator("*"),
                                                                          SECOND: evaluator("grade")},
                        sets={"grading": eval_set(rows, refs=[EXACT, SECOND])})
    out = invoke_workbench("run", str(root), "-q").stdout
    assert [line.rsplit("  ", 1)[0] for line in out.splitlines() if line.startswith("FAIL")] == [
        f"FAIL  grading.json › differs [{EXACT}]", f"FAIL  grading.json › differs [{SECOND}]"]


def test_set_scope_slash_name_runs_one_of_two_same_named_sets(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p", config=COMMAND_CONFIG, scope="billing",
                        sets={"grading": [row("billing row", {"output": {"ok": 1}}, {"ok": 1})]})
    make_project(root, scope="support", sets={"grading": [row("support row", {"output": {"ok": 1}}, {"ok": 1})]})
    proc, doc = invoke_json("run", str(root), "--set", "support/grading")
    assert proc.returncode == 0, proc.stderr
    assert [(r["scope"], r["row_name"]) for r in doc["results"]] == [("support", "support row")]
    _, both = invoke_json("run", str(root), "--set", "grading")
    assert sorted(r["row_name"] for r in both["results"]) == ["billing row", "support row"]
    _, by_file = invoke_json("run", str(root), "--set", "billing/grading.json")
    assert [r["row_name"] for r in by_file["results"]] == ["billing row"]
    missing = invoke_workbench("run", str(root), "--set", "sales/grading")
    assert missing.returncode == 2 and "nothing matches eval set 'sales/grading'" in missing.stderr
