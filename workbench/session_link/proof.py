"""Whether an iteration the session already has answers a request for the files as they are now — a
proof with the re-scoring machinery (`reuse.py`, `fingerprint.py`), never a guess:

* the project as loaded now (every eval set, row, criterion and evaluator the dialects read, and their
  problems) equals the one the iteration loaded — so every score would be computed the same way;
* every row the request selects has a recorded run that the reuse book would re-score now, *from that
  iteration*: the row hands its target the same thing, the `World` (settings, environment, programs,
  every other project file, `[cache] inputs`) equals the one it ran in, the files it was seen to read
  are unchanged, and its run was not an ERROR. A run during which the project changed is never recorded,
  so an iteration that saw an edit mid-way never qualifies.

Then running it again would re-score every selected row to the very same results: the iteration *is*
the answer, and nothing runs. Anything else — and `[cache] reuse = false`, which asks for runs, not
records — is not proven, and the session runs an iteration instead.
"""

from __future__ import annotations

import asyncio

from ..engine import RowFilter
from ..events import IterationReport
from ..iteration_reuse import ReusePolicy
from ..model import Project, Row, RowKey
from ..project import load_project
from ..session import Session


def selected_rows(project: Project, selection: RowFilter) -> list[tuple[RowKey, Row]]:
    """The rows an iteration with `selection` runs (as the engine plans them: sets with evaluators)."""
    return [(eval_set.key_of(row), row) for eval_set in project.sets
            if selection.wants_set(eval_set) and eval_set.evaluator_refs
            for row in eval_set.rows if selection.wants_row(eval_set, row)]


async def answers_now(session: Session, report: IterationReport | None, selection: RowFilter) -> bool:
    """Whether `report` (an iteration of `session`) is what an iteration with `selection` would give now.
    Call it inside `session.exclusive()`: no iteration moves the book meanwhile."""
    config = session.config
    if report is None or not report.complete or report.number is None or report.project is None:
        return False
    if not config.cache.reuse:
        return False
    try:
        now = await asyncio.to_thread(load_project, config.root, config)
    except Exception:  # unreadable now: whatever it is, it is not proven the same
        return False
    if now != report.project:
        return False
    narrowed = selection.narrowed(config.overrides.tags, config.overrides.kinds)
    rows = selected_rows(now, narrowed)
    if not rows:
        return False
    decisions = await session.engine.reuse_decisions(now, ReusePolicy(session.reuse, True))
    answered = {result.row_key for result in report.results}
    recorded = 0
    for key, row in rows:
        if row.problem is not None:  # it never runs: its ERROR comes from the (equal) project alone
            if key not in answered:
                return False
            continue
        decision = decisions.get(key)
        if decision is None or not decision.reused or decision.iteration != report.number:
            return False
        recorded += 1
    # Some row's record must have vouched for the world (settings, programs, the other files): rows that
    # can't run alone say nothing about it, and an iteration costs them nothing.
    return recorded > 0
