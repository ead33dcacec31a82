"""The Appilots gate as engine functions (seed 000): newly failing scenarios, token regressions at and
just over the limit, new scenarios that never regress, the pass-rate minimum, and the baseline file —
written atomically, refused (byte-identical) below the minimum."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.scenarios import run_scenarios, scenario, scenario_project

from workbench.baseline import BaselineError
from workbench.dialects.scenarios import ScenarioSettings
from workbench.dialects.scenarios.gate import (
    ScenarioBaseline,
    ScenarioEntry,
    ScenarioRun,
    compare_scenarios,
    evaluate_scenario_gate,
    load_scenario_baseline,
    response_tokens,
    scenario_runs,
    update_scenario_baseline,
)
from workbench.model import Result, Verdict

PASS, FAIL, ERROR = Verdict.PASS, Verdict.FAIL, Verdict.ERROR


def settings(tmp_path: Path, min_pass_rate: float = 0.95, max_token_regression: float = 0.25) -> ScenarioSettings:
    return ScenarioSettings(dir=tmp_path / "scenarios", baseline=tmp_path / ".appilots" / "eval-baseline.json",
                            min_pass_rate=min_pass_rate, max_token_regression=max_token_regression)


def baseline(**entries: tuple[bool, int | None]) -> ScenarioBaseline:
    return ScenarioBaseline({name: ScenarioEntry(passed, tokens) for name, (passed, tokens) in entries.items()})


# -- token regressions ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("base", "fraction", "at_limit"), [(100, 0.25, 125), (100, 0.1, 110), (20, 0.15, 23),
                                                           (400, 0.0, 400), (3, 1.0, 6)])
def test_token_regression_at_exactly_the_limit_is_fine_and_one_over_is_not(base: int, fraction: float,
                                                                         at_limit: int) -> None:
    before = baseline(s=(True, base))
    at = compare_scenarios([ScenarioRun("s", PASS, at_limit)], before, fraction)
    assert not at.token_regressions
    over = compare_scenarios([ScenarioRun("s", PASS, at_limit + 1)], before, fraction)
    (regression,) = over.token_regressions
    assert regression.describe() == (f"token regression: s used {at_limit + 1} tokens, baseline {base} "
                                     f"(limit {at_limit})")


def test_only_a_scenario_passing_on_both_sides_can_regress_in_tokens() -> None:
    before = baseline(failed_before=(False, 10), no_tokens_before=(True, None), still=(True, 10))
    check = compare_scenarios([ScenarioRun("failed_before", PASS, 1000), ScenarioRun("no_tokens_before", PASS, 1000),
                               ScenarioRun("still", PASS, None)], before, 0.25)
    assert not check.regressions


# -- newly failing and new scenarios ---------------------------------------------------------------------------


def test_a_scenario_that_passed_and_now_fails_or_errors_is_newly_failing() -> None:
    before = baseline(a=(True, 10), b=(True, 10), c=(False, 10))
    check = compare_scenarios([ScenarioRun("a", FAIL, 10), ScenarioRun("b", ERROR), ScenarioRun("c", FAIL, 10)],
                              before, 0.25)
    assert [r.run.name for r in check.newly_failing] == ["a", "b"]
    assert check.newly_failing[1].describe() == "newly failing: b passed on the baseline, now ERROR"


def test_a_new_scenario_never_regresses() -> None:
    before = baseline(old=(True, 10))
    runs = [ScenarioRun("old", PASS, 10), ScenarioRun("new failing", FAIL, 99999),
            ScenarioRun("new costly", PASS, 99999)]
    check = compare_scenarios(runs, before, 0.0)
    assert not check.regressions
    assert check.new == ["new failing", "new costly"]


# -- the gate ----------------------------------------------------------------------------------------------------


def test_the_pass_rate_reaches_the_minimum_exactly(tmp_path: Path) -> None:
    runs = [ScenarioRun(f"s{i}", PASS) for i in range(19)] + [ScenarioRun("s19", FAIL)]
    assert evaluate_scenario_gate(runs, settings(tmp_path), None).passed  # 19/20 = 0.95
    runs[0] = ScenarioRun("s0", ERROR)
    gate = evaluate_scenario_gate(runs, settings(tmp_path), None)
    assert gate.reasons == ["scenario pass rate 18/20 (90.0%) is below the minimum 95.0%"]


def test_the_gate_names_every_reason_and_which_scenarios(tmp_path: Path) -> None:
    before = baseline(a=(True, 100), b=(True, 100), c=(True, 100))
    runs = [ScenarioRun("a", FAIL, 100), ScenarioRun("b", PASS, 126), ScenarioRun("c", PASS, 125)]
    gate = evaluate_scenario_gate(runs, settings(tmp_path), before)
    assert not gate.passed
    assert gate.reasons == ["scenario pass rate 2/3 (66.7%) is below the minimum 95.0%",
                            "1 scenario(s) newly failing against the baseline: a",
                            "1 token regression(s) over +25%: b"]
    doc = gate.to_json(tmp_path)
    assert [r["scenario"] for r in doc["newly_failing"]] == ["a"]
    assert doc["token_regressions"][0] | {"detail": ""} == {
        "kind": "token_regression", "scenario": "b", "verdict": "PASS", "tokens": 126, "limit": 125.0,
        "baseline": {"passed": True, "tokens": 100}, "detail": ""}
    assert doc["baseline"] == ".appilots/eval-baseline.json" and doc["baseline_found"] is True
    assert gate.lines(tmp_path) == [
        "scenarios: 2/3 pass (66.7%, minimum 95.0%), against .appilots/eval-baseline.json",
        "  newly failing: a passed on the baseline, now FAIL",
        "  token regression: b used 126 tokens, baseline 100 (limit 125)",
    ]


def test_a_regression_fails_the_gate_even_when_the_pass_rate_is_fine(tmp_path: Path) -> None:
    before = baseline(a=(True, 100))
    assert evaluate_scenario_gate([ScenarioRun("a", PASS, 125)], settings(tmp_path), before).passed
    assert not evaluate_scenario_gate([ScenarioRun("a", PASS, 126)], settings(tmp_path), before).passed
    loose = settings(tmp_path, min_pass_rate=0.0)
    assert not evaluate_scenario_gate([ScenarioRun("a", FAIL, 100)], loose, before).passed


def test_nothing_ran(tmp_path: Path) -> None:
    assert evaluate_scenario_gate([], settings(tmp_path), None).reasons == ["no scenario ran"]
    assert evaluate_scenario_gate([], settings(tmp_path), None, allow_empty=True).passed


# -- the baseline file -----------------------------------------------------------------------------------------


def test_update_refused_below_the_minimum_leaves_the_file_byte_identical(tmp_path: Path) -> None:
    target = settings(tmp_path).baseline
    target.parent.mkdir(parents=True)
    original = b'{"scenarios": {"a": {"passed": true, "tokens": 5}},   "note": "hand-formatted"}'
    target.write_bytes(original)
    stat_before = target.stat()
    update = update_scenario_baseline([ScenarioRun("a", PASS, 5), ScenarioRun("b", FAIL, 5)], settings(tmp_path))
    assert not update.written
    assert update.reason == "scenario pass rate 1/2 (50.0%) is below the minimum 95.0%; fix the failures first"
    assert target.read_bytes() == original
    assert target.stat().st_mtime_ns == stat_before.st_mtime_ns
    assert sorted(p.name for p in target.parent.iterdir()) == ["eval-baseline.json"]  # no temp file left


def test_update_refused_when_nothing_ran_creates_nothing(tmp_path: Path) -> None:
    update = update_scenario_baseline([], settings(tmp_path))
    assert not update.written and not settings(tmp_path).baseline.exists()


def test_update_writes_and_round_trips(tmp_path: Path) -> None:
    runs = [ScenarioRun("zeta", PASS, 40), ScenarioRun("alpha", PASS, None), ScenarioRun("mid", FAIL, 7)]
    update = update_scenario_baseline(runs, settings(tmp_path, min_pass_rate=0.6))
    assert update.written
    text = update.path.read_text(encoding="utf-8")
    assert list(load_scenario_baseline(update.path).entries) == ["alpha", "mid", "zeta"]  # type: ignore[union-attr]
    assert load_scenario_baseline(update.path).entries == {  # type: ignore[union-attr]
        "alpha": ScenarioEntry(True, None), "mid": ScenarioEntry(False, 7), "zeta": ScenarioEntry(True, 40)}
    assert '"passRate": 0.6667' in text and text.endswith("}\n")
    assert sorted(p.name for p in update.path.parent.iterdir()) == ["eval-baseline.json"]


def test_a_partial_run_keeps_the_other_entries(tmp_path: Path) -> None:
    before = baseline(a=(True, 1), b=(False, 2))
    written = ScenarioBaseline.from_runs([ScenarioRun("b", PASS, 3)], keep=before)
    assert written.entries == {"a": ScenarioEntry(True, 1), "b": ScenarioEntry(True, 3)}


@pytest.mark.parametrize(("content", "message"), [
    (b"{nope", "not valid JSON"),
    (b'{"results": []}', "not a scenario baseline"),
    (b'{"scenarios": {"a": {"passed": "yes"}}}', "scenario 'a' has no boolean \"passed\""),
])
def test_an_unusable_baseline_is_named(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "b.json"
    path.write_bytes(content)
    with pytest.raises(BaselineError, match=message) as caught:
        load_scenario_baseline(path)
    assert str(path) in str(caught.value)


def test_missing_baseline_is_none_and_a_list_form_is_read(tmp_path: Path) -> None:
    assert load_scenario_baseline(tmp_path / "none.json") is None
    path = tmp_path / "list.json"
    path.write_text('{"scenarios": [{"name": "a", "passed": true, "tokens": 12}]}', encoding="utf-8")
    assert load_scenario_baseline(path).entries == {"a": ScenarioEntry(True, 12)}  # type: ignore[union-attr]


# -- runs from an iteration: which results are scenarios, and their tokens --------------------------------------


@pytest.mark.parametrize(("usage", "tokens"), [({"tokens": 12}, 12), ({"input_tokens": 5, "output_tokens": 7}, 12),
                                               ({"input_tokens": 5}, 5), ({"tokens": -1}, None), ({}, None),
                                               ({"tokens": True}, None), ("12", None)])
def test_response_tokens(usage: object, tokens: int | None) -> None:
    assert response_tokens({"actions": [], "usage": usage}) == tokens


def test_scenario_runs_come_from_the_scenario_rows_with_their_tokens(tmp_path: Path) -> None:
    root = scenario_project(tmp_path, {"a": scenario("asks", "delete", {"mode": "none"}),
                                       "b": scenario("clicks", "submit", {"actions": [{"type": "click"}]}),
                                       "c": {"name": "broken", "when": "x"}})
    report = run_scenarios(root, lambda request: {"actions": [], "reply": "?",
                                                  "usage": {"tokens": len(request["when"])}})
    runs = scenario_runs(report.results, report.project)  # type: ignore[arg-type]
    assert runs == [ScenarioRun("asks", PASS, 6), ScenarioRun("clicks", FAIL, 6), ScenarioRun("broken", ERROR, None)]
    trace_result = Result("scenarios", "scenarios", "asks", "asks", "expect", PASS, 1.0, "",
                          actual={"usage": {"tokens": 1}}, trace=[{"type": "usage", "tokens": 30}])
    assert scenario_runs([trace_result], report.project)[0].tokens == 30  # type: ignore[arg-type]
    other = Result("default", "qa.json", "r", "r", "exact", PASS, 1.0, "")
    assert scenario_runs([other], report.project) == []  # type: ignore[arg-type]
