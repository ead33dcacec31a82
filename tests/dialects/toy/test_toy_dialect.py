"""The sixth format, kept in the tests (`helpers/quiz_format/`: the example ARCHITECTURE.md tells the next format
to copy), joins workbench through `dialects.added_dialect` alone and goes through `run` (text, JSON, JUnit,
HTML), re-scoring, accept, add-row, the history and the TUI without a line changed anywhere else (issue 21: "a
format is one folder"; issue 34: "a sixth format that stays in the tests"). `test_the_quiz_format_needs_no_core_change`
holds the "alone": workbench's source names nothing of it, and it imports only the seam.

The quiz format: `*.quiz.json` files at the project root, each question a row (`{"evaluations": [{"id", "name",
"inputs": {"q": ...}, "evaluationCriterias": {"answer": {"expectedOutput": {"a": ...}}}}]}`); the target answers
each question, and the `answer` evaluator (type `toy-quiz-answer`) passes when the answer is the expected one."""

from __future__ import annotations

import ast
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers.cli import invoke_json, invoke_workbench
from helpers.paths import PACKAGE
from helpers.quiz_format import ANSWER_TYPE, AnswerScorer, QuizDialect
from helpers.tui import SIZE, settled, shown_rows, wait_until

from workbench.config import load_config
from workbench.dialects import REGISTRY, added_dialect, dialect_for
from workbench.dialects.base import CAPABILITIES, CORE, Digests, HasHtmlDetail, WritesRows, members_of
from workbench.scoring import scorer_for
from workbench.tui.app import make_app

QUIZ_PACKAGE = Path(__file__).parents[2] / "helpers" / "quiz_format"

ANSWER = """\
import json, sys
question = json.load(sys.stdin)["q"]
print(json.dumps({"a": question.upper() if question != "shout" else "quiet"}))
"""


@pytest.fixture
def quiz() -> Iterator[QuizDialect]:
    with added_dialect(QuizDialect()) as dialect:
        yield dialect


def question(row_id: str, q: str, a: str) -> dict[str, Any]:
    return {"id": row_id, "name": q, "inputs": {"q": q},
            "evaluationCriterias": {"answer": {"expectedOutput": {"a": a}}}}


def quiz_project(root: Path) -> Path:
    root.mkdir()
    (root / "answer.py").write_text(ANSWER, encoding="utf-8")
    (root / "workbench.toml").write_text(f'[runner]\nkind = "command"\ncommand = [{json.dumps(sys.executable)}, '
                                         '"answer.py"]\ntimeout = 30\n', encoding="utf-8")
    questions = [question("q1", "hi", "HI"), question("q2", "shout", "SHOUT")]
    (root / "capitals.quiz.json").write_text(json.dumps({"evaluations": questions}, indent=2), encoding="utf-8")
    return root


def test_the_toy_format_is_found_by_name_and_its_scorer_is_registered(quiz: QuizDialect) -> None:
    assert dialect_for("toy-quiz") is quiz
    assert isinstance(scorer_for(ANSWER_TYPE), AnswerScorer)


def test_run_scores_the_toy_rows_and_prints_its_digest(quiz: QuizDialect, tmp_path: Path) -> None:
    root = quiz_project(tmp_path / "project")
    proc = invoke_workbench("run", str(root))
    assert proc.returncode == 1, proc.stderr
    assert "PASS" in proc.stdout and "FAIL" in proc.stdout
    assert "quiz says: answered 'quiet', wanted 'SHOUT'" in proc.stdout  # the format's own digest
    assert "1 passed" in proc.stdout or "1/2" in proc.stdout, proc.stdout


def test_the_json_and_junit_reports_and_the_history_hold_the_toy_rows(quiz: QuizDialect, tmp_path: Path) -> None:
    root = quiz_project(tmp_path / "project")
    junit = tmp_path / "junit.xml"
    proc, doc = invoke_json("run", str(root), "--junit", str(junit))
    assert proc.returncode == 1, proc.stderr
    by_row = {r["rowName"] if "rowName" in r else r.get("row"): r for r in doc["results"]}
    verdicts = sorted(r["verdict"] for r in doc["results"])
    assert verdicts == ["FAIL", "PASS"], by_row
    text = junit.read_text(encoding="utf-8")
    assert "capitals" in text and "answered" in text and "quiet" in text
    history, recorded = invoke_json_history(root)
    assert history.returncode == 0, history.stderr
    assert sorted(r["verdict"] for r in recorded["results"]) == ["FAIL", "PASS"]


def invoke_json_history(root: Path) -> tuple[Any, dict[str, Any]]:
    proc = invoke_workbench("history", "1", "--json", cwd=root)
    return proc, json.loads(proc.stdout) if proc.returncode == 0 else {}


async def test_the_tui_shows_the_toy_rows_with_their_verdicts(quiz: QuizDialect, tmp_path: Path) -> None:
    root = quiz_project(tmp_path / "project")
    app = make_app(load_config(root), watch=False, record=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.main.iterations_done >= 1, "the first iteration")
        await settled(app, pilot)
        rows = shown_rows(app)
        assert rows["q1"].startswith("✔ hi"), rows
        assert rows["q2"].startswith("✘ shout"), rows


# -- the rest of what a real format does: re-scored, accepted, rows added, the HTML report --------------------------


def test_a_changed_expectation_is_re_scored_then_accepted_into_the_quiz_file(quiz: QuizDialect, tmp_path: Path) -> None:
    root = quiz_project(tmp_path / "project")
    proc, first = invoke_json("run", str(root), "--reuse")
    assert proc.returncode == 1, proc.stderr
    assert {r["row_id"]: (r["verdict"], bool(r.get("reused"))) for r in first["results"]} == {
        "q1": ("PASS", False), "q2": ("FAIL", False)}
    accepted = invoke_workbench("accept", str(root), "--set", "capitals", "--row", "q2", "--yes")
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    doc = json.loads((root / "capitals.quiz.json").read_text(encoding="utf-8"))
    assert doc["evaluations"][1]["evaluationCriterias"]["answer"] == {"expectedOutput": {"a": "quiet"}}
    assert doc["evaluations"][0] == question("q1", "hi", "HI")  # the rest of the file as written
    # the expectation changed, not what the row hands its target: both rows are re-scored, none runs again
    proc, again = invoke_json("run", str(root), "--reuse")
    assert proc.returncode == 0, proc.stdout
    assert {r["row_id"]: (r["verdict"], bool(r.get("reused"))) for r in again["results"]} == {
        "q1": ("PASS", True), "q2": ("PASS", True)}


def test_add_row_appends_a_question_with_the_targets_answer(quiz: QuizDialect, tmp_path: Path) -> None:
    root = quiz_project(tmp_path / "project")
    added = invoke_workbench("add-row", str(root), "--set", "capitals", "--name", "bye", "--inputs", '{"q": "bye"}')
    assert added.returncode == 0, added.stdout + added.stderr
    (new,) = json.loads((root / "capitals.quiz.json").read_text(encoding="utf-8"))["evaluations"][2:]
    assert (new["name"], new["inputs"], new["evaluationCriterias"]) == (
        "bye", {"q": "bye"}, {"answer": {"expectedOutput": {"a": "BYE"}}})
    proc, doc = invoke_json("run", str(root))
    assert sorted(r["verdict"] for r in doc["results"]) == ["FAIL", "PASS", "PASS"], proc.stdout


def test_the_html_report_draws_a_question_its_own_way(quiz: QuizDialect, tmp_path: Path) -> None:
    root = quiz_project(tmp_path / "project")
    page = tmp_path / "report.html"
    proc = invoke_workbench("run", str(root), "--html", str(page))
    assert proc.returncode == 1, proc.stderr
    text = page.read_text(encoding="utf-8")
    assert "asked 'shout'" in text and "Question" in text  # its `detail_blocks`, not the default inputs block


def test_the_quiz_format_is_the_core_and_three_capabilities(quiz: QuizDialect) -> None:
    assert [cap.__name__ for cap in CAPABILITIES if isinstance(quiz, cap)] == [
        WritesRows.__name__, HasHtmlDetail.__name__, Digests.__name__]
    own = {name for cls in type(quiz).__mro__[:-1] if cls.__module__.startswith("helpers.")
           for name in vars(cls) if not name.startswith("_")}
    capability_members = {name for cap in (WritesRows, HasHtmlDetail, Digests) for name in members_of(cap)}
    assert own <= set(CORE) | capability_members, own - set(CORE) - capability_members


def _imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
    return found


SEAM = {"workbench.config", "workbench.dialects.base", "workbench.dialects.detail", "workbench.model",
        "workbench.scoring.base"}


def test_the_quiz_format_needs_no_core_change() -> None:
    """It plugs in through the public seam only: its package imports nothing of workbench but the seam's modules,
    it is in no registry, and workbench's source names nothing of it (its name, its type, its package)."""
    imported = set().union(*(_imports(path) for path in QUIZ_PACKAGE.rglob("*.py")))
    assert {m for m in imported if m.startswith("workbench")} <= SEAM, imported
    assert not any("quiz" in entry for entry in REGISTRY)
    marks = ("toy-quiz", ANSWER_TYPE, "helpers.quiz_format", "QuizDialect")  # (its folder may be named: as the example)
    named = [f"{path.relative_to(PACKAGE.parent)}: {mark}" for path in sorted(PACKAGE.rglob("*.py"))
             for mark in marks if mark in path.read_text(encoding="utf-8")]
    assert not named, named
