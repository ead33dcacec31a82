"""An iteration's digest as history holds it: the results, the flips against the iteration before it, and
where the loop stands. Used for an iteration a live TUI/`watch` session ran for the agent, and for the
flips and loop status of one this process ran."""

from __future__ import annotations

from collections.abc import Sequence

from ..history import HistoryStore
from ..model import Problem, Project, Result
from .digest import Digest, build_digest
from .loop_status import LoopStatus, loop_status

STATUS_WINDOW = 200  # recorded iterations the loop status is read from


def previous_iteration(store: HistoryStore, number: int) -> tuple[int | None, list[Result] | None]:
    """The newest recorded iteration before `number`, and its results (None, None when there is none)."""
    infos = [info for info in store.iterations(limit=STATUS_WINDOW) if info.number < number]
    if not infos:
        return None, None
    before = infos[-1].number
    return before, store.results(before)


def status_at(store: HistoryStore, number: int, stall_after: int) -> LoopStatus:
    return loop_status([info for info in store.iterations(limit=STATUS_WINDOW) if info.number <= number],
                       stall_after)


def digest_of(store: HistoryStore, number: int, project: Project | None, stall_after: int, *,
              results: Sequence[Result] | None = None, problems: Sequence[Problem] | None = None,
              rescored: int | None = None, duration_s: float | None = None, trigger: str | None = None) -> Digest:
    """The digest of recorded iteration `number` (its results read from `store` unless given)."""
    info = store.iteration(number)
    found = list(results) if results is not None else store.results(number)
    before, previous = previous_iteration(store, number)
    return build_digest(
        found, project, iteration=number,
        problems=list(problems) if problems is not None else (info.problems if info is not None else []),
        previous=previous, previous_number=before, status=status_at(store, number, stall_after),
        rescored=rescored if rescored is not None else sum(1 for r in {x.row_key: x for x in found}.values()
                                                           if r.reused),
        duration_s=duration_s if duration_s is not None else (info.duration_s if info is not None else 0.0),
        trigger=trigger if trigger is not None else (info.trigger.describe() if info is not None else ""))
