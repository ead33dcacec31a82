"""Bulk accept: bless many rows at once after a deliberate behaviour change.

Every row is previewed on its own (its own diff, for the user to accept or skip, like an interactive
snapshot update); then all the accepted rows of one eval set go into that file in one surgical write,
so a file is read, checked and replaced once however many rows it gets. The CLI (`accept --row A
--row B`, `accept --all-failing`) and the TUI's `A` walk both call this module.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..config import Config
from ..dialects import dialect_for
from ..errors import WorkbenchError
from ..history import HistoryError, HistoryStore
from ..model import EvalSet, Project, Result, ResultKey, Row, RowKey, results_by_row, row_passes
from ..project import load_project
from ..writeback import WritebackError, WritePlan
from ..writeback.accept import plan_accept_rows
from ..writeback.rows import find_row, find_set
from .accept import AcceptPreview, open_history, preview_accept, recorded_preview, refuse_format
from .writing import Refused, write_plan


@dataclass(slots=True)
class BulkPreview:
    """The rows a bulk accept offers, each previewed alone, and the failing rows it can't offer."""

    project: Project
    previews: list[AcceptPreview] = field(default_factory=list)  # in set order, then row order
    skipped: list[str] = field(default_factory=list)  # "'row' (set): why it is not offered"

    @property
    def files(self) -> list[str]:
        """The eval sets the offered rows would change (display paths, in order)."""
        return list(dict.fromkeys(preview.plan.display for preview in self.previews))


@dataclass(slots=True)
class FileOutcome:
    """What writing one eval set's accepted rows did: written, or refused with the reason."""

    display: str
    labels: list[str]
    written: WritePlan | None = None
    refused: str | None = None


def _offer(bulk: BulkPreview, eval_set: EvalSet, row: Row, preview: AcceptPreview) -> None:
    if preview.changed:
        bulk.previews.append(preview)
    else:
        bulk.skipped.append(f"{row.label!r} ({eval_set.file_name}): its expectations already hold this output")


def _offer_if_failing(bulk: BulkPreview, eval_set: EvalSet, row: Row, results: list[Result],
                      iteration: int | None = None) -> None:
    """Offer the row when its results don't all pass; a failing row accept can't fix (an ERROR, no
    evaluator that compares with expectedOutput) is listed as skipped with the reason."""
    if not results or row_passes(results):
        return
    try:
        preview = preview_accept(bulk.project, eval_set, row, results)
    except Refused as exc:
        bulk.skipped.append(f"{row.label!r} ({eval_set.file_name}): {exc}")
        return
    preview.iteration = iteration
    _offer(bulk, eval_set, row, preview)


def acceptable_sets(project: Project) -> list[EvalSet]:
    """The sets whose format has expectations to accept (conversation evals have none)."""
    return [s for s in project.sets if not dialect_for(s.dialect).words.accept_refusal]


def preview_failing(project: Project, results: Iterable[Result], *, sets: Sequence[EvalSet] | None = None
                    ) -> BulkPreview:
    """The TUI's `A`: every row whose results on screen don't all pass (in `sets`, default every set
    that has expectations), previewed."""
    by_row: dict[RowKey, list[Result]] = results_by_row(results)
    bulk = BulkPreview(project)
    for eval_set in acceptable_sets(project) if sets is None else sets:
        for row in eval_set.rows:
            _offer_if_failing(bulk, eval_set, row, by_row.get(eval_set.key_of(row), []))
    return bulk


def preview_recorded_rows(config: Config, set_name: str, row_refs: Sequence[str], *, evaluator: str | None = None,
                          iteration: int | None = None) -> BulkPreview:
    """`accept --set S --row A --row B`: each named row's recorded output, previewed. A row that can't
    be accepted refuses the whole request (the user named it), so nothing is half done."""
    project = load_project(config.root, config)
    eval_set = find_set(project, set_name)
    rows = list({row.id: row for row in (find_row(eval_set, ref) for ref in row_refs)}.values())
    if not rows:
        raise WorkbenchError("name at least one row (--row)", exit_code=2)
    for row in rows:
        refuse_format(eval_set, row)
    bulk = BulkPreview(project)
    with open_history(config, f"workbench run --set {eval_set.stem}") as store:
        for row in rows:
            try:
                preview = recorded_preview(project, store, eval_set, row, evaluator=evaluator, iteration=iteration)
            except Refused as exc:
                raise Refused(f"row {row.label!r}: {exc}") from None
            _offer(bulk, eval_set, row, preview)
    return bulk


def _recorded_results(store: HistoryStore, eval_set: EvalSet, row: Row, refs: Sequence[str],
                      iteration: int | None) -> tuple[int | None, list[Result]]:
    """The row's results in `iteration`, or in the newest iteration that ran it (every ref in `refs`)."""
    key = eval_set.key_of(row)
    found = [hit for ref in refs if (hit := store.find_result(ResultKey(*key, ref), iteration))]
    if not found:
        return None, []
    newest = max(number for number, _ in found)
    return newest, [result for number, result in found if number == newest]


def preview_recorded_failing(config: Config, set_name: str | None = None, *, evaluator: str | None = None,
                             iteration: int | None = None) -> BulkPreview:
    """`accept --all-failing [--set S]`: every row whose recorded results (in `iteration`, default each
    row's newest) don't all pass, previewed; rows accept can't fix (an ERROR, no expectedOutput
    evaluator, a format without expectations) are listed as skipped with the reason."""
    project = load_project(config.root, config)
    sets = [find_set(project, set_name)] if set_name else acceptable_sets(project)
    if set_name and (reason := dialect_for(sets[0].dialect).words.accept_refusal):
        raise Refused(f"{sets[0].file_name} {reason}")
    if evaluator is not None and not any(evaluator in s.evaluator_refs for s in sets):
        raise WritebackError(f"no eval set {'named ' + repr(set_name) if set_name else 'here'} uses the "
                             f"evaluator ref {evaluator!r}")
    bulk = BulkPreview(project)
    try:
        with open_history(config, "workbench run") as store:
            for eval_set in sets:
                refs = [r for r in eval_set.evaluator_refs if evaluator in (None, r)]
                for row in eval_set.rows:
                    number, results = _recorded_results(store, eval_set, row, refs, iteration)
                    _offer_if_failing(bulk, eval_set, row, results, number)
    except HistoryError as exc:
        raise Refused(str(exc)) from None
    return bulk


def write_accepted(project: Project, previews: Sequence[AcceptPreview]) -> list[FileOutcome]:
    """Write the accepted rows: one surgical write per eval set, re-planned from the file as it is now.
    A file whose write is refused (a row gone, an expectation edited since) keeps all its bytes; the
    other files are still written."""
    groups: dict[Path, list[AcceptPreview]] = {}
    for preview in previews:
        groups.setdefault(preview.plan.path, []).append(preview)
    outcomes: list[FileOutcome] = []
    for path, group in groups.items():
        eval_set = group[0].eval_set
        if eval_set is None:
            raise WorkbenchError("internal error: an accept preview without its eval set")
        outcome = FileOutcome(group[0].plan.display, [preview.label for preview in group])
        try:
            plan = plan_accept_rows(project.root, path, [preview.results for preview in group],
                                    project.evaluators_of(eval_set.scope))
            outcome.written = write_plan(plan)
        except (Refused, WritebackError) as exc:
            outcome.refused = str(exc)
        outcomes.append(outcome)
    return outcomes
