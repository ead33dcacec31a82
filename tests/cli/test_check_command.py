"""`workbench check` as a user runs it, and the same findings as warnings beside the rows in `run`'s
text and JSON reports (issue 12 point 12)."""

from __future__ import annotations

import json
from pathlib import Path

from helpers.checks import tree_digest
from helpers.cli import invoke_json, invoke_workbench
from helpers.project import COMMAND_CONFIG, make_project, row

WORKFLOW = json.dumps({
    "document": {"dsl": "1.0.0", "name": "add"},
    "input": {"schema": {"format": "json", "document": {
        "type": "object", "properties": {"output": {"type": "object"}}, "required": ["output"]}}},
    "output": {"schema": {"format": "json", "document": {
        "type": "object", "properties": {"sum": {"type": "number"}}, "required": ["sum"]}}},
})
CASING = row("two plus three", {"output": {"sum": 5}}, {"Sum": 5})
GOOD = row("one plus one", {"output": {"sum": 2}}, {"sum": 2})
EXTRA_INPUT = row("extra input", {"output": {"sum": 3}, "Note": "x"}, {"sum": 3})


def project(tmp_path: Path, rows: list[dict]) -> Path:
    return make_project(tmp_path / "p", config=COMMAND_CONFIG, sets={"math": rows},
                        files={"Workflow.json": WORKFLOW})


def test_check_reports_the_casing_mismatch_and_exits_1_without_running_or_writing(tmp_path: Path) -> None:
    root = project(tmp_path, [CASING, GOOD])
    before = tree_digest(root)
    proc = invoke_workbench("check", str(root))
    assert proc.returncode == 1, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("problem: evals/default/eval-sets/math.json: evaluations[0] ('two plus three'): "
                               "expectedOutput has \"Sum\", which output.schema does not declare — did you mean "
                               "\"sum\"?")
    assert lines[-1] == ("check failed: 1 error, 0 warnings (1 set, 2 rows, 1 evaluator; rows checked against "
                         "Workflow.json)")
    assert tree_digest(root) == before  # nothing ran: no history, no state folder


def test_check_passes_a_project_that_fits_and_says_so(tmp_path: Path) -> None:
    root = project(tmp_path, [GOOD])
    proc = invoke_workbench("check", str(root))
    assert proc.returncode == 0, proc.stdout
    lines = proc.stdout.splitlines()
    assert lines[-1] == ("check passed: 0 errors, 0 warnings (1 set, 1 row, 1 evaluator; rows checked against "
                         "Workflow.json)")
    assert lines == [lines[-1]]  # nothing but the verdict: re-scoring's view of the project is -v's (issue 38)
    # With -v, before the verdict: what re-scoring doesn't look at, and what `run --reuse` would do with each row.
    lines = invoke_workbench("check", str(root), "-v").stdout.splitlines()
    assert lines[0].startswith("not watched or fingerprinted: .workbench/ .git/")
    assert lines[-3:-1] == ["re-scoring:", "  math › one plus one: runs: no earlier run of it is recorded"]


def test_check_json(tmp_path: Path) -> None:
    root = project(tmp_path, [CASING, GOOD])
    (root / "evals/default/eval-sets/broken.json").write_text("[", encoding="utf-8")
    proc = invoke_workbench("check", str(root), "--json")
    assert proc.returncode == 1
    doc = json.loads(proc.stdout)
    assert doc["passed"] is False
    assert doc["summary"] == {"errors": 2, "warnings": 0, "sets": 1, "rows": 2, "evaluators": 1,
                              "workflow": "Workflow.json"}
    by_file = {p["file"]: p for p in doc["problems"]}
    assert by_file["evals/default/eval-sets/broken.json"]["message"].startswith("is not valid JSON")
    casing = by_file["evals/default/eval-sets/math.json"]
    assert casing["severity"] == "error"
    assert casing["row"] == {"scope": "default", "set": "math.json", "row_id": "two plus three"}


def test_check_from_inside_the_project_and_without_one(tmp_path: Path) -> None:
    root = project(tmp_path, [GOOD])
    assert invoke_workbench("check", cwd=root / "evals").returncode == 0
    empty = tmp_path / "empty"
    empty.mkdir()
    proc = invoke_workbench("check", str(empty))
    assert proc.returncode == 2 and "no eval files in" in proc.stderr


def test_run_shows_the_findings_as_warnings_beside_the_rows(tmp_path: Path) -> None:
    root = project(tmp_path, [CASING, GOOD, EXTRA_INPUT])
    proc = invoke_workbench("run", str(root))
    assert proc.returncode == 1  # the casing row fails; the warnings themselves fail nothing
    lines = proc.stdout.splitlines()
    fail_at = next(i for i, line in enumerate(lines) if line.startswith("FAIL  math.json › two plus three"))
    warning = next(line for line in lines[fail_at:] if "warning:" in line)
    assert warning.startswith("      warning: evaluations[0] ('two plus three'): expectedOutput has \"Sum\"")
    assert sum("expectedOutput has \"Sum\"" in line for line in lines) == 1  # printed once, with its row
    assert any(line.startswith("      warning: evaluations[2] ('extra input'): inputs has \"Note\"") for line in lines)

    quiet = invoke_workbench("run", str(root), "-q").stdout.splitlines()
    # The passing row isn't printed with -q, so its warning goes with the file problems at the end.
    assert any(line.startswith("warning: evals/default/eval-sets/math.json: evaluations[2] ('extra input')")
               for line in quiet)


def test_run_json_lists_the_warnings_on_the_results_of_their_row(tmp_path: Path) -> None:
    proc, doc = invoke_json("run", str(project(tmp_path, [CASING, GOOD])))
    assert proc.returncode == 1
    by_row = {r["row_name"]: r for r in doc["results"]}
    assert "warnings" not in by_row["one plus one"]
    [warning] = by_row["two plus three"]["warnings"]
    assert "expectedOutput has \"Sum\", which output.schema does not declare — did you mean \"sum\"?" in warning
    [problem] = doc["problems"]
    assert problem["severity"] == "warning" and problem["row"]["row_id"] == "two plus three"
