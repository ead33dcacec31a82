"""Issue 38 (7): a JSON mistake in an eval file is said with a hint a new user can act on: the file, line and
column, the line itself with a caret under the column; a mistyped evaluator type or ref gets "did you mean"; a
target printing a Python dict is told to print JSON."""

import json
import sys

from helpers.cli import invoke_workbench
from helpers.project import COMMAND_CONFIG, EXACT, eval_set, evaluator, make_project, row


def test_a_trailing_comma_is_named(tmp_path):
    root = make_project(tmp_path, config=COMMAND_CONFIG, sets={"evaluation-set": [row("a", {"output": {"x": 1}},
                                                                                        {"x": 1})]})
    broken = next((root / "evals").rglob("eval-sets/*.json"))
    text = broken.read_text()
    end = text.rindex("]")
    broken.write_text(text[:text.rindex("}", 0, end) + 1] + "," + text[text.rindex("}", 0, end) + 1:])
    result = invoke_workbench("check", str(root))
    assert result.returncode == 1, result.stdout + result.stderr
    out = result.stdout + result.stderr
    assert "is not valid JSON at line" in out
    assert "a trailing comma before `]` (JSON allows none; remove the comma after the last item)" in out


def _eval_set(tmp_path):
    root = make_project(tmp_path, config=COMMAND_CONFIG, sets={"evaluation-set": [row("a", {"output": {"x": 1}},
                                                                                        {"x": 1})]})
    return root, next((root / "evals").rglob("eval-sets/*.json"))


def test_a_trailing_comma_is_shown_in_its_line_with_a_caret_under_the_comma(tmp_path):
    root, broken = _eval_set(tmp_path)
    text = broken.read_text()
    end = text.rindex("]")
    comma_at = text.rindex("}", 0, end) + 1
    broken.write_text(text[:comma_at] + "," + text[comma_at:])
    line = text.count("\n", 0, comma_at) + 1
    column = comma_at - text.rfind("\n", 0, comma_at)
    lines = invoke_workbench("check", str(root)).stdout.splitlines()
    at = next(i for i, shown in enumerate(lines) if shown.startswith("problem: "))
    assert lines[at].startswith(f"problem: evals/default/eval-sets/evaluation-set.json: is not valid JSON at line "
                                f"{line}, column {column}: Expecting value — a trailing comma before `]`")
    source = broken.read_text().splitlines()[line - 1]
    assert lines[at + 1] == f"  {line:>5} | {source}"
    caret = lines[at + 2]
    assert caret.endswith("^") and caret.index("^") == lines[at + 1].index(" | ") + 2 + column
    assert source[column - 1] == ","  # the caret is under the comma to remove
    assert lines[-1].startswith("check failed: 1 error")


def test_every_json_syntax_error_names_file_line_column_and_shows_the_line(tmp_path):
    root, broken = _eval_set(tmp_path)
    broken.write_text('{\n  "evaluatorRefs": ["exact-match-evaluator"]\n  "evaluations": []\n}\n')
    run = invoke_workbench("run", str(root))
    lines = run.stdout.splitlines()
    at = lines.index("problem: evals/default/eval-sets/evaluation-set.json: is not valid JSON at line 3, column 3: "
                     "Expecting ',' delimiter")
    assert lines[at + 1:at + 3] == ['      3 |   "evaluations": []', "        |   ^"]
    doc = json.loads(invoke_workbench("check", str(root), "--json").stdout)
    (problem,) = [p for p in doc["problems"] if p["file"].endswith("evaluation-set.json")]
    assert problem["excerpt"] == ['    3 |   "evaluations": []', "      |   ^"]


def test_a_mistyped_evaluator_type_names_its_file_and_the_type_meant(tmp_path):
    root = make_project(tmp_path, config=COMMAND_CONFIG, evaluators={EXACT: evaluator(type_id="uipath-exact-mach")},
                        sets={"evaluation-set": [row("a", {"output": {"x": 1}}, {"x": 1})]})
    said = ("unsupported evaluator type 'uipath-exact-mach' in evals/default/evaluators/exact-match-evaluator.json: "
            'did you mean "uipath-exact-match"?')
    check = invoke_workbench("check", str(root))
    assert check.returncode == 1
    assert said in check.stdout and "supported types:" not in check.stdout, check.stdout
    doc = json.loads(invoke_workbench("run", str(root), "--json").stdout)
    assert [r["detail"] for r in doc["results"]] == [said]


def test_an_evaluator_ref_that_is_no_file_gets_did_you_mean(tmp_path):
    typo = "exact-match-evaluatr"
    root = make_project(tmp_path, config=COMMAND_CONFIG,
                        sets={"evaluation-set": eval_set([row("a", {"output": {"x": 1}}, {"x": 1}, ref=typo)],
                                                         refs=[typo])})
    check = invoke_workbench("check", str(root))
    assert check.returncode == 1
    assert (f"[{typo}] can only be an ERROR: no evaluator file evals/default/evaluators/{typo}.json — did you mean "
            f'"{EXACT}"? Evaluator files here: {EXACT}') in check.stdout, check.stdout


PRINTS_A_DICT = """import json, sys
json.load(sys.stdin)
print({'greeting': 'hi', 'ok': True, 'none': None})
"""


def test_a_target_printing_a_python_dict_is_told_to_use_json_dumps(tmp_path):
    root = make_project(tmp_path, config={"kind": "command", "command": [sys.executable, "agent.py"], "timeout": 20},
                        sets={"evaluation-set": [row("a", {"x": 1}, {"greeting": "hi"})]},
                        files={"agent.py": PRINTS_A_DICT})
    proc = invoke_workbench("run", str(root), "--json")
    assert proc.returncode == 1
    (result,) = json.loads(proc.stdout)["results"]
    assert result["verdict"] == "ERROR"  # the hint changes no verdict
    assert result["detail"].startswith("the target's stdout is not JSON: Expecting property name enclosed in double "
                                       "quotes (line 1, column 2) — it is a Python dict as print() writes it (single "
                                       "quotes, True/None): print(json.dumps(...)) instead of print(dict)")


def test_stdout_that_is_no_python_literal_gets_no_such_hint(tmp_path):
    root = make_project(tmp_path, config={"kind": "command", "command": [sys.executable, "agent.py"], "timeout": 20},
                        sets={"evaluation-set": [row("a", {"x": 1}, {"greeting": "hi"})]},
                        files={"agent.py": "print('hello there')\n"})
    (result,) = json.loads(invoke_workbench("run", str(root), "--json").stdout)["results"]
    assert result["verdict"] == "ERROR" and "json.dumps" not in result["detail"]
