"""End to end on a copy of examples/refund-agent, through the real CLI: verdicts, exit codes, the text
lines, and a project of replays with nothing in evals/ (no runner configured anywhere)."""

from __future__ import annotations

import json
from pathlib import Path

from helpers.cli import invoke_json, invoke_workbench, verdicts
from helpers.replays import copy_example


def test_the_example_runs_with_no_runner_and_fails_only_the_case_meant_to(tmp_path: Path) -> None:
    root = copy_example(tmp_path / "refund-agent")
    proc, doc = invoke_json("run", str(root))
    assert proc.returncode == 1, proc.stderr
    assert verdicts(doc) == {"refund-approved [expect]": "PASS", "refund-denied [expect]": "PASS",
                             "refund-held [expect]": "PASS", "refund-typo [expect]": "FAIL"}
    by_name = {r["row_name"]: r for r in doc["results"]}
    assert by_name["refund-denied"]["actual"]["detail"] == "Approval for issue_refund was denied."
    assert by_name["refund-held"]["actual"]["status"] == "waiting"
    assert "(inputSchema.properties.orderId.pattern)" in by_name["refund-typo"]["detail"]
    approved = by_name["refund-approved"]
    lookup = next(e for e in approved["trace"] if e["type"] == "tool_call" and e["name"] == "lookup_order")
    assert lookup["output"]["item"] == "Kettle"  # the live handler ran
    assert (root / ".workbench" / "replays" / "refund-approved" / "receipts" / "A-1001.md").is_file()
    assert not (root / "receipts").exists()

    case = root / "evals" / "refund-typo.script.json"
    case.write_text(case.read_text().replace('"orderId": "1001"', '"orderId": "A-1001"'))
    proc, doc = invoke_json("run", str(root))
    assert proc.returncode == 0, proc.stdout
    assert set(verdicts(doc).values()) == {"PASS"}


def test_the_text_report_has_a_line_per_case_and_the_reason_under_a_failure(tmp_path: Path) -> None:
    root = copy_example(tmp_path / "refund-agent")
    proc = invoke_workbench("run", str(root), "--set", "scripts")
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    assert any(line.startswith("PASS  scripts › refund-denied [expect]") for line in lines), proc.stdout
    assert any(line.startswith("FAIL  scripts › refund-typo [expect]") for line in lines)
    assert "the case failed: script[0] (tool.call issue_refund)" in proc.stdout
    assert "3 passed, 1 failed, 0 errors" in proc.stdout
    one = invoke_workbench("run", str(root), "--row", "refund-held")
    assert one.returncode == 0 and "1 passed" in one.stdout


def test_an_empty_evals_folder_fails_unless_allow_empty(tmp_path: Path) -> None:
    root = tmp_path / "empty"
    (root / "evals").mkdir(parents=True)
    (root / "tools.json").write_text(json.dumps([{"name": "ping", "inputSchema": {}}]))
    proc = invoke_workbench("run", str(root))
    assert proc.returncode == 1, proc.stderr
    assert "no way to run the target" not in proc.stderr
    allowed = invoke_workbench("run", str(root), "--allow-empty")
    assert allowed.returncode == 0, allowed.stdout + allowed.stderr


def test_init_plico_makes_a_project_whose_smoke_case_passes_with_no_runner(tmp_path: Path) -> None:
    root = tmp_path / "new"
    made = invoke_workbench("init", str(root), "--format", "plico")
    assert made.returncode == 0 and "created evals/smoke.script.json" in made.stdout
    assert "created tools.json" in made.stdout
    proc, doc = invoke_json("run", str(root))
    assert proc.returncode == 0 and verdicts(doc) == {"smoke [expect]": "PASS"}
    again = invoke_workbench("init", str(root), "--format", "plico")
    assert again.returncode == 1 and "kept    tools.json" in again.stdout
