"""Scenario files as a dialect (seed 000): the set, the rows and the request each sends, every bad field
as an ERROR naming the file and field, the settings' precedence (.appilotsrc → workbench.toml → flags),
and `.appilotsrc` secrets kept out of everything workbench shows or keeps."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers.scenarios import load, run_scenarios, scenario, scenario_project

from workbench.dialects.scenarios import ScenarioSettings
from workbench.dialects.scenarios.expect import SCENARIO_EXPECT
from workbench.model import Verdict
from workbench.project import ProjectError, load_project

NONE = {"mode": "none"}
SIGNUP = scenario("agent-fills-signup", "I am Ana, ana@example.org", {"actions": [{"type": "form_fill"}]},
                  given={"screen": "Signup", "observation": {"inputs": [{"id": "email"}]}}, description="signup")
SECRET = "ak_live_7Hq2-DO-NOT-LEAK-91xz"


def problems_of(project: Any) -> list[str]:
    return [f"{p.file}: {p.message}" for p in project.problems]


def only_row(project: Any) -> Any:
    (eval_set,) = project.sets
    (row,) = eval_set.rows
    return row


# -- the set, its rows, the request --------------------------------------------------------------------------


def test_the_folder_is_one_set_of_rows_scored_by_expect(tmp_path: Path) -> None:
    root = scenario_project(tmp_path, {"signup": SIGNUP, "ask": scenario("asks", "delete it", NONE)})
    project = load(root)
    (eval_set,) = project.sets
    assert (eval_set.scope, eval_set.dialect, eval_set.evaluator_refs) == ("scenarios", "appilots", ["expect"])
    assert eval_set.path == root / ".appilots" / "scenarios"
    assert [r.id for r in eval_set.rows] == ["asks", "agent-fills-signup"]  # file order: ask.json, signup.json
    evaluator = project.evaluators_of("scenarios")["expect"]
    assert evaluator.type_id == SCENARIO_EXPECT
    row = eval_set.rows[1]
    assert row.inputs == {"name": "agent-fills-signup", "given": SIGNUP["given"], "when": "I am Ana, ana@example.org"}
    assert row.criteria == {"expect": SIGNUP["expect"]}
    assert row.source == root / ".appilots" / "scenarios" / "signup.json" and row.problem is None
    assert not project.problems


def test_model_is_the_override_else_the_flag_else_absent(tmp_path: Path) -> None:
    root = scenario_project(tmp_path, {"a": scenario("a", "x", NONE, modelOverride="model-pinned"),
                                       "b": scenario("b", "y", NONE)})
    pinned, plain = load(root, model="model-from-flag").sets[0].rows
    assert pinned.inputs["model"] == "model-pinned"
    assert plain.inputs["model"] == "model-from-flag"
    assert "model" not in load(root).sets[0].rows[1].inputs


def test_a_scenario_runs_and_the_agent_gets_the_request(tmp_path: Path) -> None:
    root = scenario_project(tmp_path, {"ask": scenario("asks", "delete my car", NONE, given={"screen": "Cars"})})
    seen: list[dict[str, Any]] = []
    report = run_scenarios(root, lambda request: seen.append(request) or {"actions": [], "reply": "Sure?"},
                           model="m-1")
    assert seen == [{"name": "asks", "given": {"screen": "Cars"}, "when": "delete my car", "model": "m-1"}]
    (result,) = report.results
    assert (result.verdict, result.evaluator, result.label) == (Verdict.PASS, "expect", "asks")
    assert result.expected == NONE


# -- every bad field is an ERROR of that scenario, naming the file and the field -------------------------------


@pytest.mark.parametrize(("content", "message"), [
    ({"when": "x", "expect": NONE}, "name is missing"),
    ({"name": 7, "when": "x", "expect": NONE}, "name must be a string"),
    ({"name": "n", "expect": NONE}, "when is missing (the user's prompt for this turn)"),
    ({"name": "n", "when": "  ", "expect": NONE}, "when is empty"),
    ({"name": "n", "when": ["x"], "expect": NONE}, "when must be a string"),
    ({"name": "n", "when": "x"}, "expect is missing"),
    ({"name": "n", "when": "x", "expect": "none"}, "expect must be an object, not string"),
    ({"name": "n", "when": "x", "expect": {"mode": "sometimes"}},
     'expect.mode must be one of any, first, exact, none, not "sometimes"'),
    ({"name": "n", "when": "x", "expect": {"actions": [{"type": "click"}], "anyOf": [{"mode": "all"}]}},
     "expect.anyOf[0].mode must be one of"),
    ({"name": "n", "when": "x", "expect": NONE, "given": []}, "given must be an object"),
    ({"name": "n", "when": "x", "expect": NONE, "given": {"screen": 3}}, "given.screen must be a string"),
    ({"name": "n", "when": "x", "expect": NONE, "given": {"observation": "Home"}},
     "given.observation must be an object"),
    ({"name": "n", "when": "x", "expect": NONE, "modelOverride": ""}, "modelOverride must be a non-empty string"),
    ([], "must be a JSON object (one scenario), not array"),
    ('{"name": "n", "when": "x",', "is not valid JSON at line 1"),
])
def test_every_bad_field_is_an_error_of_that_scenario(tmp_path: Path, content: Any, message: str) -> None:
    root = scenario_project(tmp_path, {"broken": content, "fine": scenario("fine", "x", NONE)})
    project = load(root)
    broken, fine = project.sets[0].rows
    assert broken.problem is not None
    assert broken.problem.startswith(".appilots/scenarios/broken.json: ")
    assert message in broken.problem
    assert fine.problem is None
    report = run_scenarios(root, lambda request: {"actions": [], "reply": ""})
    verdicts = {r.row_id: (r.verdict, r.detail) for r in report.results}
    assert verdicts["fine"] == (Verdict.PASS, "mode none: no actions")
    assert verdicts[broken.id][0] is Verdict.ERROR and message in verdicts[broken.id][1]


def test_a_name_used_twice_is_an_error_of_the_later_file(tmp_path: Path) -> None:
    root = scenario_project(tmp_path, {"a": scenario("same", "x", NONE), "b": scenario("same", "y", NONE)})
    first, second = load(root).sets[0].rows
    assert first.problem is None and first.id == "same"
    assert second.problem == (".appilots/scenarios/b.json: name 'same' is already the name of "
                              ".appilots/scenarios/a.json; names must be unique")
    assert second.id == "same (b.json)"


def test_unknown_fields_are_warnings_that_suggest_the_right_one(tmp_path: Path) -> None:
    root = scenario_project(tmp_path, {"a": {**scenario("a", "x", NONE), "modeloverride": "m", "description": 3}})
    project = load(root)
    assert only_row(project).problem is None
    assert {p.severity for p in project.problems} == {"warning"}
    text = "\n".join(problems_of(project))
    assert "'modeloverride' is not a scenario field and is ignored (did you mean 'modelOverride'?)" in text
    assert "description should be text, not number" in text


# -- where the scenarios are ----------------------------------------------------------------------------------


def test_an_appilots_folder_without_scenarios_is_a_hint_not_a_refusal(tmp_path: Path) -> None:
    (tmp_path / ".appilots").mkdir()
    project = load_project(tmp_path)
    assert not project.sets
    (problem,) = project.problems
    assert problem.severity == "warning" and "is not a folder of scenarios" in problem.message
    assert "workbench init --format appilots" in problem.message


def test_a_project_without_scenarios_is_not_a_scenario_project(tmp_path: Path) -> None:
    with pytest.raises(ProjectError):
        load_project(tmp_path)


def test_a_named_folder_that_is_missing_is_an_error(tmp_path: Path) -> None:
    scenario_project(tmp_path, {"a": scenario("a", "x", NONE)})
    project = load(tmp_path, scenarios_dir="qa/scenarios")
    (problem,) = project.problems
    assert (problem.file, problem.severity) == ("qa/scenarios", "error")


def test_an_empty_folder_says_so(tmp_path: Path) -> None:
    project = load(scenario_project(tmp_path, {}))
    assert project.sets[0].rows == []
    assert "has no scenarios yet" in problems_of(project)[0]


# -- settings: the seed's defaults ← .appilotsrc ← workbench.toml ← flags --------------------------------------


def settings_of(root: Path, **overrides: Any) -> ScenarioSettings:
    return load(root, **overrides).extras["appilots"]


def test_defaults_are_the_seeds(tmp_path: Path) -> None:
    settings = settings_of(scenario_project(tmp_path, {"a": scenario("a", "x", NONE)}))
    assert settings.dir == tmp_path / ".appilots" / "scenarios"
    assert settings.baseline == tmp_path / ".appilots" / "eval-baseline.json"
    assert (settings.min_pass_rate, settings.max_token_regression) == (0.95, 0.25)
    assert set(settings.sources.values()) == {"default"}


RC = {"apiKey": SECRET, "eval": {"scenariosDir": "qa/rc-scenarios", "baselinePath": "qa/rc-baseline.json",
                                 "minPassRate": 0.8, "maxTokenRegression": 0.5}}


def test_appilotsrc_replaces_the_defaults(tmp_path: Path) -> None:
    root = scenario_project(tmp_path, {"a": scenario("a", "x", NONE)}, rc=RC, folder=Path("qa/rc-scenarios"))
    project = load(root)
    settings = project.extras["appilots"]
    assert settings.dir == root / "qa" / "rc-scenarios" and len(project.sets[0].rows) == 1
    assert settings.baseline == root / "qa" / "rc-baseline.json"
    assert (settings.min_pass_rate, settings.max_token_regression) == (0.8, 0.5)
    assert set(settings.sources.values()) == {".appilotsrc"}


def test_workbench_toml_replaces_appilotsrc_and_flags_replace_both(tmp_path: Path) -> None:
    toml = '[scenarios]\ndir = "qa/toml-scenarios"\nmin_pass_rate = 0.9\nmax_token_regression = 1.0\n'
    root = scenario_project(tmp_path, {"a": scenario("a", "x", NONE)}, rc=RC, toml=toml,
                            folder=Path("qa/toml-scenarios"))
    settings = settings_of(root)
    assert settings.dir == root / "qa" / "toml-scenarios"
    assert settings.baseline == root / "qa" / "rc-baseline.json"  # not in the toml: .appilotsrc's
    assert (settings.min_pass_rate, settings.max_token_regression) == (0.9, 1.0)
    assert settings.sources == {"dir": "workbench.toml", "baseline": ".appilotsrc", "min_pass_rate": "workbench.toml",
                                "max_token_regression": "workbench.toml"}
    scenario_project(root, {"b": scenario("b", "x", NONE)}, folder=Path("qa/flag-scenarios"))
    flagged = settings_of(root, scenarios_dir="qa/flag-scenarios").with_flags(
        baseline=root / "flag.json", min_pass_rate=0.5, max_token_regression=0.1)
    assert flagged.dir == root / "qa" / "flag-scenarios"
    assert (flagged.baseline, flagged.min_pass_rate, flagged.max_token_regression) == (root / "flag.json", 0.5, 0.1)
    assert set(flagged.sources.values()) == {"flag"}
    assert [r.id for r in load(root, scenarios_dir="qa/flag-scenarios").sets[0].rows] == ["b"]


def test_output_dir_moves_the_defaults(tmp_path: Path) -> None:
    root = scenario_project(tmp_path, {"a": scenario("a", "x", NONE)}, rc={"outputDir": "agent-qa"},
                            folder=Path("agent-qa/scenarios"))
    settings = settings_of(root)
    assert (settings.dir, settings.baseline) == (root / "agent-qa/scenarios", root / "agent-qa/eval-baseline.json")


@pytest.mark.parametrize(("rc", "message", "severity"), [
    ({"eval": {"minPassRate": 2}}, "eval.minPassRate must be between 0 and 1; not used", "error"),
    ({"eval": {"maxTokenRegression": "25%"}}, "eval.maxTokenRegression must be a number; not used", "error"),
    ({"eval": {"baselinePath": ""}}, "eval.baselinePath must be a non-empty string (a path); not used", "error"),
    ({"eval": {"minPassrate": 1}}, "eval.minPassrate is not a scenario setting; did you mean 'minPassRate'?",
     "warning"),
    ({"eval": []}, '"eval" must be an object; its settings are not used', "error"),
    ([], "must be a JSON object; its settings are not used", "error"),
])
def test_bad_appilotsrc_settings_are_named_and_not_used(tmp_path: Path, rc: Any, message: str, severity: str) -> None:
    root = scenario_project(tmp_path, {"a": scenario("a", "x", NONE)}, rc=rc)
    project = load(root)
    (problem,) = project.problems
    assert (problem.file, problem.severity) == (".appilotsrc", severity)
    assert message in problem.message
    assert project.extras["appilots"].min_pass_rate == 0.95


# -- secrets ------------------------------------------------------------------------------------------------------


def test_the_api_key_is_never_read_into_anything(tmp_path: Path) -> None:
    root = scenario_project(tmp_path, {"a": scenario("a", "x", NONE)}, rc={**RC, "eval": {"minPassRate": 0.5}})
    project = load(root)
    report = run_scenarios(root, lambda request: {"actions": [], "reply": ""})
    kept = repr(project.extras) + repr(project.problems) + repr(project.sets) + repr(report.results)
    assert SECRET not in kept
    assert project.extras["appilots"].to_json(root)["min_pass_rate"] == 0.5


def test_a_broken_appilotsrc_is_reported_without_quoting_it(tmp_path: Path) -> None:
    root = scenario_project(tmp_path, {"a": scenario("a", "x", NONE)},
                            rc='{\n  "apiKey": "' + SECRET + '"\n  "eval": {}\n}\n')
    (problem,) = load(root).problems
    assert problem.message == "is not valid JSON at line 3, column 3; its settings are not used"
    assert SECRET not in repr(problem)
