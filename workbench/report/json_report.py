"""`--json`: one document with the summary, every result, every problem and the set-level metrics."""

from __future__ import annotations

from typing import Any

from .. import jsonio
from ..events import IterationReport
from .metrics import set_metrics


def report_document(report: IterationReport, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "summary": report.summary.to_json(),
        "results": [result.to_json() for result in report.results],
        "problems": [problem.to_json() for problem in report.problems],
        "passed": report.all_passed,
        "duration_s": round(report.duration_s, 3),
        "trigger": report.trigger.to_json(),
    }
    if report.project is not None:
        doc["set_metrics"] = [line.to_json() for line in set_metrics(report.project, report.results)]
    if report.number is not None:
        doc["iteration"] = report.number
    if extra:
        doc.update(extra)
    return doc


def encode_document(doc: dict[str, Any]) -> bytes:
    """UTF-8 JSON; a lone surrogate inside a string is written as its `\\udXXX` escape (still valid JSON)."""
    return jsonio.dumps(doc, indent=True).encode("utf-8", errors="backslashreplace") + b"\n"
