"""Issue 25: the HTML report of a run of each example project holds every row with its verdict — read back
from the data embedded in the page — both from `run --html` and from history (`workbench report --html`),
and each row's detail is its format's own (a conversation's transcript, a scenario's actions, a replay's
steps, expected | actual for the rest)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from helpers.cli import invoke_json, invoke_workbench
from helpers.html_report import embedded_data
from helpers.paths import EXAMPLES

EXAMPLE_NAMES = sorted(p.name for p in EXAMPLES.iterdir() if (p / "workbench.toml").is_file())


def copy_example(name: str, into: Path) -> Path:
    root = into / name
    shutil.copytree(EXAMPLES / name, root, ignore=shutil.ignore_patterns(".workbench", "__pycache__"))
    return root


def row_verdicts(results: list[dict[str, Any]]) -> dict[tuple[str, str, str], str]:
    """Per row (scope, set, id): PASS only when every result passes, else ERROR over FAIL."""
    rows: dict[tuple[str, str, str], list[str]] = {}
    for r in results:
        rows.setdefault((r["scope"], r["set"], r["row_id"]), []).append(r["verdict"])
    return {key: "ERROR" if "ERROR" in v else ("FAIL" if "FAIL" in v else "PASS") for key, v in rows.items()}


def test_there_are_examples() -> None:
    assert len(EXAMPLE_NAMES) >= 6


@pytest.mark.parametrize("name", EXAMPLE_NAMES)
def test_the_report_of_each_example_holds_every_row_with_its_verdict(name: str, tmp_path: Path) -> None:
    root = copy_example(name, tmp_path)
    page = tmp_path / "report.html"
    proc, doc = invoke_json("run", str(root), "--html", str(page))
    assert proc.returncode in (0, 1), proc.stderr
    assert doc["results"], f"{name} ran nothing"
    assert f"wrote {page}" in proc.stderr  # stdout carries the JSON alone
    data = embedded_data(page)
    by_key = {(r["id"], r["name"]): r for r in data["rows"]}
    expected_rows = row_verdicts(doc["results"])
    assert len(data["rows"]) == len(expected_rows)
    for result in doc["results"]:
        row = by_key[(result["row_id"], result["row_name"])]
        shown = {r["evaluator"]: r["verdict"] for r in row["results"]}
        assert shown[result["evaluator"]] == result["verdict"], (name, result["row_name"], result["evaluator"])
    for (_scope, set_file, row_id), verdict in expected_rows.items():
        row = next(r for r in data["rows"] if r["id"] == row_id and r["set"].endswith(set_file))
        assert row["verdict"] == verdict
    summary = data["summary"]
    assert summary["results"]["total"] == len(doc["results"])
    assert summary["rows"] == {"passed": sum(v == "PASS" for v in expected_rows.values()),
                               "total": len(expected_rows)}
    assert data["gate"]["judged"] and data["gate"]["passed"] == doc["passed"]

    # the same iteration from history: same rows, same verdicts
    again = tmp_path / "again.html"
    shown = invoke_workbench("report", str(root), "--html", str(again))
    assert shown.returncode == 0, shown.stderr
    recorded = embedded_data(again)
    assert [(r["id"], r["verdict"]) for r in recorded["rows"]] == [(r["id"], r["verdict"]) for r in data["rows"]]
    assert recorded["summary"]["number"] == summary["number"] == 1
    assert recorded["gate"]["passed"] == doc["passed"]


def kinds(row: dict[str, Any]) -> set[str]:
    return {block["kind"] for result in row["results"] for block in result["blocks"]}


@pytest.mark.parametrize(("name", "kind"), [("grading", "sides"), ("support-bot", "transcript"),
                                            ("botpress-agent", "transcript"), ("form-agent", "steps"),
                                            ("refund-agent", "steps")])
def test_each_format_draws_its_rows_its_own_way(name: str, kind: str, tmp_path: Path) -> None:
    root = copy_example(name, tmp_path)
    page = tmp_path / "report.html"
    invoke_json("run", str(root), "--html", str(page))
    rows = embedded_data(page)["rows"]
    ran = [row for row in rows if row["verdict"] != "ERROR"]  # a row that errored (a timeout) may show less
    assert ran and all(kind in kinds(row) for row in ran), [(r["verdict"], kinds(r)) for r in rows]


def test_expected_actual_marks_the_differing_paths(tmp_path: Path) -> None:
    root = copy_example("grading", tmp_path)
    page = tmp_path / "report.html"
    invoke_json("run", str(root), "--html", str(page))
    failing = next(r for r in embedded_data(page)["rows"] if r["verdict"] == "FAIL")
    sides = next(b for r in failing["results"] for b in r["blocks"] if b["kind"] == "sides")
    assert sorted(sides["differ"]) == [["details", "band"], ["grade"]]
    assert sides["left"]["title"] == "Expected" and sides["right"]["title"] == "Actual"


def test_a_conversation_marks_each_assertion(tmp_path: Path) -> None:
    root = copy_example("support-bot", tmp_path)
    page = tmp_path / "report.html"
    invoke_json("run", str(root), "--html", str(page))
    failing = next(r for r in embedded_data(page)["rows"] if r["verdict"] == "FAIL")
    transcript = next(b for r in failing["results"] for b in r["blocks"] if b["kind"] == "transcript")
    marks = [m for turn in transcript["turns"] for m in turn["marks"]]
    assert any(m["ok"] is False for m in marks) and any(m["ok"] is True for m in marks)
    assert any(turn["failed"] for turn in transcript["turns"])
    assert any(line["who"] == "user" for turn in transcript["turns"] for line in turn["lines"])


def test_the_second_run_has_a_previous_iteration_a_trend_and_flips(tmp_path: Path) -> None:
    root = copy_example("grading", tmp_path)
    invoke_json("run", str(root))
    grade = root / "grade.py"
    grade.write_text(grade.read_text(encoding="utf-8").replace("if score > 50:", "if score >= 50:"), encoding="utf-8")
    page = tmp_path / "report.html"
    invoke_json("run", str(root), "--html", str(page))
    data = embedded_data(page)
    assert data["summary"]["previous"]["number"] == 1
    assert [p["n"] for p in data["trend"]] == [1, 2]
    assert data["flips"]["newly_passing"] and not data["flips"]["newly_failing"]
    assert any(r["flip"] == "newly passing" for r in data["rows"])
    older = tmp_path / "one.html"
    assert invoke_workbench("report", str(root), "1", "--html", str(older)).returncode == 0
    assert embedded_data(older)["summary"]["number"] == 1 and embedded_data(older)["flips"] is None


def test_report_without_history_or_iteration_says_so(tmp_path: Path) -> None:
    root = copy_example("grading", tmp_path)
    page = tmp_path / "r.html"
    none = invoke_workbench("report", str(root), "--html", str(page))
    assert none.returncode == 1 and "no history yet" in none.stderr and not page.exists()
    invoke_json("run", str(root))
    missing = invoke_workbench("report", str(root), "7", "--html", str(page))
    assert missing.returncode == 1 and "no iteration 7" in missing.stderr and not page.exists()
    bare = invoke_workbench("report", str(root))
    assert bare.returncode == 2 and "--html FILE" in bare.stderr


def test_run_no_history_html_makes_no_history(tmp_path: Path) -> None:
    root = copy_example("grading", tmp_path)
    page = tmp_path / "r.html"
    invoke_json("run", str(root), "--no-history", "--html", str(page))
    assert page.is_file() and not (root / ".workbench" / "history.sqlite3").exists()
    assert embedded_data(page)["summary"]["number"] is None


def test_a_report_from_history_after_the_eval_files_are_gone(tmp_path: Path) -> None:
    """History holds what the page needs: with the eval files deleted since, the rows and verdicts still show,
    each conversation still drawn as its transcript (its format found by its evaluator type)."""
    root = copy_example("support-bot", tmp_path)
    _, doc = invoke_json("run", str(root))
    shutil.rmtree(root / "evals")
    page = tmp_path / "report.html"
    shown = invoke_workbench("report", str(root), "--html", str(page))
    assert shown.returncode == 0, shown.stderr
    rows = embedded_data(page)["rows"]
    assert sorted((r["id"], r["verdict"]) for r in rows) == sorted(row_verdicts_by_id(doc["results"]).items())
    assert all("transcript" in kinds(r) for r in rows)


def row_verdicts_by_id(results: list[dict[str, Any]]) -> dict[str, str]:
    return {row_id: verdict for (_scope, _set, row_id), verdict in row_verdicts(results).items()}
