"""A partial run (`--set`/`--row`) in a project that mixes scenarios with UiPath sets: when it selects no
scenario, the scenario gate is not judged (no "no scenario ran", no `gate.scenarios`, its baseline left
alone); when it names one, that gate judges it as a full run would. The seed's gate (000) counts the
scenarios a run ran; a run that chose to run none has nothing for it to count."""

from __future__ import annotations

import shutil
from pathlib import Path

from helpers.cli import invoke_json, invoke_workbench
from helpers.paths import EXAMPLES
from helpers.project import evaluator, make_project, row

from workbench.dialects.base import GateAsk
from workbench.dialects.scenarios.gate_run import prepare_scenarios
from workbench.events import IterationReport, Trigger
from workbench.project import load_project

SCENARIO_BASELINE = Path(".appilots") / "eval-baseline.json"
PASSING = "submits-and-does-nothing-else"


def mixed_project(where: Path) -> Path:
    """examples/form-agent (five scenarios, one failing) plus a UiPath set `grading` its agent passes."""
    root = where / "mixed"
    shutil.copytree(EXAMPLES / "form-agent", root,
                    ignore=shutil.ignore_patterns("__pycache__", ".workbench", "eval-baseline.json"))
    return make_project(root, sets={"grading": [row("sends", {"when": "please submit"}, {"reply": "Sent."})]},
                        evaluators={"exact-match-evaluator": evaluator("reply")}, config=None)


def test_a_partial_run_selecting_no_scenario_leaves_their_gate_out(tmp_path: Path) -> None:
    root = mixed_project(tmp_path)
    proc = invoke_workbench("run", str(root), "--set", "grading", "--no-history")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "no scenario ran" not in proc.stdout + proc.stderr
    assert "scenarios:" not in proc.stdout
    proc, doc = invoke_json("run", str(root), "--row", "sends", "--no-history")
    assert proc.returncode == 0 and doc["passed"] is True
    assert "scenarios" not in doc["gate"] and doc["gate"]["reasons"] == []


def test_updating_from_a_partial_run_without_scenarios_leaves_their_baseline_alone(tmp_path: Path) -> None:
    root = mixed_project(tmp_path)
    original = b'{ "scenarios": {"keeps-card-number-private": {"passed": true, "tokens": 1}} }\n'
    (root / SCENARIO_BASELINE).write_bytes(original)
    proc = invoke_workbench("run", str(root), "--set", "grading", "--update-baseline", "--no-history")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "scenario baseline" not in proc.stdout + proc.stderr
    assert (root / SCENARIO_BASELINE).read_bytes() == original
    assert (root / "workbench-baseline.json").is_file()


def test_a_partial_run_naming_a_scenario_still_judges_their_gate(tmp_path: Path) -> None:
    root = mixed_project(tmp_path)
    proc, doc = invoke_json("run", str(root), "--row", PASSING, "--no-history")
    assert proc.returncode == 0
    assert (doc["gate"]["scenarios"]["total"], doc["gate"]["scenarios"]["passed_count"]) == (1, 1)
    proc = invoke_workbench("run", str(root), "--row", "keeps-card-number-private", "--no-history")
    assert proc.returncode == 1
    assert "scenarios: 0/1 pass (0.0%, minimum 95.0%)" in proc.stdout


def test_a_full_run_with_no_scenario_result_still_says_so(tmp_path: Path) -> None:
    """Only a partial run may leave the gate out: a full run that ran no scenario fails it, as before."""
    project = load_project(mixed_project(tmp_path))
    empty = IterationReport(trigger=Trigger("run"), project=project)
    full = prepare_scenarios(project, GateAsk())
    partial = prepare_scenarios(project, GateAsk(partial=True))
    assert full is not None and partial is not None
    verdict = full.judge(empty)
    assert verdict is not None and verdict.reasons == ["no scenario ran"]
    assert partial.judge(empty) is None
