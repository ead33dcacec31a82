"""Which rows an iteration runs, and how each evaluator scores each of them: the one plan that the engine runs,
`run --reuse` and `check` explain, the session link proves an iteration against, MCP's `failing_only` narrows
and a `--tag`/`--type` TUI session counts (`plan`, `planned_keys`).

A row is planned when its set has evaluators, the selection wants it, and at least one evaluator scores it:
its format's `Dialect.criterion_for` may answer None (the evaluator does not score this row, as the `uipath`
SDK skips an evaluator a row names no criterion for); a row none scores is not run. Everything that decides
this lives here, so no caller can plan rows another way.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from ..dialects import dialect_for
from ..dialects.base import run_fingerprint_of
from ..model import EvalSet, EvaluatorDef, EvaluatorKey, Project, Row, RowKey
from ..scoring import Score, scorer_of, unsupported_message
from .records import row_fingerprint


@dataclass(slots=True)
class RowFilter:
    """Which rows an iteration runs: eval-set names, row ids/names, or exact row keys."""

    sets: tuple[str, ...] = ()
    rows: tuple[str, ...] = ()
    row_keys: frozenset[RowKey] | None = None

    def wants_set(self, eval_set: EvalSet) -> bool:
        return not self.sets or any(eval_set.answers_to(name) for name in self.sets)

    tags: tuple[str, ...] = ()
    kinds: tuple[str, ...] = ()

    def wants_row(self, eval_set: EvalSet, row: Row) -> bool:
        if self.row_keys is not None and eval_set.key_of(row) not in self.row_keys:
            return False
        if self.tags and not any(tag in row.tags for tag in self.tags):
            return False
        if self.kinds and row.kind not in self.kinds:
            return False
        return not self.rows or row.id in self.rows or (bool(row.name) and row.name in self.rows)

    def unmatched(self, project: Project) -> list[str]:
        """Names given on the command line that select nothing (probably typos)."""
        missing = [f"eval set {name!r}" for name in self.sets if not any(s.answers_to(name) for s in project.sets)]
        chosen = [s for s in project.sets if self.wants_set(s)]
        missing += [f"row {name!r}" for name in self.rows
                    if not any(r.id == name or r.name == name for s in chosen for r in s.rows)]
        missing += [f"tag {tag!r}" for tag in self.tags if not any(tag in r.tags for s in chosen for r in s.rows)]
        missing += [f"type {kind!r}" for kind in self.kinds if not any(r.kind == kind for s in chosen for r in s.rows)]
        return missing

    @property
    def partial(self) -> bool:
        """Rows are left out on purpose (by set, row, tag or type): history records such an iteration as
        partial, so it never stands as the previous full one."""
        return bool(self.sets or self.rows or self.tags or self.kinds) or self.row_keys is not None

    def narrowed(self, tags: tuple[str, ...], kinds: tuple[str, ...]) -> RowFilter:
        """This filter within `--tag` / `--type` (which hold for every iteration); tags or types the
        filter names itself win."""
        if not tags and not kinds:
            return self
        return dataclasses.replace(self, tags=self.tags or tags, kinds=self.kinds or kinds)


@dataclass(frozen=True, slots=True)
class ScorePlan:
    """How one evaluator scores one row: with `criterion`, or not at all (`preset` is the ERROR)."""

    ref: str
    evaluator: EvaluatorDef | None
    preset: Score | None = None
    criterion: dict[str, Any] | None = None


@dataclass(slots=True)
class RowPlan:
    """One planned row: its set, its place in file order, its key (`eval_set.key_of(row)`, made once: an
    iteration asks it of every row several times) and the evaluators that score it."""

    eval_set: EvalSet
    row: Row
    position: int
    key: RowKey
    plans: list[ScorePlan] = field(default_factory=list)


def plan(project: Project, selection: RowFilter) -> list[RowPlan]:
    """The rows an iteration with `selection` (already `narrowed` by the session's --tag / --type) runs, in
    file order, each with how every evaluator that scores it does."""
    jobs: list[RowPlan] = []
    for eval_set in project.sets:
        if not selection.wants_set(eval_set) or not eval_set.evaluator_refs:
            continue
        for row in eval_set.rows:
            if not selection.wants_row(eval_set, row):
                continue
            job = RowPlan(eval_set, row, len(jobs), eval_set.key_of(row))
            job.plans = [scored for ref in eval_set.evaluator_refs
                         if (scored := _plan_ref(project, eval_set, row, ref)) is not None]
            if job.plans:  # a row no evaluator scores (its format skips them all) is not run
                jobs.append(job)
    return jobs


def planned_keys(project: Project, selection: RowFilter) -> frozenset[RowKey]:
    """The rows `plan` selects: with `RowFilter().narrowed(tags, kinds)`, the rows a --tag/--type session
    counts (its status line and totals leave the others out)."""
    return frozenset(job.key for job in plan(project, selection))


def planned_errors(project: Project) -> list[tuple[EvalSet, Row, str, str]]:
    """(set, row, evaluator ref, why) for every result that is an ERROR before anything runs (a missing
    evaluator, a missing criterion, an unsupported type): what `workbench check` reports."""
    return [(job.eval_set, job.row, scored.ref, scored.preset.detail)
            for job in plan(project, RowFilter()) for scored in job.plans if scored.preset is not None]


def _shown(project: Project, evaluator: EvaluatorDef) -> str:
    """The evaluator's file as messages name it: relative to the project root when inside it."""
    try:
        return evaluator.path.relative_to(project.root).as_posix()
    except ValueError:
        return str(evaluator.path)


def _plan_ref(project: Project, eval_set: EvalSet, row: Row, ref: str) -> ScorePlan | None:
    """The evaluator and criterion to score with, the ERROR to report without scoring, or None: the
    row's format says this evaluator doesn't score this row (`Dialect.criterion_for`)."""
    key = EvaluatorKey(eval_set.scope, ref)
    evaluator = project.evaluators.get(key)
    if evaluator is None:
        dialect = dialect_for(eval_set.dialect)
        broken = project.broken_evaluators.get(key)
        message = (f"evaluator {dialect.evaluator_file(eval_set.scope, ref)} is broken: {broken}" if broken
                   else dialect.missing_evaluator(project, eval_set.scope, ref))
        return ScorePlan(ref, None, Score.error(message))
    scorer = scorer_of(evaluator)
    if scorer is None:
        return ScorePlan(ref, evaluator, Score.error(unsupported_message(
            evaluator.type_id, evaluator.dialect or eval_set.dialect, _shown(project, evaluator))))
    if row.problem is not None:
        return ScorePlan(ref, evaluator, Score.error(row.problem))
    config_problem = evaluator.target_error or scorer.check_config(evaluator)
    if config_problem:
        where = dialect_for(eval_set.dialect).evaluator_file(eval_set.scope, ref)
        return ScorePlan(ref, evaluator, Score.error(f"{where}: {config_problem}"))
    criterion = dialect_for(eval_set.dialect).criterion_for(row, ref, evaluator, scorer)
    if criterion is None:
        return None
    if isinstance(criterion, str):
        return ScorePlan(ref, evaluator, Score.error(criterion))
    return ScorePlan(ref, evaluator, criterion=criterion)


def run_fingerprint(job: RowPlan) -> str | None:
    """Everything the row hands its target (None: a row that can't run has nothing to fingerprint)."""
    if job.row.problem is not None:
        return None
    dialect = dialect_for(job.eval_set.dialect)
    return row_fingerprint(dialect.name, job.eval_set, job.row, run_fingerprint_of(dialect, job.row))
