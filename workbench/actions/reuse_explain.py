"""Why each row was (or would be) re-scored from its recorded run or run again, and which files
workbench does not look at: what `workbench check` and `run --explain-reuse` show, so the user can
trust a re-score — or see what keeps rows from being re-scored (a target that writes into the
project, a variable that changes every run)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from ..config import Config
from ..events import IterationReport, ReuseDecision
from ..model import Project, RowKey
from ..project_files import ALWAYS_IGNORED_DIRS, DEPENDENCY_DIRS, ProjectFiles
from ..rescoring import decide_now
from .gate import reuse_policy


@dataclass(slots=True)
class RowReuse:
    set_name: str
    row: str  # the row's display name
    key: RowKey
    decision: ReuseDecision

    def to_json(self) -> dict[str, Any]:
        return {"set": self.key.set_file, "scope": self.key.scope, "row_id": self.key.row_id, "row_name": self.row,
                "reused": self.decision.reused, "reason": self.decision.reason}


@dataclass(slots=True)
class ReuseExplanation:
    rows: list[RowReuse] = field(default_factory=list)
    always_ignored: list[str] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)  # the globs in force
    summarised: list[str] = field(default_factory=list)  # dependency folders fingerprinted by what's installed

    def to_json(self) -> dict[str, Any]:
        return {"rows": [r.to_json() for r in self.rows], "ignored": [*self.always_ignored, *self.ignored],
                "summarised": self.summarised}


def _files_part(config: Config) -> ReuseExplanation:
    scope = ProjectFiles.of(config)
    summarised = ([*(f"{name}/" for name in DEPENDENCY_DIRS), "virtualenvs (pyvenv.cfg)", "conda environments"]
                  if scope.summarised else [])
    return ReuseExplanation(always_ignored=[f"{name}/" for name in ALWAYS_IGNORED_DIRS], ignored=scope.rules,
                            summarised=summarised)


def _rows(project: Project, decisions: dict[RowKey, ReuseDecision]) -> list[RowReuse]:
    rows = []
    for eval_set in project.sets:
        for row in eval_set.rows:
            decision = decisions.get(eval_set.key_of(row))
            if decision is not None:
                rows.append(RowReuse(eval_set.stem, row.label, eval_set.key_of(row), decision))
    return rows


def explain_now(config: Config, project: Project) -> ReuseExplanation:
    """What `run --reuse` would do with each row if it started now (runs nothing, writes nothing)."""
    explanation = _files_part(config)
    policy = reuse_policy(config, reuse=True, persist=False)  # look, don't write
    decisions = asyncio.run(decide_now(config, project, policy))
    explanation.rows = _rows(project, decisions)
    return explanation


def explain_report(config: Config, report: IterationReport) -> ReuseExplanation:
    """What an iteration did with each row's recorded run."""
    explanation = _files_part(config)
    if report.project is not None:
        explanation.rows = _rows(report.project, report.reuse)
    return explanation
