"""The typed events an iteration emits. Front-ends (text report, TUI, history) subscribe; nothing polls."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from .model import Problem, Project, Result, RowKey, Summary, error_problems, is_green, results_by_row, row_passes


class TriggerKind(StrEnum):
    """Why an iteration ran (stored as its value in the history's `trigger_kind`)."""

    START = "start"  # the first iteration of a session
    RUN = "run"  # `workbench run`
    CHANGE = "change"  # files changed (Trigger.files names them)
    MANUAL = "manual"  # R: every row again
    ROW = "row"  # r: one row or set again
    AGENT = "agent"  # another process (a coding agent, through session_link) asked the session for one


@dataclass(frozen=True, slots=True)
class Trigger:
    """Why an iteration ran: `start`, `run`, `change` (with the files), `manual`, `row` (one row), `agent`."""

    kind: TriggerKind
    files: tuple[str, ...] = ()

    def describe(self) -> str:
        if self.kind == TriggerKind.CHANGE and self.files:
            shown = ", ".join(self.files[:3])
            more = f" and {len(self.files) - 3} more" if len(self.files) > 3 else ""
            return f"changed {shown}{more}"
        return _DESCRIBED.get(self.kind, str(self.kind))

    def to_json(self) -> dict[str, Any]:
        return {"kind": str(self.kind), "files": list(self.files)}


_DESCRIBED = {TriggerKind.START: "start", TriggerKind.RUN: "workbench run", TriggerKind.MANUAL: "re-run",
              TriggerKind.ROW: "re-run row", TriggerKind.AGENT: "asked by agent"}


@dataclass(frozen=True, slots=True)
class ReuseDecision:
    """Whether a row is re-scored from its record, and why (or why not), in words."""

    reused: bool
    reason: str
    iteration: int | None = None


@dataclass(slots=True)
class IterationReport:
    """Everything one iteration produced; `complete` is False when it was cancelled."""

    trigger: Trigger
    started_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    results: list[Result] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    duration_s: float = 0.0
    complete: bool = False
    project: Project | None = None
    number: int | None = None
    # Per row: whether it was re-scored from a recorded run or ran, and why .
    reuse: dict[RowKey, ReuseDecision] = field(default_factory=dict)
    reused_rows: int = 0  # rows re-scored from a recorded run instead of running
    # Per row that ran (or was re-scored) in a world that held while it ran: what its verdict rests on (the
    # world, what it hands the target, how it is scored). Two iterations giving one the same and the row's
    # verdict differs: history marks it flaky (`Result.flaky_since`).
    ran_in: dict[RowKey, str] = field(default_factory=dict)

    @property
    def ran_rows(self) -> int:
        return len({r.row_key for r in self.results}) - self.reused_rows

    @property
    def summary(self) -> Summary:
        return Summary.of(self.results)

    @property
    def row_counts(self) -> tuple[int, int]:
        """(rows passing, rows) over the rows this iteration ran — never the rows a --tag/--type/--set/--row
        left out: the one count the text report, history and the TUI's status line give for an iteration."""
        rows = results_by_row(self.results)
        return sum(row_passes(group) for group in rows.values()), len(rows)

    @property
    def error_problems(self) -> list[Problem]:
        return error_problems(self.problems)

    @property
    def green(self) -> bool:
        """At least one result ran, every result passed and no file had an error (`model.is_green`)."""
        summary = self.summary
        return is_green(summary.passed, summary.total, self.problems)


@dataclass(frozen=True, slots=True)
class IterationStarted:
    trigger: Trigger
    project: Project
    total_rows: int
    total_results: int
    rows: tuple[RowKey, ...] = ()


@dataclass(frozen=True, slots=True)
class RowStarted:
    key: RowKey
    row_name: str


@dataclass(frozen=True, slots=True)
class RowLog:
    key: RowKey
    line: str


@dataclass(frozen=True, slots=True)
class ResultReady:
    """One result. A row's results arrive together; `row_complete` marks the row's last one."""

    result: Result
    done_rows: int
    total_rows: int
    row_complete: bool = True


@dataclass(frozen=True, slots=True)
class IterationFinished:
    report: IterationReport


Event = IterationStarted | RowStarted | RowLog | ResultReady | IterationFinished
EventSink = Callable[[Event], None]
