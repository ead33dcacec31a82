"""Accept: make a row's actual output its expected output. Planned first (a diff to show), then
written with `writing.write_plan` when the user confirms."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from ..config import Config
from ..dialects import dialect_for
from ..history import DB_NAME, HistoryError, HistoryStore
from ..model import EvalSet, Project, Result, Row
from ..project import load_project
from ..writeback import WritebackError, WritePlan
from ..writeback.accept import plan_accept
from ..writeback.recorded import acceptable, recorded_for_row
from ..writeback.rows import find_row, find_set
from .writing import Refused


@dataclass(slots=True)
class AcceptPreview:
    """What accepting would write, before anything is written."""

    plan: WritePlan
    label: str  # the row's display name
    notes: list[str] = field(default_factory=list)  # evaluators skipped, timestamps left alone, …
    iteration: int | None = None  # the history iteration the output comes from, when read from history
    eval_set: EvalSet | None = None  # the set the row belongs to (bulk accept groups rows by it)
    results: list[Result] = field(default_factory=list)  # the results accepted (bulk accept writes them again)

    @property
    def changed(self) -> bool:
        """False when the file already holds this output as the expectation: nothing to write."""
        return self.plan.changed


def refuse_format(eval_set: EvalSet, row: Row) -> None:
    """Refused when the row's format has no expected output to write (a conversation eval)."""
    reason = dialect_for(eval_set.dialect).words.accept_refusal
    if reason:
        raise Refused(f"{row.label!r} {reason}")


def preview_accept(project: Project, eval_set: EvalSet, row: Row, results: Iterable[Result | None]) -> AcceptPreview:
    """Accepting the row's results as they are on screen (every evaluator that compares with
    expectedOutput; the others become notes). Raises Refused when none can be accepted."""
    refuse_format(eval_set, row)
    evaluators = project.evaluators_of(eval_set.scope)
    kept, notes = acceptable([r for r in results if r is not None], evaluators)
    try:
        if not kept:
            raise WritebackError("none of this row's evaluators compares the output with expectedOutput"
                                 + (f" ({'; '.join(notes)})" if notes else ""))
        plan = plan_accept(project.root, eval_set.path, kept, evaluators)
    except WritebackError as exc:
        raise Refused(str(exc)) from None
    return AcceptPreview(plan, row.label, notes + plan.notes, eval_set=eval_set, results=kept)


def preview_recorded_accept(config: Config, set_name: str, row_ref: str, *, evaluator: str | None = None,
                            iteration: int | None = None) -> AcceptPreview:
    """Accepting the output history recorded for the row named by `set_name` / `row_ref` (in
    `iteration`, default the newest that ran it). An unknown set or row is a usage error (exit 2);
    anything that stops the write is Refused."""
    project = load_project(config.root, config)
    eval_set = find_set(project, set_name)
    row = find_row(eval_set, row_ref)
    refuse_format(eval_set, row)
    with open_history(config, f"workbench run --set {eval_set.stem} --row {row.id}") as store:
        return recorded_preview(project, store, eval_set, row, evaluator=evaluator, iteration=iteration)


def open_history(config: Config, run_first: str) -> HistoryStore:
    """The history to accept from; Refused (saying to run `run_first`) when nothing has run yet."""
    if not (config.state_dir / DB_NAME).is_file():
        raise Refused(f"no recorded output to accept: nothing has run in {config.root} yet. Run it first: {run_first}")
    try:
        return HistoryStore.open(config)
    except HistoryError as exc:
        raise Refused(str(exc)) from None


def recorded_preview(project: Project, store: HistoryStore, eval_set: EvalSet, row: Row, *,
                     evaluator: str | None = None, iteration: int | None = None) -> AcceptPreview:
    """Accepting the row's output as `store` recorded it; Refused when that can't be written."""
    evaluators = project.evaluators_of(eval_set.scope)
    try:
        recorded = recorded_for_row(store, eval_set, row, evaluators, evaluator=evaluator, iteration=iteration)
        plan = plan_accept(project.root, eval_set.path, recorded.results, evaluators)
    except (WritebackError, HistoryError) as exc:
        raise Refused(str(exc)) from None
    return AcceptPreview(plan, row.label, recorded.notes + plan.notes, recorded.iteration, eval_set,
                         recorded.results)
