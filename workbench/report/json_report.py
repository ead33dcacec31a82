"""`--json`: one document with the summary, every result, every problem and the set-level metrics."""

from __future__ import annotations

from typing import Any

from .. import jsonio
from ..events import IterationReport
from ..model import RowKey
from ..textsafe import json_escaped
from .metrics import set_metrics


def report_document(report: IterationReport, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "summary": report.summary.to_json(),
        "results": _results(report),
        "problems": [problem.to_json() for problem in report.problems],
        "passed": report.green,
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


def _results(report: IterationReport) -> list[dict[str, Any]]:
    """Every result; one whose row has warnings (inputs or an expectation that don't fit the workflow's
    declared schema) lists them under "warnings", as the text report prints them under the row."""
    warnings: dict[RowKey, list[str]] = {}
    for problem in report.problems:
        if problem.row is not None:
            warnings.setdefault(problem.row, []).append(problem.message)
    docs = []
    for result in report.results:
        doc = result.to_json()
        if warnings and (found := warnings.get(result.row_key)):
            doc["warnings"] = found
        docs.append(doc)
    return docs


def encode_document(doc: Any) -> bytes:
    """UTF-8 JSON for stdout (`run`, `check` and `history` with `--json`): control, bidi and zero-width
    characters and lone surrogates inside strings are written as `\\uXXXX` escapes (`json_escaped`), C1
    controls as C0 ones are, so the document is the same JSON and safe to show on a terminal."""
    return json_escaped(jsonio.dumps(doc, indent=True)).encode("utf-8", errors="backslashreplace") + b"\n"
