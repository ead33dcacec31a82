"""Where the loop stands, from history: iterations since the last green one and whether progress stalled.

Read from the recorded full iterations (a partial one re-ran only some rows and says nothing about the
whole), with the rule `progress.LoopTracker` applies in the watch loop: an iteration that is green, or
passes more rows than the one before it or than any before it, is progress; `stall_after` full iterations
in a row without progress are a stall. Every `run` result carries this, so an agent knows when to stop.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..history import IterationInfo
from ..model import is_green
from ..textsafe import counted


@dataclass(frozen=True, slots=True)
class LoopStatus:
    without_progress: int  # full iterations in a row without more rows passing
    stall_after: int
    since_green: int | None  # full iterations since the last green one (0: the newest is green; None: never)
    last_green: int | None  # its number
    full_iterations: int  # how many recorded full iterations this was read from

    @property
    def stalled(self) -> bool:
        return self.without_progress >= self.stall_after

    def describe(self) -> str:
        """`stalled: no progress in 3 iterations`, `3 iterations since the last green (#12)`, ..."""
        parts = []
        if self.stalled:
            parts.append(f"stalled: no progress in {counted(self.without_progress, 'iteration')}")
        if self.since_green == 0:
            parts.append("green")
        elif self.since_green is not None:
            parts.append(f"{self.since_green} iteration{'s' * (self.since_green != 1)} since the last green "
                         f"(#{self.last_green})")
        elif self.full_iterations:
            count = self.full_iterations
            parts.append(f"not green in the last {count} recorded full iteration{'s' * (count != 1)}"
                         if count != 1 else "not green yet (1 recorded full iteration)")
        return "; ".join(parts)

    def to_json(self) -> dict[str, Any]:
        return {"stalled": self.stalled, "iterations_without_progress": self.without_progress,
                "stall_after": self.stall_after, "iterations_since_green": self.since_green,
                "last_green_iteration": self.last_green, "text": self.describe()}


def loop_status(infos: Sequence[IterationInfo], stall_after: int) -> LoopStatus:
    """The status after the newest of `infos` (oldest first, as `HistoryStore.iterations` returns them)."""
    full = [info for info in infos if not info.partial]
    without = 0
    best: int | None = None
    previous: int | None = None
    last_green: int | None = None
    since: int | None = None
    for info in full:
        green = is_green(info.rows_passed, info.rows_total, info.problems)
        improved = best is None or info.rows_passed > best or (previous is not None and info.rows_passed > previous)
        without = 0 if green or improved else without + 1
        best = info.rows_passed if best is None else max(best, info.rows_passed)
        previous = info.rows_passed
        if green:
            last_green, since = info.number, 0
        elif since is not None:
            since += 1
    return LoopStatus(without, stall_after, since, last_green, len(full))
