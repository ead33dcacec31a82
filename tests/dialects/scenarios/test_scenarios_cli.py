"""Scenarios end to end, as a user runs them: `workbench run` on a copy of examples/form-agent (a
deterministic agent, five scenarios, one failing on purpose) — verdicts per scenario, the gate's exit
codes and reasons, a baseline round trip, newly failing and token regressions, the flags and
`.appilotsrc` settings, secrets, and `workbench init --format appilots`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from helpers.cli import invoke_json, invoke_workbench, verdicts
from helpers.paths import EXAMPLES

EXAMPLE = EXAMPLES / "form-agent"
BASELINE = Path(".appilots") / "eval-baseline.json"
SCENARIOS = {
    "asks-before-deleting-a-vehicle": "PASS",
    "opens-settings-before-toggling": "PASS",
    "fills-signup-from-one-sentence": "PASS",
    "keeps-card-number-private": "FAIL",
    "submits-and-does-nothing-else": "PASS",
}
ECHO = 'f"Thanks, I noted the card ending in {digits[-4:]}."'
SECRET = "ak_live_5f2c-NEVER-PRINT-ME-0a9e"


def copy_example(where: Path) -> Path:
    root = where / "form-agent"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns("__pycache__", ".workbench", "eval-baseline.json"))
    return root


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


def fix_the_agent(root: Path) -> None:
    edit(root / "agent.py", ECHO, '"Thanks, but I never keep card numbers; enter it at checkout."')


def gate_of(doc: dict[str, Any]) -> dict[str, Any]:
    return doc["gate"]["scenarios"]


@pytest.fixture(scope="module")
def first_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any, dict[str, Any]]:
    root = copy_example(tmp_path_factory.mktemp("first"))
    proc, doc = invoke_json("run", str(root))
    return root, proc, doc


def test_run_json_gives_a_verdict_per_scenario(first_run: tuple[Path, Any, dict[str, Any]]) -> None:
    _, proc, doc = first_run
    assert proc.returncode == 1
    assert verdicts(doc) == {f"{name} [expect]": verdict for name, verdict in SCENARIOS.items()}
    failing = next(r for r in doc["results"] if r["verdict"] == "FAIL")
    assert failing["detail"] == 'reply contains forbidden "9012"'
    assert failing["expected"] == {"mode": "none", "replyMustNotContain": ["4111 2222 3333 9012", "9012"]}
    assert failing["inputs"]["when"].startswith("My card is")
    by_name = {r["row_name"]: r for r in doc["results"]}
    assert by_name["opens-settings-before-toggling"]["actual"]["model"] == "form-agent-large"  # modelOverride
    assert by_name["fills-signup-from-one-sentence"]["detail"] == (
        "mode any: every listed action matched (form_fill(name, email) = actions[0])")
    assert by_name["asks-before-deleting-a-vehicle"]["detail"].startswith("anyOf[1] matched: mode none")


def test_the_gate_says_why_it_failed(first_run: tuple[Path, Any, dict[str, Any]]) -> None:
    root, _, doc = first_run
    assert doc["passed"] is False and doc["gate"]["passed"] is False
    scenarios = gate_of(doc)
    assert (scenarios["total"], scenarios["passed_count"], scenarios["min_pass_rate"]) == (5, 4, 0.95)
    assert scenarios["reasons"] == ["scenario pass rate 4/5 (80.0%) is below the minimum 95.0%"]
    assert scenarios["baseline_found"] is False and scenarios["sources"]["min_pass_rate"] == ".appilotsrc"
    assert doc["gate"]["reasons"] == scenarios["reasons"]
    assert not (root / BASELINE).exists() and not (root / "workbench-baseline.json").exists()


def test_text_report_names_the_gate(tmp_path: Path) -> None:
    root = copy_example(tmp_path)
    proc = invoke_workbench("run", str(root))
    assert proc.returncode == 1
    assert "FAIL  scenarios › keeps-card-number-private [expect]" in proc.stdout
    assert "scenarios: 4/5 pass (80.0%, minimum 95.0%), no baseline yet (.appilots/eval-baseline.json)" in proc.stdout
    assert "gate failed: scenario pass rate 4/5 (80.0%) is below the minimum 95.0%" in proc.stdout


def test_update_baseline_below_the_minimum_is_refused_and_the_file_untouched(tmp_path: Path) -> None:
    root = copy_example(tmp_path)
    proc = invoke_workbench("run", str(root), "--update-baseline")
    assert proc.returncode == 1 and not (root / BASELINE).exists()
    original = b'{ "scenarios": {"keeps-card-number-private": {"passed": true, "tokens": 1}} }\n'
    (root / BASELINE).write_bytes(original)
    proc, doc = invoke_json("run", str(root), "--update-baseline")
    assert proc.returncode == 1
    assert ("scenario baseline NOT updated (the baseline found at .appilots/eval-baseline.json is left as it was): "
            "scenario pass rate 4/5") in proc.stderr
    assert gate_of(doc)["baseline_written"] is False
    assert (root / BASELINE).read_bytes() == original
    assert sorted(p.name for p in (root / BASELINE).parent.iterdir()) == ["eval-baseline.json", "scenarios"]


def test_baseline_round_trip_and_the_gates_exit_codes(tmp_path: Path) -> None:
    root = copy_example(tmp_path)
    fix_the_agent(root)
    proc = invoke_workbench("run", str(root), "--update-baseline")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert ("scenario baseline written: .appilots/eval-baseline.json (a new file; 5 scenarios, pass rate 100.0%)"
            in proc.stdout)
    written = json.loads((root / BASELINE).read_text(encoding="utf-8"))
    assert sorted(written["scenarios"]) == sorted(SCENARIOS)
    assert all(entry["passed"] and entry["tokens"] > 180 for entry in written["scenarios"].values())
    assert not (root / "workbench-baseline.json").exists()

    proc, doc = invoke_json("run", str(root))  # unchanged: passes against its own baseline
    assert proc.returncode == 0 and gate_of(doc)["baseline_found"] and not gate_of(doc)["reasons"]

    agent = root / "agent.py"
    edit(agent, '{"screen": "Settings"}', '{"screen": "Preferences"}')  # a UI rename the agent follows
    proc, doc = invoke_json("run", str(root))
    assert proc.returncode == 1
    assert [r["scenario"] for r in gate_of(doc)["newly_failing"]] == ["opens-settings-before-toggling"]
    assert "1 scenario(s) newly failing against the baseline: opens-settings-before-toggling" in doc["gate"]["reasons"]
    # 4/5 is below 0.95 as well; with the minimum lowered, newly failing alone still fails the gate
    proc, doc = invoke_json("run", str(root), "--min-pass-rate", "0.5")
    assert proc.returncode == 1 and gate_of(doc)["reasons"] == [
        "1 scenario(s) newly failing against the baseline: opens-settings-before-toggling"]
    edit(agent, '{"screen": "Preferences"}', '{"screen": "Settings"}')

    edit(agent, "PROMPT_TOKENS = 180", "PROMPT_TOKENS = 400")  # the prompt grew
    proc = invoke_workbench("run", str(root))
    assert proc.returncode == 1
    assert "token regression: submits-and-does-nothing-else used" in proc.stdout
    assert "5 token regression(s) over +25%" in proc.stdout
    assert invoke_workbench("run", str(root), "--max-token-regression", "1.5").returncode == 0


def test_token_regression_settings_follow_appilotsrc_then_toml_then_flags(tmp_path: Path) -> None:
    root = copy_example(tmp_path)
    fix_the_agent(root)
    assert invoke_workbench("run", str(root), "--update-baseline").returncode == 0
    edit(root / "agent.py", "PROMPT_TOKENS = 180", "PROMPT_TOKENS = 400")
    edit(root / ".appilotsrc", '"maxTokenRegression": 0.25', '"maxTokenRegression": 1.5')
    proc, doc = invoke_json("run", str(root))
    assert proc.returncode == 0 and gate_of(doc)["sources"]["max_token_regression"] == ".appilotsrc"
    with (root / "workbench.toml").open("a", encoding="utf-8") as toml:
        toml.write("\n[scenarios]\nmax_token_regression = 0.5\n")
    proc, doc = invoke_json("run", str(root))
    assert proc.returncode == 1 and gate_of(doc)["max_token_regression"] == 0.5
    proc, doc = invoke_json("run", str(root), "--max-token-regression", "2")
    assert proc.returncode == 0 and gate_of(doc)["sources"]["max_token_regression"] == "flag"


def test_a_new_scenario_never_regresses(tmp_path: Path) -> None:
    root = copy_example(tmp_path)
    fix_the_agent(root)
    assert invoke_workbench("run", str(root), "--update-baseline").returncode == 0
    shutil.copy(root / ".appilots/scenarios/submit-exactly.json", root / ".appilots/scenarios/submit-again.json")
    edit(root / ".appilots/scenarios/submit-again.json", '"submits-and-does-nothing-else"', '"submits-once-more"')
    proc, doc = invoke_json("run", str(root))
    assert proc.returncode == 0
    assert gate_of(doc)["new"] == ["submits-once-more"]


def test_baseline_flag_and_dir_flag(tmp_path: Path) -> None:
    root = copy_example(tmp_path)
    fix_the_agent(root)
    other = tmp_path / "elsewhere.json"
    assert invoke_workbench("run", str(root), "--update-baseline", "--baseline", str(other)).returncode == 0
    assert other.is_file() and not (root / BASELINE).exists()
    subset = root / "qa"
    subset.mkdir()
    shutil.copy(root / ".appilots/scenarios/keeps-card-private.json", subset / "card.json")
    proc, doc = invoke_json("run", str(root), "--dir", str(subset), "--baseline", str(other))
    assert proc.returncode == 0
    assert list(verdicts(doc)) == ["keeps-card-number-private [expect]"]
    assert gate_of(doc)["dir"] == "qa" and gate_of(doc)["sources"]["dir"] == "flag"


def test_model_flag_reaches_scenarios_without_an_override(tmp_path: Path) -> None:
    root = copy_example(tmp_path)
    _, doc = invoke_json("run", str(root), "--model", "gpt-test-9")
    models = {r["row_name"]: r["actual"]["model"] for r in doc["results"]}
    assert models["opens-settings-before-toggling"] == "form-agent-large"
    assert {m for name, m in models.items() if name != "opens-settings-before-toggling"} == {"gpt-test-9"}


def test_the_api_key_is_never_printed_logged_or_stored(tmp_path: Path) -> None:
    root = copy_example(tmp_path)
    rc = json.loads((root / ".appilotsrc").read_text(encoding="utf-8"))
    (root / ".appilotsrc").write_text(json.dumps({"apiKey": SECRET, **rc}), encoding="utf-8")
    text = invoke_workbench("run", str(root))
    as_json = invoke_workbench("run", str(root), "--json")
    history = invoke_workbench("history", str(root), "1", "--json")
    seen = "".join(p.stdout + p.stderr for p in (text, as_json, history))
    assert "keeps-card-number-private" in seen and SECRET not in seen
    for path in (root / ".workbench").rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path
    (root / ".appilotsrc").write_text('{"apiKey": "' + SECRET + '", oops}', encoding="utf-8")
    broken = invoke_workbench("run", str(root))
    assert broken.returncode == 1 and ".appilotsrc" in broken.stdout + broken.stderr
    assert SECRET not in broken.stdout + broken.stderr


def test_init_format_appilots_writes_the_example_and_never_overwrites(tmp_path: Path) -> None:
    proc = invoke_workbench("init", str(tmp_path), "--format", "appilots")
    assert proc.returncode == 0 and "created .appilots/scenarios/example.json" in proc.stdout
    example = tmp_path / ".appilots" / "scenarios" / "example.json"
    doc = json.loads(example.read_text(encoding="utf-8"))
    assert {"name", "when", "given", "expect"} <= set(doc) and doc["expect"]["mode"] == "any"
    before = example.read_bytes()
    proc = invoke_workbench("init", str(tmp_path), "--format", "appilots")
    assert proc.returncode == 1 and "kept    .appilots/scenarios/example.json" in proc.stdout
    assert example.read_bytes() == before
    from workbench.project import load_project

    project = load_project(tmp_path)
    assert not project.problems and project.sets[0].rows[0].problem is None
