"""Conversation eval files (seed 002): where they are found, the shapes a file may take, and every rule an
eval breaks showing as an ERROR of that eval that names the turn and the rule — never a silent pass."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.conversations import eval_doc, play, result_of, turn, write_evals
from helpers.project import make_project, row

from workbench.model import Verdict
from workbench.project import load_project


def hello(_request: dict) -> dict:
    return {"reply": "Hello"}


def problem_of(root: Path, name: str) -> str:
    project = load_project(root)
    rows = [r for s in project.sets for r in s.rows if r.name == name or r.id == name]
    assert len(rows) == 1, rows
    assert rows[0].problem, f"{name} has no problem"
    return rows[0].problem


# -- finding files --------------------------------------------------------------------------------


def test_eval_files_anywhere_under_evals_are_sets_and_each_eval_a_row(tmp_path: Path) -> None:
    write_evals(tmp_path, {"greeting": eval_doc("hi", [turn("Hi")])})
    write_evals(tmp_path, {"billing": [eval_doc("pay", [turn("Pay")]), eval_doc("refund", [turn("Back")])]},
                folder="evals/support")
    write_evals(tmp_path, {"wrapped": {"evals": [eval_doc("wrapped-one", [turn("x")])]}}, folder="evals/deep/er")
    project = load_project(tmp_path)
    sets = {s.stem: [r.name for r in s.rows] for s in project.sets}
    assert sets == {"greeting": ["hi"], "billing": ["pay", "refund"], "wrapped": ["wrapped-one"]}
    assert {s.dialect for s in project.sets} == {"conversations"}
    assert all(s.evaluator_refs == ["conversation"] for s in project.sets)
    assert not project.problems


def test_uipath_folders_are_not_searched_for_conversations(tmp_path: Path) -> None:
    make_project(tmp_path, sets={"grading": [row("r1", {"x": 1}, {"x": 1})]})
    for folder in ("eval-sets", "evaluators", "eval-files"):
        write_evals(tmp_path, {f"stray-{folder}": eval_doc(f"stray-{folder}", [turn("x")])},
                    folder=f"evals/default/{folder}")
    project = load_project(tmp_path)
    assert [s.file_name for s in project.sets] == ["grading.json"]


def test_conversation_sets_run_beside_uipath_sets(tmp_path: Path) -> None:
    make_project(tmp_path, sets={"grading": [row("r1", {"out": {"y": 1}}, {"y": 1})]})
    write_evals(tmp_path, {"greeting": eval_doc("hi", [turn("Hi", response=[{"contains": "Hello"}])])})

    def answer(request: dict) -> dict:
        return {"reply": "Hello"} if "turn" in request else request["out"]

    report = play(tmp_path, answer)
    assert {r.row_name: r.verdict for r in report.results} == {"r1": Verdict.PASS, "hi": Verdict.PASS}


def test_tags_and_type_are_kept_on_the_row(tmp_path: Path) -> None:
    write_evals(tmp_path, {"e": eval_doc("e", [turn("x")], tags=["smoke", "billing"], type="regression")})
    row_ = load_project(tmp_path).sets[0].rows[0]
    assert row_.tags == ("smoke", "billing") and row_.kind == "regression"


@pytest.mark.parametrize(("content", "message"), [
    ("{ not json", "is not valid JSON"),
    ("42", "must hold an eval object, an array of them"),
    ('{"evals": {"name": "x"}}', "\"evals\" must be an array"),
])
def test_a_broken_file_is_a_problem_naming_it(tmp_path: Path, content: str, message: str) -> None:
    write_evals(tmp_path, {"broken": content, "fine": eval_doc("fine", [turn("x")])})
    project = load_project(tmp_path)
    assert [p.file for p in project.problems] == ["evals/broken.eval.json"]
    assert message in project.problems[0].message
    assert [r.name for s in project.sets for r in s.rows] == ["fine"]


# -- rules of one eval ----------------------------------------------------------------------------

RULES = [
    ([{"expectSilence": True}], "turn 1: needs either user or event (expectSilence is a flag on a turn"),
    ([{"assert": {}}], "turn 1: needs either user or event"),
    ([{"user": "hi", "event": {"payload": {}}}], "turn 1: has both user and event"),
    ([{"user": "hi", "expectSilence": True, "assert": {"response": [{"contains": "x"}]}}],
     "turn 1: expectSilence and assert.response can't be used together"),
    ([{"user": "a"}, {"user": "b", "assert": {"respones": []}}],
     "turn 2: assert has unknown assertion category 'respones'"),
    ([{"user": "a"}, {"user": "b", "assert": {"response": [{"contain": "x"}]}}],
     "turn 2: assert.response[0] has unknown operator 'contain'"),
    ([{"user": "a", "assert": {"tools": [{"called": "t", "params": {"p": {"equal": 1}}}]}}],
     "turn 1: assert.tools[0].params['p'] has unknown operator 'equal'"),
    ([{"user": "a", "assert": {"tools": [{"calld": "t"}]}}], "turn 1: assert.tools[0] has unknown key 'calld'"),
    ([{"user": "a", "assert": {"state": [{"path": "conversation.x", "equls": 1}]}}],
     "turn 1: assert.state[0] has unknown key 'equls'"),
    ([{"user": "a", "assert": {"state": [{"path": "topic", "equals": 1}]}}],
     "path must start with bot., user. or conversation."),
    ([{"user": "a", "assert": {"timing": [{"response_time": {"lt": 5}}]}}],
     "turn 1: assert.timing[0].response_time has unknown operator 'lt'"),
    ([{"user": "a", "assert": {"workflow": [{"name": "w", "started": True}]}}],
     "turn 1: assert.workflow[0] has unknown key 'started'"),
    ([{"user": "a", "assert": {"response": [{"matches": "(unclosed"}]}}], "is not a valid regular expression"),
    ([{"user": "a", "assert": {"state": [{"path": "bot.n", "in": "abc"}]}}], "in needs an array"),
    ([{"user": "a", "bogus": 1}], "turn 1: unknown field 'bogus'"),
    ([{"event": {"orderId": 1}}], "turn 1: event must be {\"payload\": ...}"),
    ([{"user": 5}], "turn 1: user must be the message text"),
]


@pytest.mark.parametrize(("turns", "message"), RULES)
def test_every_turn_rule_is_an_error_naming_the_turn_and_rule(tmp_path: Path, turns: list, message: str) -> None:
    write_evals(tmp_path, {"e": eval_doc("broken", turns), "ok": eval_doc("ok", [turn("Hi")])})
    assert message in problem_of(tmp_path, "broken")
    report = play(tmp_path, hello)
    broken = result_of(report, "broken")
    assert broken.verdict is Verdict.ERROR and message in broken.detail
    assert result_of(report, "ok").verdict is Verdict.PASS


@pytest.mark.parametrize(("fields", "message"), [
    ({"name": ""}, "name is required"),
    ({"conversation": None}, "conversation is required"),
    ({"type": "smoke"}, "type must be \"capability\" or \"regression\""),
    ({"tags": "smoke"}, "tags must be an array"),
    ({"colour": "red"}, "unknown field 'colour'"),
    ({"options": {"idleTimeout": -1}}, "options.idleTimeout must be a number of milliseconds above 0"),
    ({"options": {"judgePassThreshold": 6}}, "options.judgePassThreshold must be a number from 1 to 5"),
    ({"options": {"retries": 2}}, "options has unknown field 'retries'"),
    ({"setup": {"state": {"session": {}}}}, "setup.state has unknown scope 'session'"),
    ({"setup": {"workflow": {"input": {}}}}, "setup.workflow must be {\"trigger\""),
    ({"outcome": {"response": [{"contains": "x"}]}}, "outcome: response assertions are per turn"),
    ({"outcome": {"tools": [{"called": "x"}]}}, "outcome: tools assertions are per turn"),
    ({"outcome": {"state": [{"path": "bot.x"}]}}, "outcome.state[0] names a path but asserts nothing"),
])
def test_eval_level_rules(tmp_path: Path, fields: dict, message: str) -> None:
    doc = {**eval_doc("broken", [turn("Hi")]), **fields}
    doc = {k: v for k, v in doc.items() if v is not None}
    write_evals(tmp_path, {"e": doc})
    project = load_project(tmp_path)
    problems = [r.problem or "" for s in project.sets for r in s.rows]
    assert any(message in p for p in problems), problems


def test_every_broken_rule_of_an_eval_is_listed_not_just_the_first(tmp_path: Path) -> None:
    write_evals(tmp_path, {"e": eval_doc("broken", [{"expectSilence": True}, {"user": "x", "assert": {"tool": []}}],
                                         type="smoke")})
    problem = problem_of(tmp_path, "broken")
    assert "turn 1: needs either user or event" in problem
    assert "turn 2: assert has unknown assertion category 'tool'" in problem
    assert "type must be" in problem


def test_a_duplicate_name_is_an_error_of_the_second_eval(tmp_path: Path) -> None:
    write_evals(tmp_path, {"a": eval_doc("same", [turn("x")]), "b": [eval_doc("same", [turn("y")]),
                                                                     eval_doc("same", [turn("z")])]})
    project = load_project(tmp_path)
    rows = {(s.stem, r.id): r.problem for s in project.sets for r in s.rows}
    assert rows[("a", "same")] is None
    assert "name 'same' is already used by the eval in evals/a.eval.json" in (rows[("b", "same")] or "")
    assert "already used" in (rows[("b", "same#1")] or "")


def test_a_non_object_entry_is_skipped_with_a_problem(tmp_path: Path) -> None:
    write_evals(tmp_path, {"list": [eval_doc("one", [turn("x")]), "two"]})
    project = load_project(tmp_path)
    assert [r.name for r in project.sets[0].rows] == ["one"]
    assert "evals[1] must be an eval object, not string" in project.problems[0].message
