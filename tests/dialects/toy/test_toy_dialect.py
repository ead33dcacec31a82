"""A format defined entirely in this module — its loader, its evaluator type, its failure digest — joins
workbench through `dialects.added_dialect` and goes through `run` (text, JSON, JUnit), the history and
the TUI without a line changed anywhere else (issue 21: "a format is one folder").

The toy format: `*.quiz.json` files at the project root, `{"questions": [{"q": "hi", "a": "HI"}]}`; the
target answers each question, and the `toy-upper` evaluator passes when its answer is the expected one."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest
from helpers.cli import invoke_json, invoke_workbench
from helpers.tui import SIZE, settled, shown_rows, wait_until

from workbench.config import Config, load_config
from workbench.dialects import added_dialect, dialect_for
from workbench.dialects.base import UNREADABLE, Dialect, LoadContext
from workbench.model import EvalSet, EvaluatorDef, Result, Row
from workbench.scoring import scorer_for
from workbench.scoring.base import Score, ScoreInput, Scorer
from workbench.tui.app import make_app

SCOPE = "quizzes"
REF = "upper"

ANSWER = """\
import json, sys
question = json.load(sys.stdin)["q"]
print(json.dumps({"a": question.upper() if question != "shout" else "quiet"}))
"""


class UpperScorer(Scorer):
    """Passes when the target's answer is the question's expected answer."""

    type_id: ClassVar[str] = "toy-upper"

    def score(self, data: ScoreInput) -> Score:
        answer = data.output.get("a") if isinstance(data.output, dict) else None
        want = data.criterion.get("a")
        if answer == want:
            return Score.passed(f"answered {answer!r}")
        return Score.failed(f"answered {answer!r}, wanted {want!r}", expected=want)


class QuizDialect(Dialect):
    """Questions in `<name>.quiz.json` at the project root; each file is a set, each question a row."""

    name = "toy-quiz"
    title = "quizzes"
    expects = "*.quiz.json"

    def scorers(self) -> tuple[Scorer, ...]:
        return (UpperScorer(),)

    def digest(self, result: Result) -> str:
        return f"quiz says: {result.detail}"

    def present(self, root: Path, config: Config | None) -> bool:
        return any(root.glob("*.quiz.json"))

    def load(self, ctx: LoadContext) -> None:
        for path in sorted(ctx.root.glob("*.quiz.json")):
            doc = ctx.read_json(path)
            if doc is UNREADABLE:
                continue
            rows = [Row(id=f"q{index + 1}", name=str(q["q"]), inputs={"q": q["q"]}, criteria={REF: {"a": q["a"]}},
                        index=index, raw=q) for index, q in enumerate(doc["questions"])]
            ctx.project.sets.append(EvalSet(scope=SCOPE, path=path, id=None, name=path.name, evaluator_refs=[REF],
                                            rows=rows, dialect=self.name, short_name=path.name.split(".")[0]))
        ctx.project.evaluators[(SCOPE, REF)] = EvaluatorDef(scope=SCOPE, ref=REF, path=ctx.root, id=None,
                                                           name="upper", type_id=UpperScorer.type_id,
                                                           config={}, raw={})


@pytest.fixture
def quiz() -> Iterator[QuizDialect]:
    with added_dialect(QuizDialect()) as dialect:
        yield dialect


def quiz_project(root: Path) -> Path:
    root.mkdir()
    (root / "answer.py").write_text(ANSWER, encoding="utf-8")
    (root / "workbench.toml").write_text(f'[runner]\nkind = "command"\ncommand = [{json.dumps(sys.executable)}, '
                                         '"answer.py"]\ntimeout = 30\n', encoding="utf-8")
    questions = [{"q": "hi", "a": "HI"}, {"q": "shout", "a": "SHOUT"}]
    (root / "capitals.quiz.json").write_text(json.dumps({"questions": questions}), encoding="utf-8")
    return root


def test_the_toy_format_is_found_by_name_and_its_scorer_is_registered(quiz: QuizDialect) -> None:
    assert dialect_for("toy-quiz") is quiz
    assert isinstance(scorer_for("toy-upper"), UpperScorer)


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
