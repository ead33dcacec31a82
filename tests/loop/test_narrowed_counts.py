"""Issue 22 point 4 (engine side): with --tag / --type / --set / --row, what an iteration reports counts only the
rows it ran — the history entry, `run`'s text and JSON, and the watch loop's progress line (before:
`1/1 rows pass (-1)` after a full run of 3 rows, 2 passing, because the loop compared with all 3). The TUI's
status line (H5) reads the same counts: `IterationReport.row_counts`, and `RowFilter.keys_in` for a session's rows."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from helpers.cli import invoke_json, invoke_workbench
from helpers.paths import EXAMPLES

from workbench.config import load_config
from workbench.events import IterationReport, Trigger, TriggerKind
from workbench.model import Result, Verdict
from workbench.progress import LoopTracker
from workbench.project import load_project
from workbench.rescoring import RowFilter, planned_keys


def _result(row: str, verdict: Verdict) -> Result:
    return Result("default", "s.json", row, row, "e", verdict, 1.0 if verdict is Verdict.PASS else 0.0, "")


def test_the_loop_compares_only_the_rows_an_iteration_ran() -> None:
    known = [_result("a", Verdict.PASS), _result("b", Verdict.PASS), _result("c", Verdict.FAIL)]
    tracker = LoopTracker(3, known)  # seeded from history's last full iteration of the whole project
    narrowed = IterationReport(Trigger(TriggerKind.START), results=[_result("a", Verdict.PASS)], complete=True)
    assert narrowed.row_counts == (1, 1)
    summary = tracker.update(narrowed)
    assert (summary.rows_passed, summary.rows_total, summary.change) == (1, 1, 0)
    fixed = IterationReport(Trigger(TriggerKind.START), results=[_result("c", Verdict.PASS)], complete=True)
    assert tracker.update(fixed).change == 1  # c is new to the rows this session ran: a passing row more
    both = IterationReport(Trigger(TriggerKind.START), results=[_result("a", Verdict.FAIL),
                                                                _result("c", Verdict.PASS)])
    assert tracker.update(both).change == 0  # a broke, c (passing before) still passes
    assert both.row_counts == (1, 2)


def _support_bot(tmp_path: Path) -> Path:
    root = tmp_path / "support-bot"
    shutil.copytree(EXAMPLES / "support-bot", root)
    return root


def test_a_tag_session_counts_its_own_rows_in_history_run_and_watch(tmp_path: Path) -> None:
    root = _support_bot(tmp_path)
    _, doc = invoke_json("run", str(root))  # 3 rows, one failing: history's last full iteration
    assert len({r["row_name"] for r in doc["results"]}) == 3
    tagged, doc = invoke_json("run", str(root), "--tag", "smoke")
    assert tagged.returncode == 0 and doc["summary"]["total"] == 1
    text = invoke_workbench("run", str(root), "--tag", "smoke")
    assert text.stdout.splitlines()[-1].startswith("1 passed, 0 failed, 0 errors (1 result in ")
    watch = invoke_workbench("watch", str(root), "--plain", "--tag", "smoke", "--max-iterations", "1")
    line = next(line for line in watch.stdout.splitlines() if line.startswith("iteration "))
    assert re.match(r"iteration \d+ \(start\): 1/1 rows pass in [\d.]+s — all green$", line), line
    entries = json.loads(invoke_workbench("history", str(root), "--json").stdout)
    assert [(e["rows_passed"], e["rows_total"], e["partial"]) for e in entries] == [
        (2, 3, False), (1, 1, True), (1, 1, True), (1, 1, True)]


def test_keys_in_gives_the_rows_a_tag_session_counts(tmp_path: Path) -> None:
    root = _support_bot(tmp_path)
    config = load_config(root)
    project = load_project(root, config)
    keys = planned_keys(project, RowFilter().narrowed(("smoke",), ()))
    assert [key.row_id for key in keys] == ["greeting"]
    assert len(planned_keys(project, RowFilter())) == 3
