"""A partial `workbench run` (`--set`, `--row`, `--tag`, `--type`) and the gate: its `--update-baseline`
replaces only the baseline entries of the results it ran and keeps every other entry as it was read (else
the rows it left out could never again be "newly failing": a false green); `--tag`/`--type` runs are
partial like `--set` ones for the formats' gates and for history."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from helpers.cli import invoke_json, invoke_workbench
from helpers.paths import EXAMPLES
from helpers.project import COMMAND_CONFIG, make_project, row

BASELINE = "workbench-baseline.json"


def two_sets(tmp_path: Path, b_says: int = 1) -> Path:
    """UiPath sets a and b, two rows each; the target answers each row's `output`, so they pass, except
    b's rows when `b_says` is not 1."""
    return make_project(tmp_path / "project", config=COMMAND_CONFIG, sets={
        "a": [row(f"a{n}", {"output": {"v": 1}}, {"v": 1}) for n in (1, 2)],
        "b": [row(f"b{n}", {"output": {"v": b_says}}, {"v": 1}) for n in (1, 2)],
    })


def entries(root: Path) -> list[dict[str, Any]]:
    return json.loads((root / BASELINE).read_text(encoding="utf-8"))["results"]


def of_set(root: Path, name: str) -> list[dict[str, Any]]:
    return [e for e in entries(root) if e["set"] == f"{name}.json"]


def run_ok(*args: str) -> None:
    proc = invoke_workbench("run", *args, "--no-history")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_a_partial_update_keeps_the_entries_it_did_not_run(tmp_path: Path) -> None:
    root = two_sets(tmp_path)
    run_ok(str(root), "--update-baseline")
    before = (root / BASELINE).read_text(encoding="utf-8")
    b_before = of_set(root, "b")
    run_ok(str(root), "--set", "a", "--update-baseline")
    assert [e["row_id"] for e in entries(root)] == ["a1", "a2", "b1", "b2"]
    assert of_set(root, "b") == b_before
    after = (root / BASELINE).read_text(encoding="utf-8")
    b_text = before[before.index('    {\n      "scope": "default",\n      "set": "b.json"'):before.rindex("}\n  ]")]
    assert b_text in after  # byte for byte
    # so b is still guarded: a full run where b fails now says so
    two_sets(tmp_path, b_says=2)
    proc, doc = invoke_json("run", str(root), "--no-history")
    assert proc.returncode == 1
    assert sorted(item["row_id"] for item in doc["baseline"]["newly_failing"]) == ["b1", "b2"]


def test_a_partial_update_keeps_an_entry_as_it_was_written(tmp_path: Path) -> None:
    """Keys in another order, a field workbench does not know, a duration it would round: kept as read."""
    root = two_sets(tmp_path)
    run_ok(str(root), "--update-baseline")
    doc = json.loads((root / BASELINE).read_text(encoding="utf-8"))
    mine = {"note": "hand-edited", "passed": True, "evaluator": "exact-match-evaluator", "row_id": "b1",
            "set": "b.json", "scope": "default", "duration_ms": 12.345}
    doc["results"] = [mine if e["row_id"] == "b1" else e for e in doc["results"]]
    (root / BASELINE).write_text(json.dumps(doc, indent=2), encoding="utf-8")
    run_ok(str(root), "--row", "a1", "--update-baseline")
    kept = next(e for e in entries(root) if e["row_id"] == "b1")
    assert list(kept.items()) == list(mine.items())
    assert json.dumps(mine, indent=2).replace("\n", "\n    ") in (root / BASELINE).read_text(encoding="utf-8")


def test_a_partial_update_refuses_a_baseline_it_cannot_read(tmp_path: Path) -> None:
    """It would keep that file's entries; dropping them silently is the false green. A full update may replace it."""
    root = two_sets(tmp_path)
    (root / BASELINE).write_text("{ not json", encoding="utf-8")
    proc = invoke_workbench("run", str(root), "--set", "a", "--update-baseline", "--no-history")
    assert proc.returncode == 2
    assert BASELINE in proc.stderr and "not valid JSON" in proc.stderr
    assert (root / BASELINE).read_text(encoding="utf-8") == "{ not json"
    run_ok(str(root), "--update-baseline")
    assert len(entries(root)) == 4


@pytest.fixture
def bot(tmp_path: Path) -> Path:
    """examples/support-bot: greeting (tag smoke, type capability), order-refund (fails), urgent-ticket
    (type regression)."""
    root = tmp_path / "support-bot"
    shutil.copytree(EXAMPLES / "support-bot", root, ignore=shutil.ignore_patterns(".workbench", "__pycache__"))
    return root


@pytest.mark.parametrize("flags", [("--tag", "smoke"), ("--type", "regression")])
def test_a_tag_or_type_update_keeps_the_rows_it_left_out(bot: Path, flags: tuple[str, str]) -> None:
    names = ["greeting", "order-refund", "urgent-ticket"]
    proc = invoke_workbench("run", str(bot), "--min-pass-rate", "0.5", "--update-baseline", "--no-history")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert sorted(e["row_name"] for e in entries(bot)) == names
    run_ok(str(bot), *flags, "--update-baseline")
    assert sorted(e["row_name"] for e in entries(bot)) == names


def test_a_tag_run_that_selects_no_scenario_leaves_their_gate_out(bot: Path) -> None:
    shutil.copytree(EXAMPLES / "form-agent" / ".appilots", bot / ".appilots",
                    ignore=shutil.ignore_patterns("eval-baseline.json"))
    shutil.copy(EXAMPLES / "form-agent" / ".appilotsrc", bot / ".appilotsrc")
    proc, doc = invoke_json("run", str(bot), "--tag", "smoke", "--no-history")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert [r["row_name"] for r in doc["results"]] == ["greeting"]
    assert "scenarios" not in doc["gate"] and doc["gate"]["reasons"] == []


def test_history_records_a_tag_run_as_partial_like_a_set_run(bot: Path) -> None:
    for flags in (("--set", "tickets"), ("--tag", "smoke"), ("--type", "regression"), ()):
        invoke_workbench("run", str(bot), *flags)
    proc, doc = invoke_json("history", str(bot))
    assert proc.returncode == 0, proc.stderr
    iterations = doc["iterations"] if isinstance(doc, dict) else doc
    assert {i["number"]: i["partial"] for i in iterations} == {1: True, 2: True, 3: True, 4: False}


def test_a_watch_loop_filtered_by_tag_records_its_iterations_as_partial(bot: Path) -> None:
    """`watch --tag` runs some rows every iteration: none of its iterations may stand as the previous full
    one (the TUI's and `history`'s flips compare with that)."""
    watched = invoke_workbench("watch", "--plain", "--max-iterations", "1", "--tag", "smoke", str(bot))
    assert watched.returncode == 0 and "1/1 rows pass" in watched.stdout, watched.stderr
    assert invoke_workbench("watch", "--plain", "--max-iterations", "1", str(bot)).returncode == 1
    proc, doc = invoke_json("history", str(bot))
    assert proc.returncode == 0, proc.stderr
    iterations = doc["iterations"] if isinstance(doc, dict) else doc
    assert {i["number"]: i["partial"] for i in iterations} == {1: True, 2: False}
