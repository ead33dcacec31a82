"""The rows of a run that did not pass, each with its failing evaluators in its format's words and the row
as loaded (its set and `Row`, when the project still has it): what the Markdown digest and the CI
annotations both list. ERROR rows first, then FAIL, each in file order (the agent's digest orders alike)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..model import EvalSet, Project, Result, Row, RowKey, Verdict, results_by_row, row_verdict
from .text import digests_of


@dataclass(slots=True)
class FailingRow:
    key: RowKey
    name: str  # the row's display name
    set_name: str  # the set's display name (`SetKey.shown`)
    verdict: Verdict
    failures: list[tuple[str, str]]  # (evaluator ref, the format's account of the failure)
    eval_set: EvalSet | None = None
    row: Row | None = None


def failing_rows(results: Sequence[Result], project: Project | None) -> list[FailingRow]:
    """Every row of `results` that did not pass."""
    digest = digests_of(project) if project is not None else (lambda r: r.detail)
    rows_of: dict[RowKey, tuple[EvalSet, Row]] = {}
    if project is not None:
        rows_of = {eval_set.key_of(row): (eval_set, row) for eval_set in project.sets for row in eval_set.rows}
    several = project is not None and len(project.scopes) > 1
    failing: list[FailingRow] = []
    for key, group in results_by_row(results).items():
        verdict = row_verdict(r.verdict for r in group)
        if verdict is None or verdict is Verdict.PASS:
            continue
        failures = [(r.evaluator, digest(r) or r.detail or r.verdict.value) for r in group if not r.passed]
        found = rows_of.get(key)
        failing.append(FailingRow(key, group[0].label, group[0].set_key.shown(several), verdict, failures,
                                  found[0] if found else None, found[1] if found else None))
    return sorted(failing, key=lambda row: row.verdict is not Verdict.ERROR)
