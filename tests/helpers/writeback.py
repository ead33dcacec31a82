"""Helpers shared by the write-back tests: fixture files in several styles, and independent checks.

The checks locate values with Python's own `json.JSONDecoder.raw_decode`, not with the scanner under
test, so a scanner bug can't hide itself.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from helpers.project import evaluator, make_project
from workbench.jsonio import UTF8_BOM
from workbench.model import EvaluatorDef, Result, Verdict
from workbench.project import load_project

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "writeback"
STYLES = ["two_space", "four_space", "tabs", "compact", "escaped", "string_expected"]
EXACT, GRADE, DETAILS = "exact-match-evaluator", "grade-only", "score-details"
NOW = datetime(2025, 6, 1, 12, 0, 0, 456789, tzinfo=UTC)
NEW_STAMP = b'"2025-06-01T12:00:00.456Z"'


def _crlf(data: bytes) -> bytes:
    return data.replace(b"\n", b"\r\n")


def _no_final_newline(data: bytes) -> bytes:
    return data.rstrip(b"\r\n")


def _bom(data: bytes) -> bytes:
    return UTF8_BOM + data


VARIANTS: dict[str, Callable[[bytes], bytes]] = {
    "lf": lambda data: data,
    "crlf": _crlf,
    "no-final-newline": _no_final_newline,
    "crlf-no-final-newline": lambda data: _no_final_newline(_crlf(data)),
    "bom": _bom,
}


def fixture_bytes(style: str, variant: str = "lf") -> bytes:
    return VARIANTS[variant]((FIXTURES / f"{style}.json").read_bytes())


def clock() -> datetime:
    return NOW


def project(tmp_path: Path, data: bytes, name: str = "cases") -> tuple[Path, Path]:
    """A project holding `data` as evals/default/eval-sets/<name>.json and three evaluators."""
    root = make_project(tmp_path / "project", sets={name: data}, evaluators={
        EXACT: evaluator("*"),
        GRADE: evaluator("grade"),
        DETAILS: evaluator(["details.rawScore", "details.band"]),
    })
    return root, root / "evals" / "default" / "eval-sets" / f"{name}.json"


def evaluators(root: Path) -> dict[str, EvaluatorDef]:
    return {ref: ev for (_, ref), ev in load_project(root).evaluators.items()}


def recorded(row_id: str, ref: str, actual: Any, expected: Any, *, name: str = "",
             set_file: str = "cases.json", verdict: Verdict = Verdict.FAIL) -> Result:
    """A result as the history would hand it back."""
    return Result(scope="default", set_file=set_file, row_id=row_id, row_name=name or row_id, evaluator=ref,
                  verdict=verdict, score=0.0, detail="differs", actual=actual, expected=expected)


def decoded(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


def load(data: bytes) -> Any:
    return json.loads(data.decode("utf-8-sig"))


def ordered_keys(data: bytes, row: int) -> list[str]:
    doc = json.loads(data.decode("utf-8-sig"), object_pairs_hook=list)
    evaluations = dict(doc)["evaluations"]
    return [key for key, _ in evaluations[row]]


def expectation_span(data: bytes, row: int, ref: str) -> tuple[int, int]:
    """Byte offsets of evaluations[row].evaluationCriterias[ref].expectedOutput, found without the
    scanner: the (row+1)-th `"ref":` in the file (rows are in order in every fixture), then raw_decode."""
    text = data.decode("utf-8-sig")
    offset = len(data) - len(text.encode("utf-8"))
    keys = [m.end() for m in re.finditer(re.escape(json.dumps(ref)) + r"\s*:", text)]
    found = re.compile(r'"expectedOutput"\s*:\s*').search(text, keys[row])
    assert found is not None
    start = found.end()
    _, end = json.JSONDecoder().raw_decode(text, start)
    return offset + len(text[:start].encode("utf-8")), offset + len(text[:end].encode("utf-8"))


def changed_region(before: bytes, after: bytes) -> tuple[int, int, int]:
    """(start, end in before, end in after) of the one region where the two differ."""
    limit = min(len(before), len(after))
    start = 0
    while start < limit and before[start] == after[start]:
        start += 1
    tail = 0
    while tail < limit - start and before[-1 - tail] == after[-1 - tail]:
        tail += 1
    return start, len(before) - tail, len(after) - tail


_STAMP = re.compile(rb'"(?:createdAt|updatedAt)"\s*:\s*("[^"]*")')


def without_new_stamps(before: bytes, after: bytes) -> bytes:
    """`after` with each refreshed `updatedAt` put back to its value in `before`, so the remaining
    difference is the edit itself. Timestamps pair up in file order; when `after` has more of them
    (a new row carrying its own), only the set's own stamp, the last one, is paired."""
    old = [m.span(1) for m in _STAMP.finditer(before)]
    new = [m.span(1) for m in _STAMP.finditer(after)]
    pairs = list(zip(old, new, strict=True)) if len(old) == len(new) else list(zip(old[-1:], new[-1:], strict=True))
    for (old_start, old_end), (start, end) in reversed(pairs):
        if after[start:end] == NEW_STAMP:
            after = after[:start] + before[old_start:old_end] + after[end:]
    return after


def assert_line_endings(after: bytes, variant: str) -> None:
    if "crlf" in variant:
        assert after.count(b"\n") == after.count(b"\r\n"), "a bare LF was written into a CRLF file"
    else:
        assert b"\r" not in after, "a CR was written into an LF file"


def assert_indentation(after: bytes, first: int, last: int, style: str) -> None:
    """Every line holding new bytes (`after[first:last]`) is indented with the file's unit."""
    start = after.rfind(b"\n", 0, first) + 1
    end = after.find(b"\n", last)
    block = after[start:end if end >= 0 else len(after)]
    for line in block.replace(b"\r\n", b"\n").split(b"\n"):
        lead = line[: len(line) - len(line.lstrip(b" \t"))]
        if style == "tabs":
            assert b" " not in lead, f"space indentation written into a tab-indented file: {line!r}"
        elif style == "four_space":
            assert b"\t" not in lead and len(lead) % 4 == 0, f"not a 4-space indent: {line!r}"
        else:
            assert b"\t" not in lead and len(lead) % 2 == 0, f"not a 2-space indent: {line!r}"
