"""Issue 25: what the report marks — regressions against the baseline in the summary and the gate, rows
re-scored from a recorded run, flaky rows (issue 24: over time, or by their samples), tags for the filter."""

from __future__ import annotations

import shutil
from pathlib import Path

from helpers.cli import invoke_json
from helpers.html_report import embedded_data, synthetic_source
from helpers.paths import EXAMPLES

from workbench.model import Sample, Verdict
from workbench.report.html import document

BUG, FIX = "if score > 50:", "if score >= 50:"


def grading(tmp_path: Path) -> Path:
    root = tmp_path / "grading"
    shutil.copytree(EXAMPLES / "grading", root, ignore=shutil.ignore_patterns(".workbench", "__pycache__"))
    return root


def edit(root: Path, old: str, new: str) -> None:
    grade = root / "grade.py"
    grade.write_text(grade.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")


def test_a_regression_against_the_baseline_is_in_the_summary_and_the_gate(tmp_path: Path) -> None:
    root = grading(tmp_path)
    edit(root, BUG, FIX)
    proc, _ = invoke_json("run", str(root), "--update-baseline")
    assert proc.returncode == 0, proc.stderr
    edit(root, FIX, BUG)
    page = tmp_path / "report.html"
    invoke_json("run", str(root), "--html", str(page))
    gate = embedded_data(page)["gate"]
    assert gate["judged"] and not gate["passed"]
    assert gate["baseline"]["path"] == "workbench-baseline.json"
    assert (gate["baseline"]["passed"], gate["baseline"]["total"]) == (7, 7)
    assert any(line.startswith("newly failing: grading.json › score 50 passes (boundary)")
               for line in gate["baseline"]["regressions"])
    assert any("newly failing against the baseline" in reason for reason in gate["reasons"])


def test_rows_rescored_from_a_recorded_run_are_marked(tmp_path: Path) -> None:
    root = grading(tmp_path)
    invoke_json("run", str(root))
    page = tmp_path / "report.html"
    invoke_json("run", str(root), "--reuse", "--html", str(page))
    rows = embedded_data(page)["rows"]
    assert rows and all(r["rescored"] for r in rows)
    fresh = tmp_path / "fresh.html"
    invoke_json("run", str(root), "--html", str(fresh))
    assert not any(r["rescored"] for r in embedded_data(fresh)["rows"])


def test_flaky_rows_are_marked_over_time_and_by_their_samples(tmp_path: Path) -> None:
    source = synthetic_source(tmp_path, 3, failing_every=100)
    over_time, sampled, _steady = source.report.results
    over_time.flaky_since = 4
    sampled.samples = [Sample(i, Verdict.PASS if i < 3 else Verdict.FAIL, 1.0 if i < 3 else 0.0, "", {"n": i})
                       for i in range(5)]
    rows = document(source)["rows"]
    assert rows[0]["flaky"] == "since iteration 4"
    assert rows[1]["flaky"] == "3/5 samples passed" and rows[1]["results"][0]["samples"] == "3/5"
    assert rows[1]["results"][0]["sample_verdicts"] == ["PASS"] * 3 + ["FAIL"] * 2
    assert "flaky" not in rows[2]


def test_the_rows_tags_are_there_to_filter_by(tmp_path: Path) -> None:
    root = tmp_path / "support-bot"
    shutil.copytree(EXAMPLES / "support-bot", root, ignore=shutil.ignore_patterns(".workbench", "__pycache__"))
    page = tmp_path / "report.html"
    invoke_json("run", str(root), "--html", str(page))
    data = embedded_data(page)
    assert data["tags"] and all(set(r["tags"]) <= set(data["tags"]) for r in data["rows"])
    assert any(r["tags"] for r in data["rows"])
