"""Whether an iteration the session already has answers a request for the files as they are now — a
proof with the re-scoring machinery (`records.py`, `world.py`), never a guess:

* the project as loaded now (every eval set, row, criterion and evaluator the dialects read, and their
  problems) equals the one the iteration loaded — so every score would be computed the same way;
* every row the request selects (as `planning.plan` selects them for an iteration) has a recorded run that
  the reuse book would re-score now, *from that iteration*: the row hands its target the same thing, the
  `World` (settings, environment, programs, every other project file, `[cache] inputs`) equals the one it
  ran in, the files it was seen to read are unchanged, and its run was not an ERROR. A run during which the
  project changed is never recorded, so an iteration that saw an edit mid-way never qualifies.

Then running it again would re-score every selected row to the very same results: the iteration *is*
the answer, and nothing runs. Anything else — and `[cache] reuse = false`, which asks for runs, not
records — is not proven, and the session runs an iteration instead.
"""

from __future__ import annotations

import asyncio

from ..config import Config
from ..events import IterationReport
from ..project import load_project
from .iteration import ReusePolicy, decide_now
from .planning import RowFilter, plan
from .records import ReuseBook


async def answers_now(config: Config, book: ReuseBook, report: IterationReport | None, selection: RowFilter) -> bool:
    """Whether `report` (an iteration of the session whose settings are `config` and whose reuse book is
    `book`) is what an iteration with `selection` would give now. Call it inside `session.exclusive()`: no
    iteration moves the book meanwhile."""
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
    jobs = plan(now, narrowed)  # the rows an iteration with `selection` runs, as the engine plans them
    if not jobs:
        return False
    decisions = await decide_now(config, now, ReusePolicy(book, True), jobs)
    answered = {result.row_key for result in report.results}
    recorded = 0
    for job in jobs:
        key, row = job.key, job.row
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
