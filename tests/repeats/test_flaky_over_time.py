"""Flaky without repeats: a row whose verdict changes between two iterations on the very same ground (the
World fingerprint, what the row hands its target, the files it read, how it is scored) is marked flaky in
history, listed by `workbench history --flaky`, and `[gate] flaky` decides what the gate does: "fail" (the
default — a lucky pass must never be a green) or "warn"."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from helpers.cli import cli_env, invoke_json, invoke_workbench, result_for
from helpers.project import make_project, row
from helpers.repeats import ALTERNATING

from workbench.config import load_config
from workbench.history import HistoryStore


def alternating_project(tmp_path: Path, gate: dict[str, Any] | None = None) -> tuple[Path, dict[str, str]]:
    tables: dict[str, Any] = {"runner": {"kind": "command", "command": ["{python}", "alternating.py"], "timeout": 20}}
    if gate:
        tables["gate"] = gate
    root = make_project(tmp_path / "proj", sets={"coin": [row("coin", {}, {"ok": True}, id="coin")]}, config=tables,
                        files={"alternating.py": ALTERNATING})
    return root, cli_env(COUNTER_FILE=str(tmp_path / "counter"))  # outside the project: not part of the world


def test_a_verdict_change_on_the_same_ground_is_flaky_and_fails_the_gate(tmp_path: Path) -> None:
    root, env = alternating_project(tmp_path)
    _, doc1 = invoke_json("run", str(root), env=env)
    assert result_for(doc1, "coin")["verdict"] == "FAIL" and "flaky" not in result_for(doc1, "coin")
    second = invoke_workbench("run", str(root), env=env)
    assert "flaky:" in second.stdout and "not in iteration 1" in second.stdout, second.stdout
    assert second.returncode == 1, second.stdout  # every result passed, yet the gate fails: not a green
    assert "gate failed: 1 flaky row" in second.stdout
    with HistoryStore.open(load_config(root)) as store:
        (result,) = store.results(2)
        assert result.passed and result.flaky_since == 1
        rows = store.flaky_rows()
    assert [(r.key.row_id, r.iteration, r.since) for r in rows] == [("coin", 2, 1)]
    listed = invoke_workbench("history", str(root), "--flaky", env=env)
    assert "coin" in listed.stdout and "not in iteration 1" in listed.stdout
    listed_json = json.loads(invoke_workbench("history", str(root), "--flaky", "--json", env=env).stdout)
    assert listed_json[0]["row_id"] == "coin" and listed_json[0]["flaky_since"] == 1


def test_gate_flaky_warn_says_so_and_passes(tmp_path: Path) -> None:
    root, env = alternating_project(tmp_path, gate={"flaky": "warn"})
    invoke_workbench("run", str(root), env=env)
    proc, doc = invoke_json("run", str(root), env=env)
    assert proc.returncode == 0
    assert doc["gate"]["flaky"] == "warn" and "1 flaky row" in doc["gate"]["warnings"][0]
    assert result_for(doc, "coin")["flaky"] is True and result_for(doc, "coin")["flaky_since"] == 1
    text = invoke_workbench("run", str(root), env=env)  # FAIL now: fails as a FAIL, and is still flaky
    assert text.returncode == 1 and "flaky:" in text.stdout


def test_a_changed_ground_is_not_flaky(tmp_path: Path) -> None:
    """A project file edit (the world) or an expectation edit (the scoring) between the two runs explains
    the flip: not flaky."""
    root, env = alternating_project(tmp_path / "world")
    assert invoke_workbench("run", str(root), env=env).returncode == 1  # {"ok": false}: FAIL
    (root / "notes.txt").write_text("a project file: part of the world\n")
    second = invoke_workbench("run", str(root), env=env)  # {"ok": true}: PASS, in another world
    assert second.returncode == 0 and "flaky" not in second.stdout, second.stdout

    root, env = alternating_project(tmp_path / "scoring")
    assert invoke_workbench("run", str(root), env=env).returncode == 1  # {"ok": false} against true: FAIL
    with open(tmp_path / "scoring" / "counter", "a") as counter:
        counter.write("x")  # the next run answers {"ok": false} again: the same output
    set_file = root / "evals" / "default" / "eval-sets" / "coin.json"
    document = json.loads(set_file.read_text())
    document["evaluations"][0]["evaluationCriterias"]["exact-match-evaluator"]["expectedOutput"] = {"ok": False}
    set_file.write_text(json.dumps(document))
    third = invoke_workbench("run", str(root), env=env)  # the same output against false: PASS, other scoring
    assert third.returncode == 0 and "flaky" not in third.stdout, third.stdout
    with HistoryStore.open(load_config(root)) as store:
        assert store.flaky_rows() == []


def test_history_n_shows_the_flaky_mark(tmp_path: Path) -> None:
    root, env = alternating_project(tmp_path)
    invoke_workbench("run", str(root), env=env)
    invoke_workbench("run", str(root), env=env)
    shown = invoke_workbench("history", str(root), "2", env=env)
    assert "flaky (not PASS in iteration 1)" in shown.stdout, shown.stdout
