"""Conversations end to end through the real CLI, on a copy of examples/support-bot: the verdict of each
eval (one fails on purpose), `--tag` / `--type` selection, JUnit, the baseline, the watch loop, `accept`
refusing a conversation row, and `init --format botpress`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers.cli import invoke_json, invoke_workbench
from helpers.paths import EXAMPLES
from helpers.project import make_project, row

EXAMPLE = EXAMPLES / "support-bot"
REF = "conversation"


@pytest.fixture
def bot(tmp_path: Path) -> Path:
    root = tmp_path / "support-bot"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns(".workbench", "__pycache__"))
    return root


def verdicts(doc: dict) -> dict[str, str]:
    return {r["row_name"]: r["verdict"] for r in doc["results"]}


def test_run_json_gives_the_expected_verdict_per_eval(bot: Path) -> None:
    proc, doc = invoke_json("run", str(bot), "--junit", str(bot / "junit.xml"))
    assert proc.returncode == 1
    assert verdicts(doc) == {"greeting": "PASS", "order-refund": "FAIL", "urgent-ticket": "PASS"}
    failing = next(r for r in doc["results"] if r["row_name"] == "order-refund")
    assert failing["evaluator"] == REF and failing["evaluator_type"] == "workbench-conversation"
    assert failing["detail"].splitlines() == ["1 of 8 assertions failed",
                                              "turn 2 · tools: issueRefund was not called (tools called: lookupOrder)"]
    assert [t["turn"] for t in failing["actual"]["turns"]] == [1, 2]
    assert failing["actual"]["setup"]["workflows"][0]["name"] == "onboarding"
    judged = next(r for r in doc["results"] if r["row_name"] == "urgent-ticket")
    marks = [a for a in judged["expected"]["assertions"] if a["kind"] == "response" and "llm_judge" in a["assertion"]]
    assert marks and marks[0]["message"].startswith("judge scored 4/5 ≥ 3")
    junit = (bot / "junit.xml").read_text(encoding="utf-8")
    assert junit.count("<testcase") == 3 and "issueRefund was not called" in junit


def test_text_report_names_the_failing_turn(bot: Path) -> None:
    proc = invoke_workbench("run", str(bot), "--no-history")
    assert proc.returncode == 1
    assert "FAIL  orders.eval.json › order-refund [conversation]" in proc.stdout
    assert "turn 2 · tools: issueRefund was not called (tools called: lookupOrder)" in proc.stdout
    assert "2 passed, 1 failed, 0 errors" in proc.stdout


@pytest.mark.parametrize(("flags", "expected"), [
    (["--tag", "smoke"], {"greeting": "PASS"}),
    (["--tag", "smoke", "--tag", "events"], {"greeting": "PASS", "order-refund": "FAIL"}),
    (["--type", "regression"], {"urgent-ticket": "PASS"}),
    (["--type", "capability", "--tag", "events"], {"order-refund": "FAIL"}),
    (["--set", "tickets"], {"urgent-ticket": "PASS"}),
])
def test_tag_and_type_select_rows(bot: Path, flags: list[str], expected: dict[str, str]) -> None:
    proc, doc = invoke_json("run", str(bot), "--no-history", *flags)
    assert verdicts(doc) == expected
    assert proc.returncode == (1 if "FAIL" in expected.values() else 0)


def test_tag_leaves_out_untagged_rows_of_other_formats(bot: Path) -> None:
    make_project(bot, sets={"plain": [row("untagged", {"x": 1}, {"x": 1})]})
    proc, doc = invoke_json("run", str(bot), "--no-history", "--tag", "smoke")
    assert verdicts(doc) == {"greeting": "PASS"}
    assert proc.returncode == 0


def test_a_tag_nothing_has_is_a_usage_error(bot: Path) -> None:
    proc = invoke_workbench("run", str(bot), "--tag", "nope")
    assert proc.returncode == 2
    assert "nothing matches tag 'nope'" in proc.stderr
    proc = invoke_workbench("run", str(bot), "--type", "smoke")
    assert proc.returncode == 2 and "'smoke' is not one of 'capability', 'regression'" in proc.stderr


def test_baseline_round_trip_per_eval(bot: Path) -> None:
    proc = invoke_workbench("run", str(bot), "--update-baseline", "--min-pass-rate", "0.6")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    baseline = json.loads((bot / "workbench-baseline.json").read_text(encoding="utf-8"))
    entries = {e["row_id"]: e["passed"] for e in baseline["results"]}
    assert entries == {"greeting": True, "order-refund": False, "urgent-ticket": True}
    proc, doc = invoke_json("run", str(bot), "--min-pass-rate", "0.6")
    assert proc.returncode == 0, doc.get("gate")


def test_watch_plain_with_a_tag_runs_only_the_tagged_evals(bot: Path) -> None:
    proc = invoke_workbench("watch", str(bot), "--plain", "--tag", "smoke", "--max-iterations", "1")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1/1 rows pass" in proc.stdout


def test_accept_refuses_a_conversation_row(bot: Path) -> None:
    assert invoke_workbench("run", str(bot)).returncode == 1
    before = (bot / "evals" / "orders.eval.json").read_bytes()
    proc = invoke_workbench("accept", str(bot), "--set", "orders", "--row", "order-refund")
    assert proc.returncode == 1
    assert "'order-refund' is a conversation eval" in proc.stderr
    assert "there is no single expected output to accept" in proc.stderr
    assert (bot / "evals" / "orders.eval.json").read_bytes() == before


def test_init_format_botpress_writes_one_example_and_never_overwrites(tmp_path: Path) -> None:
    proc = invoke_workbench("init", str(tmp_path), "--format", "botpress")
    assert proc.returncode == 0 and "created evals/greeting.eval.json" in proc.stdout
    path = tmp_path / "evals" / "greeting.eval.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert doc["name"] == "greeting" and len(doc["conversation"]) == 2
    path.write_text(json.dumps({**doc, "description": "mine"}), encoding="utf-8")
    proc = invoke_workbench("init", str(tmp_path), "--format", "botpress")
    assert proc.returncode == 1 and "kept    evals/greeting.eval.json" in proc.stdout
    assert json.loads(path.read_text(encoding="utf-8"))["description"] == "mine"
    check = invoke_workbench("check", str(tmp_path))
    assert "0 errors" in check.stdout
