"""Plain data the engine passes around: what was loaded, what ran, what it scored."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any, Literal


class Verdict(StrEnum):
    PASS = "PASS"
    FAIL = "FAIL"
    ERROR = "ERROR"


@dataclass(frozen=True, slots=True)
class Problem:
    """Something wrong with a file (not with a row's behaviour). Errors fail the run; warnings don't."""

    file: str
    message: str
    severity: Literal["error", "warning"] = "error"

    def to_json(self) -> dict[str, Any]:
        return {"file": self.file, "message": self.message, "severity": self.severity}


@dataclass(slots=True)
class EvaluatorDef:
    """One `evals/<scope>/evaluators/<ref>.json` file. `ref` is the file base name rows refer to."""

    scope: str
    ref: str
    path: Path
    id: str | None
    name: str | None
    type_id: str
    config: dict[str, Any]
    raw: dict[str, Any]

    @property
    def target_output_key(self) -> Any:
        return self.config.get("targetOutputKey", "*")


@dataclass(slots=True)
class Row:
    """One entry of an eval set's `evaluations` list."""

    id: str
    name: str
    inputs: dict[str, Any]
    criteria: dict[str, Any]
    index: int
    raw: dict[str, Any]

    @property
    def label(self) -> str:
        return self.name or self.id

    def expected_for(self, ref: str | None) -> Any:
        """`evaluationCriterias[ref].expectedOutput` as written in the file, or None."""
        criterion = self.criteria.get(ref) if ref else None
        return criterion.get("expectedOutput") if isinstance(criterion, dict) else None


@dataclass(slots=True)
class EvalSet:
    """One `evals/<scope>/eval-sets/<file>.json` file."""

    scope: str
    path: Path
    id: str | None
    name: str | None
    evaluator_refs: list[str]
    rows: list[Row]

    @property
    def file_name(self) -> str:
        return self.path.name

    @property
    def stem(self) -> str:
        return self.path.stem


@dataclass(slots=True)
class Project:
    """Everything discovered under a project's `evals/` folder, re-read for every iteration."""

    root: Path
    sets: list[EvalSet] = field(default_factory=list)
    evaluators: dict[tuple[str, str], EvaluatorDef] = field(default_factory=dict)
    broken_evaluators: dict[tuple[str, str], str] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)

    @property
    def scopes(self) -> list[str]:
        found = {s.scope for s in self.sets} | {scope for scope, _ in self.evaluators}
        return sorted(found)


ResultKey = tuple[str, str, str, str]
"""(scope, set file name, row id, evaluator ref): a result's identity across iterations."""


@dataclass(slots=True)
class Result:
    """The verdict of one row under one evaluator."""

    scope: str
    set_file: str
    row_id: str
    row_name: str
    evaluator: str
    verdict: Verdict
    score: float
    detail: str
    actual: Any = None
    expected: Any = None
    duration_ms: float = 0.0
    evaluator_type: str | None = None
    trace: list[dict[str, Any]] = field(default_factory=list)
    log: str = ""
    inputs: dict[str, Any] = field(default_factory=dict)

    @property
    def key(self) -> ResultKey:
        return (self.scope, self.set_file, self.row_id, self.evaluator)

    @property
    def passed(self) -> bool:
        return self.verdict is Verdict.PASS

    def to_json(self) -> dict[str, Any]:
        return {
            "set": self.set_file,
            "scope": self.scope,
            "row_id": self.row_id,
            "row_name": self.row_name,
            "evaluator": self.evaluator,
            "evaluator_type": self.evaluator_type,
            "verdict": self.verdict.value,
            "score": self.score,
            "inputs": self.inputs,
            "actual": self.actual,
            "expected": self.expected,
            "detail": self.detail,
            "duration_ms": round(self.duration_ms, 3),
            "trace": self.trace,
        }


@dataclass(slots=True)
class Summary:
    total: int = 0
    passed: int = 0
    failed: int = 0
    errors: int = 0

    def add(self, verdict: Verdict) -> None:
        self.total += 1
        if verdict is Verdict.PASS:
            self.passed += 1
        elif verdict is Verdict.FAIL:
            self.failed += 1
        else:
            self.errors += 1

    @classmethod
    def of(cls, results: list[Result]) -> Summary:
        summary = cls()
        for result in results:
            summary.add(result.verdict)
        return summary

    def to_json(self) -> dict[str, int]:
        return {"total": self.total, "passed": self.passed, "failed": self.failed, "errors": self.errors}
