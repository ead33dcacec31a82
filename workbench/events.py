"""The typed events an iteration emits. Front-ends (text report, TUI, history) subscribe; nothing polls."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from .model import Problem, Project, Result, RowKey, Summary


@dataclass(frozen=True, slots=True)
class Trigger:
    """Why an iteration ran: `start`, `run`, `change` (with the files), `manual`, `row` (one row)."""

    kind: str
    files: tuple[str, ...] = ()

    def describe(self) -> str:
        if self.kind == "change" and self.files:
            shown = ", ".join(self.files[:3])
            more = f" and {len(self.files) - 3} more" if len(self.files) > 3 else ""
            return f"changed {shown}{more}"
        return {"start": "start", "run": "workbench run", "manual": "re-run", "row": "re-run row"}.get(
            self.kind, self.kind)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "files": list(self.files)}


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

    @property
    def ran_rows(self) -> int:
        return len({r.row_key for r in self.results}) - self.reused_rows

    @property
    def summary(self) -> Summary:
        return Summary.of(self.results)

    @property
    def error_problems(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "error"]

    @property
    def all_passed(self) -> bool:
        """True when at least one result ran, every result passed and no file had an error."""
        return bool(self.results) and all(r.passed for r in self.results) and not self.error_problems


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
