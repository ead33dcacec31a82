"""Issue 24, compare any two runs: `workbench compare [A] [B]` gives the rows fixed, newly failing, still
failing and the rows whose output changed while the verdict held (with the diff of their output), and the
code diff between the two iterations from the files history recorded with them (snapshots.py)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest
from helpers.cli import invoke_json, invoke_workbench
from helpers.project import evaluator, make_project, row

from workbench.actions.compare import CompareError, compare_runs
from workbench.config import load_config
from workbench.engine import Engine
from workbench.events import IterationReport, Trigger, TriggerKind
from workbench.history import HistoryStore

GRADE = '''import json
import sys


def grade(score):
    return "PASS" if score {op} 60 else "FAIL"
{extra}

inputs = json.load(sys.stdin)
print(json.dumps({{"grade": grade(inputs["score"]){field}}}))
'''


def grade_py(op: str = ">", *, field: str = "", extra: str = "") -> str:
    return GRADE.format(op=op, field=field, extra=extra)


def project(tmp_path: Path) -> Path:
    root = tmp_path / "grading"
    rows = [row("85 passes", {"score": 85}, {"grade": "PASS"}), row("40 fails", {"score": 40}, {"grade": "FAIL"}),
            row("60 passes", {"score": 60}, {"grade": "PASS"})]
    make_project(root, sets={"grading": rows}, evaluators={"exact-match-evaluator": evaluator("grade")},
                 config={"kind": "command", "command": [sys.executable, "grade.py"], "timeout": 30},
                 files={"grade.py": grade_py()})
    return root


def run(root: Path) -> IterationReport:
    """An iteration as `workbench run` makes one, recorded in history."""
    config = load_config(root)
    report = asyncio.run(Engine(config).run_iteration(Trigger(TriggerKind.RUN)))
    with HistoryStore.open(config) as store:
        store.record(report)
    return report


def names(changes) -> list[str]:
    return [change.name for change in changes]


def test_compare_shows_the_rows_flipped_and_the_code_diff_between_them(tmp_path: Path) -> None:
    root = project(tmp_path)
    run(root)  # 1: "60 passes" fails (the bug: > 60)
    (root / "grade.py").write_text(grade_py(">=", field=', "score": inputs["score"]'))
    run(root)  # 2: fixed, and every output gained a field
    comparison = compare_runs(load_config(root))
    assert (comparison.before.number, comparison.after.number) == (1, 2)
    assert names(comparison.fixed) == ["60 passes"]
    assert comparison.newly_failing == [] and comparison.still_failing == []
    assert names(comparison.output_changed) == ["85 passes", "40 fails"]  # file order
    changed = comparison.output_changed[0]
    assert changed.output_before == {"grade": "PASS"} and changed.output_after == {"grade": "PASS", "score": 85}
    assert any("score" in line for line in changed.output_diff)
    assert [diff.path for diff in comparison.files or []] == ["grade.py"]  # not the eval files, not workbench.toml
    (code,) = comparison.files or []
    assert (code.added, code.removed) == (2, 2)
    assert code.summary == "grade.py +2 −2"
    assert '-    return "PASS" if score > 60 else "FAIL"' in code.diff
    assert '+    return "PASS" if score >= 60 else "FAIL"' in code.diff

    (root / "grade.py").write_text(grade_py(">=", field=', "score": inputs["score"]').replace("60 else", "30 else"))
    run(root)  # 3: "40 fails" now passes as PASS: newly failing
    latest = compare_runs(load_config(root))
    assert (latest.before.number, latest.after.number) == (2, 3)
    assert names(latest.newly_failing) == ["40 fails"]
    assert latest.newly_failing[0].detail_after.startswith("exact-match-evaluator: ")
    assert [d.summary for d in latest.files or []] == ["grade.py +1 −1"]
    across = compare_runs(load_config(root), "1", "3")
    assert names(across.fixed) == ["60 passes"] and names(across.newly_failing) == ["40 fails"]
    assert [d.summary for d in across.files or []] == ["grade.py +2 −2"]  # the same two lines, edited twice
    assert '+    return "PASS" if score >= 30 else "FAIL"' in (across.files or [])[0].diff


def test_the_cli_prints_the_comparison_and_its_json(tmp_path: Path) -> None:
    root = project(tmp_path)
    run(root)
    (root / "grade.py").write_text(grade_py(">="))
    run(root)
    shown = invoke_workbench("compare", str(root))
    assert shown.returncode == 0, shown.stderr
    text = shown.stdout
    assert text.splitlines()[0] == ("iteration 1 → iteration 2: 1 fixed, 0 newly failing, 0 still failing, "
                                    "0 output changed")
    assert "files changed: grade.py +1 −1" in text
    assert "fixed (1):" in text and "60 passes   FAIL → PASS" in text
    assert "--- a/grade.py" in text and "+++ b/grade.py" in text
    _, doc = invoke_json("compare", str(root), "1", "2")
    assert [r["row_name"] for r in doc["fixed"]] == ["60 passes"]
    assert doc["files"][0]["path"] == "grade.py" and doc["files"][0]["added"] == 1
    assert doc["before"]["iteration"] == 1 and doc["after"]["iteration"] == 2
    missing = invoke_workbench("compare", str(root), "7")
    assert missing.returncode != 0 and "no iteration 7" in missing.stderr


def test_compare_against_the_baseline(tmp_path: Path) -> None:
    root = project(tmp_path)
    blessed = invoke_workbench("run", str(root), "--update-baseline", "--min-pass-rate", "0")
    assert "baseline" in blessed.stdout + blessed.stderr
    (root / "grade.py").write_text(grade_py(">="))
    run(root)
    comparison = compare_runs(load_config(root), "baseline")
    assert comparison.before.name == "baseline"
    # the iteration it was blessed from stands in for it: its outputs and files (not the baseline file's)
    assert comparison.before.label == "baseline (iteration 1)"
    assert [d.path for d in comparison.files or []] == ["grade.py"]
    assert names(comparison.fixed) == ["60 passes"]


def test_compare_needs_two_iterations(tmp_path: Path) -> None:
    root = project(tmp_path)
    with pytest.raises(CompareError, match="no history yet"):
        compare_runs(load_config(root))
    run(root)
    with pytest.raises(CompareError, match="fewer than two"):
        compare_runs(load_config(root))
    with pytest.raises(CompareError, match="no baseline"):
        compare_runs(load_config(root), "baseline")
    assert json.loads(json.dumps(compare_runs(load_config(root), "1", "1").to_json()))["fixed"] == []


def test_each_change_is_said_once_in_workbench_s_words(tmp_path: Path) -> None:
    """Issue 38 point 8: a flipped row says what changed once — the evaluator's words when it fails now, else
    the output's changes place by place — and never in deepdiff's (`Value of root['grade'] changed from …`)."""
    root = project(tmp_path)
    run(root)  # 1: "60 passes" fails
    (root / "grade.py").write_text(grade_py(">=", field=', "score": inputs["score"]'))
    run(root)  # 2: "60 passes" fixed; every output gains "score"
    (root / "grade.py").write_text(grade_py(">=").replace("60 else", "30 else"))
    run(root)  # 3: "40 fails" newly failing; "score" gone again
    fixed = invoke_workbench("compare", str(root), "1", "2").stdout
    assert "Value of" not in fixed and "root[" not in fixed, fixed
    lines = fixed.splitlines()
    at = lines.index("  ✔ grading.json › 60 passes   FAIL → PASS")
    assert lines[at + 1:at + 3] == ['      grade: "FAIL" → "PASS"', "      score: added (60)"]
    assert "output changed, verdict held (2):" in lines  # "85 passes" and "40 fails" gained "score"
    newly = invoke_workbench("compare", str(root), "2", "3").stdout
    assert "Value of" not in newly and "root[" not in newly, newly
    lines = newly.splitlines()
    at = lines.index("  ✘ grading.json › 40 fails   PASS → FAIL")
    said = lines[at + 1:lines.index("", at)]
    assert said == ['      exact-match-evaluator: grade: expected "FAIL", got "PASS"'], said  # once, not twice
    assert "      score: removed (was 85)" in lines  # "85 passes": output changed, verdict held
    _, doc = invoke_json("compare", str(root), "2", "3")
    assert doc["newly_failing"][0]["output_diff"] == ['grade: "FAIL" → "PASS"', "score: removed (was 40)"]
