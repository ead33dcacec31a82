"""What the engine tells the screen, as Textual messages posted to the app.

The Session's callbacks only update `RunState` and post one of these; the app's handlers repaint from
RunState. Row updates are batched: while a `RowsChanged` is due, further row events post nothing (the
due one drains them all), and one is due at most every `REPAINT_INTERVAL_S`. Textual's message
replacement (`Message.can_replace`) was tried instead of the interval: it merges only messages still
waiting in the queue, and the app keeps up with the engine, so every row became its own repaint and a
10,000-row iteration took twice as long. Each message carries a sequence number, so the app knows when
it has shown everything the engine said (`WorkbenchApp.settled`)."""

from __future__ import annotations

from textual.message import Message

from ..events import IterationReport, Trigger
from ..progress import IterationSummary


class EngineMessage(Message):
    """Base of the engine → UI messages; `seq` grows with every message posted."""

    def __init__(self, seq: int) -> None:
        super().__init__()
        self.seq = seq


class IterationBegan(EngineMessage):
    """An iteration started (the rows it plans are queued in RunState)."""

    def __init__(self, seq: int, trigger: Trigger) -> None:
        super().__init__(seq)
        self.trigger = trigger


class RowsChanged(EngineMessage):
    """Rows started, logged or got results; RunState holds what changed."""


class IterationDone(EngineMessage):
    """An iteration completed and was recorded."""

    def __init__(self, seq: int, report: IterationReport, summary: IterationSummary) -> None:
        super().__init__(seq)
        self.report = report
        self.summary = summary


class SessionIdle(EngineMessage):
    """Nothing runs or waits any more (also after an iteration was cancelled and none replaced it)."""
