"""The CI gate run as a use case: `run_gate` returns a plain result the CLI only renders."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers.project import COMMAND_CONFIG, make_project, row

from workbench.actions.gate import gate_request, run_gate
from workbench.baseline import BaselineError
from workbench.config import load_config
from workbench.errors import WorkbenchError
from workbench.history import DB_NAME


def project(tmp_path: Path, answers: dict[str, str]) -> Path:
    """One row per answer; each expects "A", so any other answer fails."""
    rows = [row(name, {"output": {"answer": answer}}, {"answer": "A"}) for name, answer in answers.items()]
    return make_project(tmp_path, sets={"qa": rows}, config=COMMAND_CONFIG)


def test_a_passing_suite_passes_the_gate_and_is_recorded(tmp_path: Path) -> None:
    root = project(tmp_path, {"a": "A", "b": "A"})
    config = load_config(root)
    run = run_gate(config, gate_request(config))
    assert run.passed and run.gate.passed and run.gate.reasons == []
    assert run.gate.result_pass_rate == 1.0 and run.report.summary.passed == 2
    assert run.check is None and run.baseline_update is None and run.history_problem is None
    assert (config.state_dir / DB_NAME).is_file()
    assert run.json_fields()["gate"]["passed"] is True and "baseline" not in run.json_fields()


def test_events_stream_to_the_sink_while_it_runs(tmp_path: Path) -> None:
    root = project(tmp_path, {"a": "A"})
    config = load_config(root)
    seen: list[str] = []
    run_gate(config, gate_request(config), lambda event: seen.append(type(event).__name__))
    assert seen[0] == "IterationStarted" and "ResultReady" in seen


def test_a_row_that_passed_on_the_baseline_and_fails_now_fails_the_gate(tmp_path: Path) -> None:
    root = project(tmp_path, {"a": "A", "b": "A"})
    config = load_config(root)
    blessed = run_gate(config, gate_request(config, update_baseline=True))
    assert blessed.passed and blessed.baseline_update is not None and blessed.baseline_update.written
    baseline_file = root / "workbench-baseline.json"
    assert json.loads(baseline_file.read_text())["summary"] == {"total": 2, "passed": 2}

    set_file = root / "evals/default/eval-sets/qa.json"
    doc = json.loads(set_file.read_text())
    doc["evaluations"][0]["inputs"] = {"output": {"answer": "B"}}  # row a now answers wrong
    set_file.write_text(json.dumps(doc))
    run = run_gate(config, gate_request(config, min_pass_rate=0.5))
    assert not run.passed and run.check is not None
    assert [r.result.label for r in run.check.newly_failing] == ["a"]
    assert run.gate.reasons == ["1 newly failing against the baseline"]
    fields = run.json_fields()
    assert fields["baseline"]["path"] == str(baseline_file) and len(fields["baseline"]["newly_failing"]) == 1


def test_a_suite_below_the_minimum_is_not_blessed(tmp_path: Path) -> None:
    root = project(tmp_path, {"a": "A", "b": "wrong"})
    config = load_config(root)
    run = run_gate(config, gate_request(config, update_baseline=True))
    assert run.baseline_update is not None and not run.baseline_update.written
    assert run.baseline_update.problem == ("baseline NOT updated (workbench-baseline.json left as it was): "
                                           "pass rate 1/2 (50.0%) is below the minimum 100.0%")
    assert not run.passed and not (root / "workbench-baseline.json").exists()
    assert run.json_fields()["baseline_written"] is False


def test_a_partial_run_without_history_records_nothing(tmp_path: Path) -> None:
    root = project(tmp_path, {"a": "A", "b": "wrong"})
    config = load_config(root)
    run = run_gate(config, gate_request(config, rows=("a",), record=False))
    assert run.passed and [r.label for r in run.report.results] == ["a"]
    assert not (config.state_dir / DB_NAME).exists()


def test_a_name_that_selects_nothing_is_a_usage_error_listing_what_exists(tmp_path: Path) -> None:
    root = project(tmp_path, {"a": "A"})
    config = load_config(root)
    with pytest.raises(WorkbenchError) as caught:
        run_gate(config, gate_request(config, sets=("qa",), rows=("zzz",)))
    assert caught.value.exit_code == 2
    assert str(caught.value) == "nothing matches row 'zzz' (eval sets: qa; rows: 'a')"


def test_a_broken_baseline_stops_before_anything_runs(tmp_path: Path) -> None:
    root = project(tmp_path, {"a": "A"})
    (root / "workbench-baseline.json").write_text("{not json")
    config = load_config(root)
    with pytest.raises(BaselineError, match=r"workbench-baseline\.json: not valid JSON"):
        run_gate(config, gate_request(config))
    assert not (config.state_dir / DB_NAME).exists()
