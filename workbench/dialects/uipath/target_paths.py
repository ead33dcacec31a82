"""Rows whose `expectedOutput` lacks a path their evaluator's targetOutputKey compares: what `check` says of a
UiPath project with or without a Workflow.json (the schema checker, `contract.py`, is imported only with one)."""

from __future__ import annotations

import difflib
from dataclasses import replace
from typing import Any

from ... import jsonio
from ...model import EvalSet, EvaluatorDef, Problem, Project, Severity
from ...output_paths import MISSING, WHOLE, select, split_path
from ...scoring import scorer_of
from ..base import relative


def structural(evaluator: EvaluatorDef) -> bool:
    """Whether the evaluator compares `expectedOutput` key by key (so its keys must be the output's keys):
    a capability of its scorer."""
    scorer = scorer_of(evaluator)
    return scorer is not None and scorer.structural


def expected_output(criterion: Any) -> Any:
    """The row's `expectedOutput` as scorers see it (a JSON string is parsed), or MISSING."""
    if not isinstance(criterion, dict) or "expectedOutput" not in criterion:
        return MISSING
    expected = criterion["expectedOutput"]
    if isinstance(expected, str):
        try:
            return jsonio.loads(expected)
        except jsonio.JsonError:
            return expected
    return expected


def structural_evaluators(project: Project, eval_set: EvalSet) -> list[EvaluatorDef]:
    evaluators = project.evaluators_of(eval_set.scope)
    found = [evaluators.get(ref) for ref in eval_set.evaluator_refs]
    return [e for e in found if e is not None and structural(e) and not e.target_error]


def missing_path(label: str, evaluator: EvaluatorDef, path: str, expected: Any) -> str:
    """`expectedOutput has no "sum", which ...'s targetOutputKey compares`, with how `expected` spells
    the path in another casing or nearly (`"Sum" — did you mean "sum"?`) when it does."""
    text = (f"{label} has no {jsonio.dumps(path)}, which {evaluator.ref}'s targetOutputKey compares "
            "(a missing path fails)")
    spelled = _spelled(expected, split_path(path))
    if spelled is None:
        return text
    hint = f": {jsonio.dumps('.'.join(spelled))} — did you mean {jsonio.dumps(path)}?"
    if [s.lower() for s in spelled] == [s.lower() for s in split_path(path)]:
        hint += " Keys are case-sensitive"
    return text + hint


def _spelled(value: Any, segments: list[str]) -> list[str] | None:
    """The keys of `value` that spell the path `segments` in another casing (or one typo off), level by
    level; None when some level has no such key."""
    spelled: list[str] = []
    for segment in segments:
        if not isinstance(value, dict):
            return None
        if segment in value:
            key = segment
        else:
            keys = [k for k in value if isinstance(k, str)]
            near = ([k for k in keys if k.lower() == segment.lower()]
                    or difflib.get_close_matches(segment, keys, n=1, cutoff=0.75))
            if not near:
                return None
            key = near[0]
        spelled.append(key)
        value = value[key]
    return spelled


def target_path_problems(project: Project) -> list[Problem]:
    """Rows whose `expectedOutput` lacks a path their structural evaluator's targetOutputKey compares —
    rows that can only FAIL — said without a Workflow.json schema (with one, `contract_problems` says it)."""
    problems: list[Problem] = []
    for eval_set in project.sets:
        if eval_set.dialect != "uipath":
            continue
        evaluators = [e for e in structural_evaluators(project, eval_set) if WHOLE not in e.target_paths]
        file = relative(project.root, eval_set.path)
        for row in eval_set.rows:
            if row.problem is not None:
                continue
            where = f"evaluations[{row.index}]" + (f" ({row.name!r})" if row.name else "")
            for evaluator in evaluators:
                expected = expected_output(row.criteria.get(evaluator.ref))
                if expected is MISSING:
                    continue
                label = "expectedOutput" + (f" ({evaluator.ref})" if len(eval_set.evaluator_refs) > 1 else "")
                problems.extend(Problem(file, f"{where}: {missing_path(label, evaluator, path, expected)}",
                                        Severity.ERROR, eval_set.key_of(row))
                                for path in evaluator.target_paths if select(expected, path) is MISSING)
    return problems


def as_warnings(problems: list[Problem]) -> list[Problem]:
    """The same findings as warnings: what loading says beside the rows, where `check` says errors."""
    return [replace(p, severity=Severity.WARNING) for p in problems]
