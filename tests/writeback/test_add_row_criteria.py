"""add-row on a set with an evaluator that doesn't compare with expectedOutput (issue 12, point 7):
the criterion is asked for (`--criterion REF=JSON`) or the row is refused before the target runs —
never a row with `"evaluationCriterias": {}` that can only ERROR. Placeholders come from the set's rows."""

from __future__ import annotations

import json

from helpers.cli import invoke_json, invoke_workbench, verdicts
from helpers.project import COMMAND_CONFIG, EXACT, evaluator, make_project, row

from workbench.actions.add_row import criteria_to_ask, example_criterion, example_inputs
from workbench.project import load_project

CONTAINS = "says-refund"


def contains_project(tmp_path, *, with_exact: bool = False):
    criterion = {"searchText": "refund"}
    rows = [{"id": "r1", "name": "asks for a refund", "inputs": {"output": "we will refund you"},
             "evaluationCriterias": {CONTAINS: criterion, **({EXACT: {"expectedOutput": "x"}} if with_exact else {})}}]
    evaluators = {CONTAINS: evaluator("*", type_id="uipath-contains", id="contains-1")}
    if with_exact:
        evaluators[EXACT] = evaluator("*")
    doc = {"id": "s", "name": "s", "evaluatorRefs": list(evaluators), "evaluations": rows}
    root = make_project(tmp_path, sets={"support": doc}, evaluators=evaluators, config=COMMAND_CONFIG)
    return root, root / "evals" / "default" / "eval-sets" / "support.json"


def test_a_contains_only_set_refuses_a_row_without_its_criterion_before_running(tmp_path):
    root, path = contains_project(tmp_path)
    before = path.read_bytes()
    runs = tmp_path / "runs"  # the target leaves a file here when it runs
    runs.mkdir()

    proc = invoke_workbench("add-row", str(root), "--set", "support", "--name", "new",
                         "--inputs", json.dumps({"barrier": [str(runs), 1, 0]}))

    assert proc.returncode == 1, proc.stderr
    assert f"needs a criterion for {CONTAINS} (uipath-contains)" in proc.stderr and "--criterion" in proc.stderr
    assert path.read_bytes() == before and not any(runs.iterdir())


def test_the_given_criterion_is_written_and_the_new_row_passes(tmp_path):
    root, path = contains_project(tmp_path)

    proc = invoke_workbench("add-row", str(root), "--set", "support", "--name", "thanks",
                         "--inputs", json.dumps({"output": "thanks, a refund is on its way"}),
                         "--criterion", f'{CONTAINS}={{"searchText": "refund"}}')

    assert proc.returncode == 0, proc.stderr
    new = json.loads(path.read_text())["evaluations"][-1]
    assert new["evaluationCriterias"] == {CONTAINS: {"searchText": "refund"}}
    _, doc = invoke_json("run", str(root), "--set", "support", "--row", "thanks")
    assert verdicts(doc) == {f"thanks [{CONTAINS}]": "PASS"}


def test_criterion_mistakes_are_named(tmp_path):
    root, _ = contains_project(tmp_path, with_exact=True)
    base = ("add-row", str(root), "--set", "support", "--name", "n", "--inputs", '{"output": "x"}')

    not_json = invoke_workbench(*base, "--criterion", f"{CONTAINS}={{searchText}}")
    assert not_json.returncode == 2 and f"criterion for {CONTAINS} is not valid JSON" in not_json.stderr
    no_ref = invoke_workbench(*base, "--criterion", '{"searchText": "x"}')
    assert no_ref.returncode == 2 and "REF=JSON" in no_ref.stderr
    unknown = invoke_workbench(*base, "--criterion", 'nope={"searchText": "x"}')
    assert unknown.returncode == 1 and "no evaluator ref 'nope'" in unknown.stderr
    built = invoke_workbench(*base, "--criterion", f'{EXACT}={{"expectedOutput": 1}}')
    assert built.returncode == 1 and "built from the target's output" in built.stderr


def test_placeholders_and_the_criteria_to_ask_come_from_the_set(tmp_path):
    root, _ = contains_project(tmp_path, with_exact=True)
    eval_set = load_project(root).sets[0]
    project = load_project(root)

    assert example_inputs(eval_set) == '{"output":"we will refund you"}'
    assert example_criterion(eval_set, CONTAINS) == '{"searchText":"refund"}'
    assert [ev.ref for ev in criteria_to_ask(project, eval_set)] == [CONTAINS]

    plain = make_project(tmp_path / "plain", sets={"g": [row("a", {"score": 64}, {"grade": "PASS"})]})
    assert example_inputs(load_project(plain).sets[0]) == '{"score":64}'
    assert criteria_to_ask(load_project(plain), load_project(plain).sets[0]) == []
