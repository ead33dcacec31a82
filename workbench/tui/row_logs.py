"""Each row's log as the TUI keeps it: the lines of its recent runs, every run under a header that says
which iteration it was and when it started, so pressing `r` twice shows two runs, not one pile.

Every line added is also counted, so the log pane can append exactly the lines it has not shown yet:
a pane that just (re)drew a row's whole log never appends the same lines again when the batched
engine updates arrive a moment later."""

from __future__ import annotations

from collections import deque
from datetime import datetime
from itertools import islice

from ..model import RowKey

LOG_LINES_KEPT = 2000


def run_header(number: int | None, started: datetime) -> str:
    when = started.astimezone().strftime("%H:%M:%S")
    return f"── iteration {number} · {when} ──" if number is not None else f"── run at {when} ──"


class RowLogs:
    def __init__(self, keep: int = LOG_LINES_KEPT) -> None:
        self.keep = keep
        self._lines: dict[RowKey, deque[str]] = {}
        self._added: dict[RowKey, int] = {}  # every line ever added to a row's log (kept or not)
        self._streamed: set[RowKey] = set()  # rows whose current run has written lines of its own

    def _add(self, key: RowKey, lines: list[str]) -> None:
        self._lines.setdefault(key, deque(maxlen=self.keep)).extend(lines)
        self._added[key] = self._added.get(key, 0) + len(lines)

    def start_run(self, key: RowKey, header: str) -> None:
        """A run of the row begins: its lines go under `header`."""
        self._streamed.discard(key)
        self._add(key, [header])

    def add(self, key: RowKey, line: str) -> None:
        """A line the running target wrote."""
        self._streamed.add(key)
        self._add(key, [line])

    def add_recorded(self, key: RowKey, text: str) -> None:
        """The run's log as its result carries it, for runners that stream nothing: added once per run,
        and never when the run already streamed its lines (a uip debug log would show twice)."""
        if key in self._streamed or not text:
            return
        self._streamed.add(key)
        self._add(key, text.splitlines())

    def lines(self, key: RowKey) -> list[str]:
        return list(self._lines.get(key, ()))

    def added(self, key: RowKey) -> int:
        return self._added.get(key, 0)

    def since(self, key: RowKey, count: int) -> list[str] | None:
        """The lines added after the first `count`, or None when some of them are no longer kept."""
        new = self.added(key) - count
        kept = self._lines.get(key, ())
        if new < 0 or new > len(kept):
            return None
        return list(islice(kept, len(kept) - new, None))
