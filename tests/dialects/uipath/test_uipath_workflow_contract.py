"""The workflow's contract without running anything: rows' `inputs` and `expectedOutput` against
Workflow.json's `input.schema` / `output.schema` (issue 12 point 12), as `workbench check` reports them
(errors) and as loading adds them beside the rows (warnings). Also `[runner] auth` for uip targets."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from helpers.project import EXACT, UIP_CONFIG, evaluator, make_project, row

from workbench.actions.project_check import check_project
from workbench.config import load_config
from workbench.model import RowKey
from workbench.project import load_project
from workbench.runners.uip import UipRunner

INPUT_SCHEMA = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                "required": ["a", "b"]}
OUTPUT_SCHEMA = {"type": "object", "required": ["sum"],
                 "properties": {"sum": {"type": "number"},
                                "details": {"type": "object", "properties": {"rawScore": {"type": "number"}}}}}


def workflow(input_schema: Any = INPUT_SCHEMA, output_schema: Any = OUTPUT_SCHEMA, *, document: bool = True) -> str:
    """A Workflow.json declaring the schemas, in the Serverless Workflow shape (`schema.document`) or bare."""
    def part(schema: Any) -> Any:
        if schema is None:
            return None
        return {"schema": {"format": "json", "document": schema}} if document else {"schema": schema}
    return json.dumps({"document": {"dsl": "1.0.0", "name": "add"}, "input": part(input_schema),
                       "output": part(output_schema)})


def project(tmp_path: Path, rows: list[dict[str, Any]], *, wf: str | None = None, evaluators: Any = None) -> Path:
    files = {"Workflow.json": wf if wf is not None else workflow()}
    # the stand-in uip: the contract is checked whatever is on this machine's PATH
    return make_project(tmp_path / "p", sets={"math": rows}, files=files, evaluators=evaluators, config=UIP_CONFIG)


def messages(root: Path) -> list[str]:
    return [p.message for p in check_project(root).problems]


def test_a_pascalcased_expected_key_is_an_error_with_a_casing_hint(tmp_path: Path) -> None:
    root = project(tmp_path, [row("two plus three", {"a": 2, "b": 3}, {"Sum": 5})])
    report = check_project(root)
    assert not report.passed and report.workflow == "Workflow.json"
    [problem] = report.errors
    assert problem.file == "evals/default/eval-sets/math.json"
    assert problem.row == RowKey("default", "math.json", "two plus three")
    assert problem.message.startswith("evaluations[0] ('two plus three'): expectedOutput has \"Sum\", which "
                                      "output.schema does not declare — did you mean \"sum\"? Keys are case-sensitive")
    assert "uip's `Data` PascalCases keys" in problem.message


def test_rows_that_fit_the_contract_pass_the_check(tmp_path: Path) -> None:
    root = project(tmp_path, [row("ok", {"a": 2, "b": 3}, {"sum": 5, "details": {"rawScore": 1.5}})])
    report = check_project(root)
    assert report.passed and report.problems == [], report.problems
    assert (report.sets, report.rows, report.evaluators) == (1, 1, 1)


def test_inputs_undeclared_missing_and_mistyped(tmp_path: Path) -> None:
    root = project(tmp_path, [row("typo", {"A": 2, "b": 3}, {"sum": 5}),
                              row("missing", {"a": 2}, {"sum": 2}),
                              row("string", {"a": 2, "b": "3"}, {"sum": 5})])
    found = messages(root)
    assert any('inputs has "A", which input.schema does not declare — did you mean "a"?' in m for m in found)
    assert not any("PascalCases" in m for m in found if "inputs" in m)  # that trap is the output's
    assert not any('lacks "a"' in m for m in found)  # present in another casing: said once, with the hint
    assert any(m.endswith('inputs lacks "b", which input.schema requires') for m in found)
    assert any(m.endswith('inputs.b is string ("3"), but input.schema says integer') for m in found)


def test_expected_types_required_keys_and_nesting(tmp_path: Path) -> None:
    root = project(tmp_path, [row("quoted", {"a": 1, "b": 1}, {"sum": "2"}),
                              row("no sum", {"a": 1, "b": 1}, {"details": {"rawScore": 1}}),
                              row("nested", {"a": 1, "b": 1}, {"sum": 2, "details": {"RawScore": 1}})])
    found = messages(root)
    assert any(m.endswith('expectedOutput.sum is string ("2"), but output.schema says number') for m in found)
    assert any(m.endswith('expectedOutput lacks "sum", which output.schema requires') for m in found)
    assert any('expectedOutput.details has "RawScore", which output.schema does not declare — did you mean '
               '"rawScore"?' in m for m in found)


def test_a_json_string_expectation_is_checked_as_the_value_it_encodes(tmp_path: Path) -> None:
    root = project(tmp_path, [row("string form", {"a": 1, "b": 1}, '{"Sum": 2}')])
    assert any('expectedOutput has "Sum"' in m for m in messages(root))


def test_only_the_target_output_key_paths_are_checked(tmp_path: Path) -> None:
    evaluators = {EXACT: evaluator("details.rawScore")}
    root = project(tmp_path, [row("path", {"a": 1, "b": 1}, {"whatever": 1, "details": {"rawScore": "x"}}),
                              row("no path", {"a": 1, "b": 1}, {"sum": 2})], evaluators=evaluators)
    found = messages(root)
    assert not any("whatever" in m for m in found)  # not compared, so not judged
    assert any(m.endswith('expectedOutput.details.rawScore is string ("x"), but output.schema says number')
               for m in found)
    assert any('expectedOutput has no "details.rawScore", which exact-match-evaluator\'s targetOutputKey '
               'compares' in m for m in found)


def test_a_target_output_key_the_schema_lacks_is_an_error_on_the_evaluator(tmp_path: Path) -> None:
    root = project(tmp_path, [row("r", {"a": 1, "b": 1}, {"Details": {"RawScore": 1}})],
                   evaluators={EXACT: evaluator("Details.RawScore")})
    problems = [p for p in check_project(root).errors if p.file.endswith("evaluators/exact-match-evaluator.json")]
    assert [p.message for p in problems] == [
        'targetOutputKey "Details.RawScore": "Details" is not a property of the output in output.schema — did you '
        'mean "details"? Keys are case-sensitive (uip\'s `Data` PascalCases keys; the raw output keeps the '
        "schema's casing)"]


def test_a_non_object_output_is_checked_as_wrapped_in_result(tmp_path: Path) -> None:
    root = project(tmp_path, [row("wrapped", {"a": 1, "b": 1}, {"result": 2}),
                              row("bare key", {"a": 1, "b": 1}, {"value": 2})],
                   wf=workflow(output_schema={"type": "number"}, document=False))
    found = messages(root)
    assert len(found) == 2, found
    assert any("evaluations[1]" in m and 'expectedOutput has "value"' in m for m in found)
    assert any("evaluations[1]" in m and 'lacks "result"' in m for m in found)


def test_evaluators_that_do_not_compare_keys_and_unjudgeable_schemas_are_left_alone(tmp_path: Path) -> None:
    contains = evaluator(type_id="uipath-contains")
    root = project(tmp_path, [row("r", {"a": 1, "b": 1}, criteria={"contains": {"searchText": "x"}})],
                   evaluators={"contains": contains},
                   wf=workflow(input_schema={"anyOf": [{"type": "string"}]}))
    doc = json.loads((root / "evals/default/eval-sets/math.json").read_text())
    doc["evaluatorRefs"] = ["contains"]
    (root / "evals/default/eval-sets/math.json").write_text(json.dumps(doc))
    assert check_project(root).passed, check_project(root).problems


def test_no_workflow_no_contract_and_an_undeclared_schema_is_a_warning(tmp_path: Path) -> None:
    root = make_project(tmp_path / "bare", sets={"math": [row("r", {"x": 1}, {"Anything": 1})]},
                        config={"kind": "command", "command": ["true"]})
    report = check_project(root)
    assert report.passed and report.workflow is None and report.problems == []
    root = project(tmp_path, [row("r", {"a": 1, "b": 1}, {"Sum": 1})], wf=workflow(None, None))
    report = check_project(root)
    assert report.passed
    assert sorted(p.message.split(",")[0] for p in report.warnings) == ["declares no input.schema",
                                                                       "declares no output.schema"]


def test_a_broken_workflow_json_is_an_error_of_check(tmp_path: Path) -> None:
    root = project(tmp_path, [row("r", {"a": 1, "b": 1}, {"sum": 2})], wf='{"input": ')
    report = check_project(root)
    assert [(p.file, p.message.split(":")[0]) for p in report.errors] == [("Workflow.json", "is not valid JSON")]
    assert load_project(root).problems == []  # loading leaves that to check (and to the uip run)


def test_loading_adds_the_findings_as_warnings_pinned_to_their_rows(tmp_path: Path) -> None:
    root = project(tmp_path, [row("bad", {"a": 1, "b": 1}, {"Sum": 2}), row("good", {"a": 1, "b": 1}, {"sum": 2})])
    problems = load_project(root).problems
    assert [(p.severity, p.row) for p in problems] == [("warning", RowKey("default", "math.json", "bad"))]
    assert problems[0].to_json()["row"] == {"scope": "default", "set": "math.json", "row_id": "bad"}
    report = check_project(root)  # the same finding, as an error, once
    assert [(p.severity, p.row) for p in report.problems] == [("error", RowKey("default", "math.json", "bad"))]


def test_check_names_files_and_results_that_can_only_error(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p", config={"kind": "command", "command": ["true"]}, sets={
        "math": {"version": "1.0", "evaluatorRefs": ["exact-match-evaluator", "missing-evaluator"],
                 "evaluations": [row(f"r{i}", {"a": i}, {"sum": i}) for i in range(5)]},
        "broken": '{"evaluations": [',
        "no-expected": [row("r", {"a": 1}, criteria={EXACT: {"expected": 1}})]})
    report = check_project(root)
    text = "\n".join(f"{p.file}: {p.message}" for p in report.errors)
    assert "evals/default/eval-sets/broken.json: is not valid JSON" in text
    assert ("evals/default/eval-sets/math.json: 5 rows ('r0', 'r1', 'r2' and 2 more) [missing-evaluator] can only "
            "be ERRORs: no evaluator file evals/default/evaluators/missing-evaluator.json") in text
    assert ("evals/default/eval-sets/no-expected.json: evaluations[0] ('r') [exact-match-evaluator] can only be an "
            "ERROR: evaluationCriterias['exact-match-evaluator'] has no \"expectedOutput\"") in text


def test_bad_settings_and_nothing_to_run_are_errors(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p", sets={"math": [row("r", {"a": 1}, {"sum": 1})]}, config="[runner]\nkind = 5\n")
    assert [p.file for p in check_project(root).errors] == ["workbench.toml"]
    root = make_project(tmp_path / "q", sets={"math": [row("r", {"a": 1}, {"sum": 1})]})
    report = check_project(root)  # an error, as `run` refuses to start there (H14)
    assert not report.passed and [p.message.split(":")[0] for p in report.errors] == ["nothing runs the rows yet"]


# -- [runner] auth for uip targets ------------------------------------------------------------------------


def uip_argv(tmp_path: Path, config: str | None) -> list[str]:
    root = make_project(tmp_path / "uip", sets={"s": []}, config=config, files={"Workflow.json": workflow()})
    runner = UipRunner(load_config(root))
    try:
        return runner.argv({"a": 1}, tmp_path / "log.txt")
    finally:
        asyncio.run(runner.aclose())


def test_uip_runs_with_no_auth_by_default_and_auth_true_drops_it(tmp_path: Path) -> None:
    assert "--no-auth" in uip_argv(tmp_path, None)
    assert "--no-auth" in uip_argv(tmp_path / "off", "[runner]\nauth = false\n")
    argv = uip_argv(tmp_path / "on", "[runner]\nauth = true\n")
    assert "--no-auth" not in argv and argv[-6:-2] == ["--output", "json", "--log-level", "debug"]


RICH_INPUT = {"type": "object", "additionalProperties": {"type": "string"}, "required": ["mode", "zz"],
              "properties": {"mode": {"enum": ["fast", "slow"]}, "n": {"type": "integer"},
                             "tags": {"type": "array", "items": {"type": "string"}},
                             "odd key": {"const": 1}, "free": {"anyOf": [{"type": "string"}]},
                             "any": {"type": "decimal"}, "loose": {"type": "object", "additionalProperties": False},
                             "nested": {"type": "object", "properties": {"x": {"type": "boolean"}}}}}


def test_every_kind_of_input_finding_reads_in_the_row_order(tmp_path: Path) -> None:
    """A wrong type or value hides what is inside it; a key declared in another casing ("Mode": the extra
    keys' schema allows it) is no missing key; unknown types and combinators are trusted."""
    inputs = {"nested": {"x": 1, "Y": 2}, "mode": "medium", "n": 3.0, "tags": ["a", 2, "c", None],
              "odd key": 2, "free": 5, "any": [], "loose": {"k": 1}, "extra": 4, "Mode": "x"}
    root = project(tmp_path, [row("rich", inputs, {"sum": 1})], wf=workflow(input_schema=RICH_INPUT))
    assert messages(root) == [
        "evaluations[0] ('rich'): inputs.nested.x is number (1), but input.schema says boolean",
        "evaluations[0] ('rich'): inputs.nested has \"Y\", which input.schema does not declare",
        "evaluations[0] ('rich'): inputs.mode is \"medium\", which input.schema does not allow (one of: \"fast\", "
        "\"slow\")",
        "evaluations[0] ('rich'): inputs.tags[1] is number (2), but input.schema says string",
        "evaluations[0] ('rich'): inputs.tags[3] is null (null), but input.schema says string",
        "evaluations[0] ('rich'): inputs[\"odd key\"] is 2, which input.schema does not allow (one of: 1)",
        "evaluations[0] ('rich'): inputs.extra is number (4), but input.schema says string",
        "evaluations[0] ('rich'): inputs lacks \"zz\", which input.schema requires",
    ]


def test_findings_past_ten_per_row_are_counted(tmp_path: Path) -> None:
    schema = {"type": "object", "properties": {"a": {"type": "array", "items": {"type": "integer"}}}}
    root = project(tmp_path, [row("many", {"a": [str(i) for i in range(150)]}, {"sum": 1})],
                   wf=workflow(input_schema=schema))
    found = messages(root)
    assert found[:2] == ["evaluations[0] ('many'): inputs.a[0] is string (\"0\"), but input.schema says integer",
                         "evaluations[0] ('many'): inputs.a[1] is string (\"1\"), but input.schema says integer"]
    assert len(found) == 11 and found[-1] == "evaluations[0] ('many'): … and 90 more like these"
