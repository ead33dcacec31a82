"""`[runner] repeat = N` / `--repeat N`: every row runs N independent times, its result carries k/N passing
samples, the row passes when k/N ≥ `[gate] row_pass_rate`, and 0 < k < N is flaky — in the text report, JSON,
JUnit and history; every sample is kept, and re-scoring re-scores every recorded sample."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from helpers.cli import invoke_json, invoke_workbench, result_for
from helpers.project import make_project, row
from helpers.repeats import SEEDED, seeded_passes, seeded_row_with

from workbench.config import load_config
from workbench.history import HistoryStore

P = 0.6


def seeded_project(tmp_path: Path, row_ids: list[str], *, gate: dict[str, Any] | None = None,
                   repeat: int | None = 5) -> Path:
    runner: dict[str, Any] = {"kind": "command", "command": ["{python}", "seeded.py"], "timeout": 20}
    if repeat is not None:
        runner["repeat"] = repeat
    tables: dict[str, Any] = {"runner": runner}
    if gate:
        tables["gate"] = gate
    return make_project(tmp_path / "proj", sets={"draws": [row(r, {"p": P}, {"ok": True}, id=r) for r in row_ids]},
                        config=tables, files={"seeded.py": SEEDED})


def test_seeded_target_gives_k_of_5_and_flaky(tmp_path: Path) -> None:
    flaky_id = seeded_row_with(3)
    steady_id = seeded_row_with(5)
    root = seeded_project(tmp_path, [flaky_id, steady_id])
    proc, doc = invoke_json("run", str(root))
    assert proc.returncode == 1, proc.stdout
    flaky = result_for(doc, flaky_id)
    assert (flaky["passed_samples"], flaky["sample_count"], flaky["flaky"]) == (3, 5, True)
    assert flaky["verdict"] == "FAIL"  # row_pass_rate defaults to 1.0: every sample must pass
    expected = seeded_passes(flaky_id, P, 5)
    assert [s["verdict"] == "PASS" for s in flaky["samples"]] == expected
    config = load_config(root)
    with HistoryStore.open(config) as store:
        number = store.latest_number()
        assert number is not None
        stored = next(r for r in store.results(number) if r.row_id == flaky_id)
    assert [f"drawing sample {i}" in s.log for i, s in enumerate(stored.samples)] == [True] * 5  # WORKBENCH_SAMPLE
    steady = result_for(doc, steady_id)
    assert (steady["passed_samples"], steady["verdict"]) == (5, "PASS") and "flaky" not in steady


def test_row_pass_rate_passes_a_3_of_5_row(tmp_path: Path) -> None:
    flaky_id = seeded_row_with(3)
    root = seeded_project(tmp_path, [flaky_id, seeded_row_with(2)], gate={"row_pass_rate": 0.6})
    proc, doc = invoke_json("run", str(root))
    results = {r["row_id"]: r for r in doc["results"]}
    assert results[flaky_id]["verdict"] == "PASS" and results[flaky_id]["flaky"] is True
    others = [r for key, r in results.items() if key != flaky_id]
    assert others[0]["passed_samples"] == 2 and others[0]["verdict"] == "FAIL"  # 2/5 < 0.6
    assert proc.returncode == 1
    root2 = seeded_project(tmp_path / "b", [flaky_id], gate={"row_pass_rate": 0.6})
    assert invoke_workbench("run", str(root2)).returncode == 0


def test_repeat_flag_and_text_junit_history(tmp_path: Path) -> None:
    flaky_id = seeded_row_with(3)
    root = seeded_project(tmp_path, [flaky_id], repeat=None)
    junit = tmp_path / "junit.xml"
    proc = invoke_workbench("run", str(root), "--repeat", "5", "--junit", str(junit))
    assert proc.returncode == 1
    assert "3/5 flaky" in proc.stdout
    case = ET.parse(junit).getroot().find(".//testcase")
    assert case is not None and "3/5" in case.get("name", "") and "flaky" in case.get("name", "")
    assert case.find("failure") is not None
    config = load_config(root)
    with HistoryStore.open(config) as store:
        number = store.latest_number()
        assert number is not None
        (result,) = store.results(number)
        assert result.samples_text == "3/5" and result.sample_flaky
        assert [s.log.strip() for s in result.samples] == [f"drawing sample {i}" for i in range(5)]  # each its own
        assert all(s.duration_ms > 0 for s in result.samples)
        flaky = store.flaky_rows()
    assert [(f.key.row_id, f.samples) for f in flaky] == [(flaky_id, "3/5")]
    listed = invoke_workbench("history", str(root), "--flaky")
    assert listed.returncode == 0 and flaky_id in listed.stdout and "3/5" in listed.stdout


def test_rescoring_rescores_every_sample_and_never_a_different_count(tmp_path: Path) -> None:
    flaky_id = seeded_row_with(3)
    root = seeded_project(tmp_path, [flaky_id], gate={"row_pass_rate": 0.6})
    first = invoke_json("run", str(root))[1]
    assert result_for(first, flaky_id)["verdict"] == "PASS"
    # an expectation edit: every recorded sample is scored again against it, nothing runs
    doc_path = root / "evals" / "default" / "eval-sets" / "draws.json"
    document = json.loads(doc_path.read_text())
    document["evaluations"][0]["evaluationCriterias"]["exact-match-evaluator"]["expectedOutput"] = {"ok": False}
    doc_path.write_text(json.dumps(document))
    proc, second = invoke_json("run", str(root), "--reuse")
    again = result_for(second, flaky_id)
    assert again.get("reused") is True, proc.stdout
    assert again["passed_samples"] == 2 and again["sample_count"] == 5 and again["verdict"] == "FAIL"
    assert [s["actual"] for s in again["samples"]] == [s["actual"] for s in result_for(first, flaky_id)["samples"]]
    # a different repeat count is never taken as complete: the row runs, all 3 samples
    proc, third = invoke_json("run", str(root), "--reuse", "--repeat", "3", "--explain-reuse")
    fresh = result_for(third, flaky_id)
    assert "reused" not in fresh and fresh["sample_count"] == 3


def test_history_written_before_repeats_still_reads(tmp_path: Path) -> None:
    """A history database from before samples existed (no samples/row_runs tables) opens, reads back its
    results as single runs, and takes repeated iterations from then on."""
    import sqlite3

    root = seeded_project(tmp_path, [seeded_row_with(5)], repeat=None)
    HistoryStore.open(load_config(root)).close()  # today's schema, then back to the one before repeats
    db = sqlite3.connect(root / ".workbench" / "history.sqlite3")
    db.executescript("DROP TABLE samples; DROP TABLE row_runs;")
    db.execute("INSERT INTO iterations VALUES (1, '2026-01-01T00:00:00+00:00', '2026-01-01T00:00:01+00:00', 'run', "
               "'[]', 0, 1, 1, 0, 0, 1, 1, 0.5, '[]')")
    db.execute("INSERT INTO results VALUES (1, 0, 'default', 'draws.json', 'old', 'old', 'exact-match-evaluator', "
               "'uipath-exact-match', 'PASS', 1.0, '', '{\"ok\": true}', '{\"ok\": true}', 12.0, '[]', 'log')")
    db.commit()
    db.close()
    with HistoryStore.open(load_config(root)) as store:
        (old,) = store.results(1)
        assert old.samples == [] and not old.flaky and old.passed
    assert invoke_workbench("run", str(root), "--repeat", "2").returncode == 0
    with HistoryStore.open(load_config(root)) as store:
        (new,) = store.results(2)
        assert new.samples_text == "2/2"
        assert store.results(1)[0].samples == []


def test_repeat_is_a_flag_of_every_loop_command_and_checked_like_the_file(tmp_path: Path) -> None:
    for command in ("run", "watch", "open"):
        assert "--repeat" in invoke_workbench(command, "--help").stdout
    root = seeded_project(tmp_path, [seeded_row_with(5)], repeat=None)
    refused = invoke_workbench("run", str(root), "--repeat", "0")
    assert refused.returncode == 2 and "--repeat" in refused.stderr + refused.stdout


def test_a_session_rescores_every_sample_it_kept_and_reruns_on_another_count(tmp_path: Path) -> None:
    """The loop's own memory: an expectation edit re-scores all five samples, none runs; a settings edit to
    repeat = 3 runs the row again (a record of 5 samples is never taken for 3)."""
    import asyncio

    from workbench.events import Event, RowLog, Trigger, TriggerKind
    from workbench.session import Session

    flaky_id = seeded_row_with(3)
    root = seeded_project(tmp_path, [flaky_id], gate={"row_pass_rate": 0.6})
    logged: list[str] = []

    def on_event(event: Event) -> None:
        if isinstance(event, RowLog):
            logged.append(event.line)

    async def main() -> tuple[Any, Any, Any]:
        session = Session(load_config(root), on_event=on_event)
        try:
            first = await session.iterate_now(Trigger(TriggerKind.START))
            doc_path = root / "evals" / "default" / "eval-sets" / "draws.json"
            document = json.loads(doc_path.read_text())
            document["evaluations"][0]["evaluationCriterias"]["exact-match-evaluator"]["expectedOutput"] = {
                "ok": False}
            doc_path.write_text(json.dumps(document))
            runs_before = len(logged)
            second = await session.iterate_now(Trigger(TriggerKind.CHANGE, ("evals/default/eval-sets/draws.json",)))
            assert runs_before >= 5 and len(logged) == runs_before  # five samples ran, then nothing
            toml = root / "workbench.toml"
            toml.write_text(toml.read_text().replace("repeat = 5", "repeat = 3"))
            third = await session.iterate_now(Trigger(TriggerKind.CHANGE, ("workbench.toml",)))
        finally:
            await session.aclose()
        return first, second, third

    first, second, third = asyncio.run(main())
    assert first is not None and second is not None and third is not None
    (one,), (two,), (three,) = first.results, second.results, third.results
    assert one.samples_text == "3/5" and one.passed
    assert two.reused and two.samples_text == "2/5" and not two.passed  # all five re-scored against false
    assert [s.actual for s in two.samples] == [s.actual for s in one.samples]
    assert not three.reused and len(three.samples) == 3
