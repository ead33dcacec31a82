"""The sixth format, kept in the tests: the example a new format copies (ARCHITECTURE.md, "The dialect seam").

It plugs in through the public seam only — this package and one registration (`dialects.added_dialect(
QuizDialect())`; a format shipped in workbench adds its "module:Class" to `REGISTRY` instead) — and runs,
re-scores, accepts, adds rows and reports like the real ones (`tests/dialects/toy/test_quiz_format.py`).

The files: `<name>.quiz.json` at the project root, each a set whose questions are its rows:

    {"evaluations": [{"id": "q1", "name": "hi", "inputs": {"q": "hi"},
                      "evaluationCriterias": {"answer": {"expectedOutput": {"a": "HI"}}}}]}

(`evaluations` / `evaluationCriterias` / `expectedOutput` because accept and add-row write that shape.) The
target answers each question; the `answer` evaluator (type `toy-quiz-answer`, which the format brings) passes
when the answer is the expected one.

What it is, in the seam's terms: the core (`Dialect`: name, title, words, present, load, scorers — the rows
call the target once and are scored by every evaluator, so `execute`, `criterion_for` and `refs_of` stay the
core's), its words (`Words`) and three capabilities: `WritesRows` (accept, add-row), `Digests` (its failure
digest) and `HasHtmlDetail` (its rows in the HTML report). Every other capability is left out, and so is
every word it doesn't need.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from workbench.config import Config
from workbench.dialects.base import UNREADABLE, Dialect, LoadContext, Words, default_expected_sources
from workbench.dialects.detail import Block, RowDetail, sides, text_block
from workbench.model import EvalSet, EvaluatorDef, EvaluatorKey, Result, Row, unique_ids
from workbench.scoring.base import Score, ScoreInput, Scorer

NAME = "toy-quiz"
SUFFIX = ".quiz.json"
SCOPE = "quizzes"  # every set's scope (one scope: the project)
REF = "answer"  # the one evaluator, built in: it has no file
ANSWER_TYPE = "toy-quiz-answer"


class AnswerScorer(Scorer):
    """Passes when the target's output is the expected one (a whole-output comparison accept can write)."""

    type_id: ClassVar[str] = ANSWER_TYPE
    uses_expected_output: ClassVar[bool] = True  # accept writes the output as `expectedOutput`

    def score(self, data: ScoreInput) -> Score:
        want = data.criterion.get("expectedOutput")
        got = data.output.get("a") if isinstance(data.output, dict) else None
        if data.output == want:
            return Score.passed(f"answered {got!r}", expected=want)
        wanted = want.get("a") if isinstance(want, dict) else want
        return Score.failed(f"answered {got!r}, wanted {wanted!r}", expected=want)


def row_ids(entries: list[Any]) -> list[str | None]:
    """A question's id (else its position): the rule loading uses and accept finds a row again by."""
    return unique_ids([(str(e.get("id") or f"#{i}") if isinstance(e, dict) else None) for i, e in enumerate(entries)])


def detail_blocks(detail: RowDetail) -> list[Block]:
    """A question in the HTML report: what was asked, what came back, what was wanted."""
    asked = detail.row.inputs.get("q") if detail.row is not None else None
    return [text_block("Question", f"asked {asked!r}"),
            sides("wanted", detail.result.expected, "answered", detail.result.actual)]


class QuizDialect(Dialect):
    """Quizzes: the core, its words, and `WritesRows` + `Digests` + `HasHtmlDetail`."""

    # -- the core --------------------------------------------------------------------------------------------
    name = NAME
    title = "quizzes"
    words = Words(
        expects=f"*{SUFFIX}",
        evaluator_file="the built-in evaluator {ref!r}",
        missing_criterion="question has no evaluationCriterias[{ref!r}] (it has: {present})",
    )

    def present(self, root: Path, config: Config | None) -> bool:
        return any(root.glob(f"*{SUFFIX}"))

    def load(self, ctx: LoadContext) -> None:
        for path in sorted(ctx.root.glob(f"*{SUFFIX}")):
            doc = ctx.read_json(path)
            if doc is UNREADABLE:
                continue
            entries = doc.get("evaluations") if isinstance(doc, dict) else None
            if not isinstance(entries, list):
                ctx.problem(path, "must be an object with an \"evaluations\" list of questions")
                continue
            rows = []
            for index, (entry, row_id) in enumerate(zip(entries, row_ids(entries), strict=True)):
                if row_id is None or not isinstance(entry.get("inputs"), dict):
                    ctx.problem(path, f"evaluations[{index}] is not a question (an object with \"inputs\"); skipped")
                    continue
                rows.append(Row(id=row_id, name=str(entry.get("name") or row_id), inputs=entry["inputs"],
                                criteria=entry.get("evaluationCriterias") or {}, index=index, raw=entry))
            ctx.project.sets.append(EvalSet(scope=SCOPE, path=path, id=None, name=path.name, evaluator_refs=[REF],
                                            rows=rows, dialect=self.name, short_name=path.name.removesuffix(SUFFIX)))
        ctx.project.evaluators[EvaluatorKey(SCOPE, REF)] = EvaluatorDef(
            scope=SCOPE, ref=REF, path=ctx.root, id=None, name=REF, type_id=ANSWER_TYPE, config={}, raw={},
            dialect=self.name)

    def scorers(self) -> tuple[Scorer, ...]:
        return (AnswerScorer(),)

    # -- WritesRows: accept and add-row write its sets ----------------------------------------------------------
    row_sets = f"*{SUFFIX} at the project root"
    default_criterion_as_null = False

    def is_row_set(self, root: Path, real: Path) -> bool:
        return real.parent == root.resolve() and real.name.endswith(SUFFIX)

    def row_ids(self, entries: list[Any]) -> list[str | None]:
        return row_ids(entries)

    def expected_sources(self, entry: Any, ref: str, evaluator: EvaluatorDef) -> list[Any]:
        return default_expected_sources(evaluator)

    # -- Digests: a failure in its words -----------------------------------------------------------------------
    def digest(self, result: Result) -> str:
        return f"quiz says: {result.detail}"

    # -- HasHtmlDetail: its rows in the HTML report ------------------------------------------------------------
    html_detail = f"{__name__}:detail_blocks"


__all__ = ["ANSWER_TYPE", "NAME", "REF", "SCOPE", "SUFFIX", "AnswerScorer", "QuizDialect", "detail_blocks", "row_ids"]
