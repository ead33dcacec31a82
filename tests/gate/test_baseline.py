"""Baselines and the CI gate through `workbench run`: blessing a run, refusing a bad one, and flagging
newly-failing, slower and costlier results against the committed file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from helpers.cli import cli_env, invoke_json, invoke_workbench
from helpers.project import make_project, row

from workbench.baseline import Baseline, BaselineEntry, compare_with_baseline
from workbench.model import Result, Verdict

BASELINE = "workbench-baseline.json"

# Answers from ANSWERS; sleeps $SLOW_MS first; reports $TOKENS tokens as a trace usage event.
TARGET = """\
import json, os, sys, time

ANSWERS = {answers!r}

inputs = json.load(sys.stdin)
time.sleep(float(os.environ.get("SLOW_MS", "0")) / 1000)
if os.environ.get("TOKENS"):
    with open(os.environ["WORKBENCH_TRACE"], "a") as trace:
        trace.write(json.dumps({{"type": "usage", "tokens": int(os.environ["TOKENS"])}}) + "\\n")
print(json.dumps({{"answer": ANSWERS.get(inputs["q"], "?")}}))
"""


def write_target(root: Path, answers: dict[str, str]) -> None:
    (root / "target.py").write_text(TARGET.format(answers=answers), encoding="utf-8")


def project(tmp_path: Path, answers: dict[str, str], questions: str = "ab",
            extra: dict[str, dict[str, Any]] | None = None) -> Path:
    config: dict[str, dict[str, Any]] = {
        "runner": {"kind": "command", "command": ["{python}", "target.py"], "timeout": 60}}
    config.update(extra or {})
    root = make_project(tmp_path / "project", config=config,
                        sets={"qa": [row(f"question {q}", {"q": q}, {"answer": q.upper()}, id=f"id-{q}")
                                     for q in questions]})
    write_target(root, answers)
    return root


def run(root: Path, *args: str, **env: str) -> Any:
    return invoke_workbench("run", str(root), *args, env=cli_env(**env))


def run_doc(root: Path, *args: str, **env: str) -> tuple[Any, dict[str, Any]]:
    return invoke_json("run", str(root), *args, env=cli_env(**env))


def regressions(doc: dict[str, Any], kind: str) -> list[str]:
    return [item["row_name"] for item in doc["baseline"][kind]]


# -- writing the baseline --------------------------------------------------------------------------


def test_update_baseline_writes_a_sorted_diff_friendly_file(tmp_path: Path) -> None:
    root = project(tmp_path, {"c": "C", "a": "A", "b": "B"}, questions="cab")
    proc = run(root, "--update-baseline")
    assert proc.returncode == 0, proc.stderr
    assert f"baseline written: {root / BASELINE} (3 results, pass rate 100.0%)" in proc.stdout
    text = (root / BASELINE).read_text(encoding="utf-8")
    assert text.endswith("}\n") and "\n  " in text  # indented, one key per line, newline at the end
    doc = json.loads(text)
    assert doc["version"] == 1 and doc["summary"] == {"total": 3, "passed": 3}
    assert [r["row_id"] for r in doc["results"]] == ["id-a", "id-b", "id-c"]  # sorted, not in file order
    first = doc["results"][0]
    assert {k: first[k] for k in ("scope", "set", "row_id", "row_name", "evaluator", "passed")} == {
        "scope": "default", "set": "qa.json", "row_id": "id-a", "row_name": "question a",
        "evaluator": "exact-match-evaluator", "passed": True}
    assert first["duration_ms"] > 0 and "tokens" not in first

    # Blessing again changes only the timestamp and the durations: a reviewable diff.
    assert run(root, "--update-baseline").returncode == 0
    again = (root / BASELINE).read_text(encoding="utf-8")
    changed = [(old, new) for old, new in zip(text.splitlines(), again.splitlines(), strict=True) if old != new]
    assert all('"created_at"' in old or '"duration_ms"' in old for old, _ in changed), changed


def test_update_baseline_refuses_below_the_minimum_pass_rate_and_leaves_the_file_alone(tmp_path: Path) -> None:
    root = project(tmp_path, {"a": "A", "b": "B"})
    assert run(root, "--update-baseline").returncode == 0
    before = (root / BASELINE).read_bytes()

    write_target(root, {"a": "A", "b": "wrong"})
    proc = run(root, "--update-baseline")
    assert proc.returncode == 1
    assert (f"baseline NOT updated ({BASELINE} left as it was): pass rate 1/2 (50.0%) is below the minimum "
            "100.0%") in proc.stderr
    assert (root / BASELINE).read_bytes() == before

    proc, doc = run_doc(root, "--update-baseline")
    assert proc.returncode == 1 and doc["baseline_written"] is False
    assert (root / BASELINE).read_bytes() == before

    # A lower bar, on the command line or in the config, lets it through.
    assert run(root, "--update-baseline", "--min-pass-rate", "0.5").returncode == 0
    assert json.loads((root / BASELINE).read_text())["summary"] == {"total": 2, "passed": 1}


def test_update_baseline_with_no_file_and_a_failing_suite_creates_nothing(tmp_path: Path) -> None:
    root = project(tmp_path, {"a": "A", "b": "wrong"})
    assert run(root, "--update-baseline").returncode == 1
    assert not (root / BASELINE).exists()
    assert not [p for p in root.iterdir() if "wb-tmp" in p.name]  # no temp file left behind


def test_the_minimum_pass_rate_and_baseline_path_come_from_the_config(tmp_path: Path) -> None:
    root = project(tmp_path, {"a": "A", "b": "wrong"},
                   extra={"baseline": {"min_pass_rate": 0.5, "path": "ci/baseline.json"}})
    proc = run(root, "--update-baseline")
    assert proc.returncode == 0, proc.stderr
    assert (root / "ci" / "baseline.json").is_file() and not (root / BASELINE).exists()
    assert run(root).returncode == 0  # 1/2 meets the configured minimum, nothing regressed
    assert run(root, "--min-pass-rate", "1").returncode == 1  # the flag wins over the config


# -- regressions against the baseline -----------------------------------------------------------------


def test_a_newly_failing_result_is_flagged_in_text_and_json_and_fails_the_gate(tmp_path: Path) -> None:
    root = project(tmp_path, {"a": "A", "b": "B"})
    assert run(root, "--update-baseline").returncode == 0
    write_target(root, {"a": "A", "b": "wrong"})

    proc = run(root, "--min-pass-rate", "0.5")  # the pass rate alone would be acceptable
    assert proc.returncode == 1
    assert f"against the baseline {BASELINE}:" in proc.stdout
    assert ("  newly failing: qa.json › question b [exact-match-evaluator] passed on the baseline, now FAIL"
            in proc.stdout)
    assert "gate failed: 1 newly failing against the baseline" in proc.stdout

    proc, doc = run_doc(root, "--min-pass-rate", "0.5")
    assert proc.returncode == 1 and doc["passed"] is False
    assert regressions(doc, "newly_failing") == ["question b"]
    assert doc["baseline"]["newly_failing"][0]["baseline"]["passed"] is True
    assert doc["gate"]["reasons"] == ["1 newly failing against the baseline"]


def test_a_result_failing_on_the_baseline_too_is_not_newly_failing(tmp_path: Path) -> None:
    root = project(tmp_path, {"a": "A", "b": "wrong"})
    assert run(root, "--update-baseline", "--min-pass-rate", "0.5").returncode == 0
    proc, doc = run_doc(root, "--min-pass-rate", "0.5")
    assert proc.returncode == 0 and regressions(doc, "newly_failing") == []


def test_a_result_with_no_baseline_entry_never_regresses(tmp_path: Path) -> None:
    root = project(tmp_path, {"a": "A"}, questions="a")
    assert run(root, "--update-baseline").returncode == 0
    project(tmp_path, {"a": "A"}, questions="ab")  # a new row, failing and slow
    proc, doc = run_doc(root, "--min-pass-rate", "0.5", "--max-slowdown", "0.1", SLOW_MS="300")
    assert "question b" not in regressions(doc, "newly_failing") + regressions(doc, "slowdowns")
    proc, doc = run_doc(root, "--min-pass-rate", "0.5")
    assert proc.returncode == 0, doc["gate"]
    assert {r["row_name"]: r["verdict"] for r in doc["results"]} == {"question a": "PASS", "question b": "FAIL"}
    assert doc["baseline"]["path"] == str(root / BASELINE)
    assert regressions(doc, "newly_failing") == [] and "question b" not in regressions(doc, "slowdowns")


def test_a_slowdown_is_flagged_and_gates_only_with_max_slowdown(tmp_path: Path) -> None:
    root = project(tmp_path, {"a": "A", "b": "B"})
    assert run(root, "--update-baseline").returncode == 0  # no sleep: a python start-up each

    proc = run(root, SLOW_MS="1500")
    assert proc.returncode == 0, proc.stdout  # reported, not gated
    assert "  slowdown: qa.json › question a [exact-match-evaluator] took " in proc.stdout
    assert "gate failed" not in proc.stdout

    proc, doc = run_doc(root, "--max-slowdown", "0.5", SLOW_MS="1500")
    assert proc.returncode == 1
    assert sorted(regressions(doc, "slowdowns")) == ["question a", "question b"]
    assert doc["baseline"]["slowdowns"][0]["ratio"] > 0.5
    assert doc["gate"]["reasons"] == ["2 slower than the baseline by more than 50%"]

    # The same gate from the config.
    config = (root / "workbench.toml").read_text() + "\n[baseline]\nmax_slowdown = 0.5\n"
    (root / "workbench.toml").write_text(config)
    assert run(root, SLOW_MS="1500").returncode == 1


def test_a_faster_run_is_not_a_slowdown(tmp_path: Path) -> None:
    root = project(tmp_path, {"a": "A", "b": "B"})
    assert run(root, "--update-baseline", SLOW_MS="1000").returncode == 0
    proc, doc = run_doc(root, "--max-slowdown", "0.5")
    assert proc.returncode == 0 and regressions(doc, "slowdowns") == []


def test_token_increases_from_trace_usage_events(tmp_path: Path) -> None:
    root = project(tmp_path, {"a": "A", "b": "B"})
    assert run(root, "--update-baseline", TOKENS="100").returncode == 0
    assert json.loads((root / BASELINE).read_text())["results"][0]["tokens"] == 100

    proc = run(root, TOKENS="110")  # +10%: under the 25% reporting threshold
    assert proc.returncode == 0 and "token increase" not in proc.stdout

    proc = run(root, TOKENS="200")
    assert proc.returncode == 0  # reported, not gated
    assert ("  token increase: qa.json › question a [exact-match-evaluator] used 200 tokens, baseline 100 "
            "(+100%)") in proc.stdout

    proc, doc = run_doc(root, "--max-token-increase", "0.5", TOKENS="200")
    assert proc.returncode == 1
    assert sorted(regressions(doc, "token_increases")) == ["question a", "question b"]
    assert "2 using more tokens than the baseline by more than 50%" in doc["gate"]["reasons"]

    # A run that reports no usage has nothing to compare.
    proc, doc = run_doc(root, "--max-token-increase", "0.5")
    assert proc.returncode == 0 and regressions(doc, "token_increases") == []


def test_a_malformed_baseline_is_a_usage_error_naming_the_file(tmp_path: Path) -> None:
    root = project(tmp_path, {"a": "A", "b": "B"})
    for content in ("{not json", '{"results": 5}', '{"results": [{"scope": "default"}]}', "[]"):
        (root / BASELINE).write_text(content, encoding="utf-8")
        proc = run(root)
        assert proc.returncode == 2, (content, proc.stdout)
        assert str(root / BASELINE) in proc.stderr, proc.stderr
        assert "Traceback" not in proc.stderr
    other = tmp_path / "elsewhere.json"
    other.write_text("{", encoding="utf-8")
    proc = run(root, "--baseline", str(other))
    assert proc.returncode == 2 and str(other) in proc.stderr
    # --update-baseline replaces a broken file: that is how it gets repaired.
    assert run(root, "--update-baseline").returncode == 0
    assert json.loads((root / BASELINE).read_text())["summary"]["passed"] == 2


# -- the comparison itself --------------------------------------------------------------------------


def _result(verdict: str, duration_ms: float, tokens: int | None = None) -> Result:
    trace = [{"type": "usage", "tokens": tokens}] if tokens is not None else []
    return Result(scope="default", set_file="qa.json", row_id="r", row_name="r", evaluator="e",
                  verdict=Verdict(verdict), score=1.0, detail="", actual=None, expected=None,
                  duration_ms=duration_ms, trace=trace)


def _baseline(passed: bool, duration_ms: float, tokens: int | None = None) -> Baseline:
    entry = BaselineEntry("default", "qa.json", "r", "r", "e", passed, duration_ms, tokens)
    return Baseline({entry.key: entry})


def test_tiny_absolute_slowdowns_are_noise() -> None:
    check = compare_with_baseline([_result("PASS", 45.0)], _baseline(True, 20.0), slowdown=0.5, token_increase=0.25)
    assert check.slowdowns == []  # +125%, but only 25 ms
    check = compare_with_baseline([_result("PASS", 400.0)], _baseline(True, 200.0), slowdown=0.5,
                                  token_increase=0.25)
    assert [r.kind for r in check.slowdowns] == ["slowdown"]


def test_a_failing_result_is_newly_failing_not_slow() -> None:
    check = compare_with_baseline([_result("ERROR", 9000.0, 900)], _baseline(True, 10.0, 10), slowdown=0.5,
                                  token_increase=0.25)
    assert [r.kind for r in check.regressions] == ["newly_failing"]
    assert "passed on the baseline, now ERROR" in check.regressions[0].describe()
