"""A row's detail as plain data, for front ends that are not the TUI (the HTML report): a list of *blocks*,
each a JSON-able dict the page draws the same way whatever the format. A format that shows its rows its own
way names its renderer in `HasHtmlDetail.html_detail` (a module of its package); every other format gets
`default_blocks` — what is expected beside what came back, the differing paths marked, the paths an
evaluator's targetOutputKey leaves out dimmed.

The kinds of block (everything a format may return; the page knows no other):

- ``{"kind": "sides", "left": {"title", "value"}, "right": {"title", "value"}, "differ": [path...],
  "selected": [path...] | None}`` — two JSON values side by side; a path is a list of keys and indexes;
  `selected` None means the whole value counts, else what lies outside every selected path is dimmed.
- ``{"kind": "json", "title", "value", "collapsed"}`` — one JSON value (collapsed: shown when asked for).
- ``{"kind": "text", "title", "text", "tone"}`` — preformatted text; tone is "", "fail", "error" or "dim".
- ``{"kind": "transcript", "title", "turns": [{"title", "failed", "note", "lines": [{"who", "text"}],
  "marks": [{"ok": True | False | None, "text"}]}]}`` — a conversation, ✔ / ✘ per assertion.
- ``{"kind": "steps", "title", "head": [str...], "items": [{"mark", "tone", "cells": [str...], "note"}]}`` —
  a list of steps or aligned pairs, one line each; tone is "pass", "fail", "wait" or "dim".
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any

from ..compare import strict_equal
from ..model import EvaluatorDef, Result, Row, Verdict
from ..output_paths import MISSING, select, selected_paths

Block = dict[str, Any]
JsonPath = list[str | int]
DIFF_LIMIT = 50


@dataclass(frozen=True, slots=True)
class RowDetail:
    """What a renderer draws one result of a row from: the result as recorded, and — when the project's
    files still hold them — the row and the evaluator (a report read from history may have neither)."""

    result: Result
    row: Row | None = None
    evaluator: EvaluatorDef | None = None


def sides(left_title: str, left: Any, right_title: str, right: Any, *, differ: list[JsonPath] | None = None,
          selected: list[JsonPath] | None = None) -> Block:
    return {"kind": "sides", "left": {"title": left_title, "value": left},
            "right": {"title": right_title, "value": right}, "differ": differ or [], "selected": selected}


def json_block(title: str, value: Any, *, collapsed: bool = False) -> Block:
    return {"kind": "json", "title": title, "value": value, "collapsed": collapsed}


def text_block(title: str, text: str, tone: str = "") -> Block:
    return {"kind": "text", "title": title, "text": text, "tone": tone}


def steps_block(title: str, head: list[str], items: list[Block]) -> Block:
    return {"kind": "steps", "title": title, "head": head, "items": items}


def step(mark: str, tone: str, cells: list[str], note: str = "") -> Block:
    return {"mark": mark, "tone": tone, "cells": cells, "note": note}


def differing_paths(actual: Any, expected: Any, limit: int = DIFF_LIMIT) -> list[JsonPath]:
    """Where two JSON values differ, by the comparator's rules for leaves (`strict_equal`: 85 equals 85.0, never
    true): dict keys on either side, list items by position, at most `limit` paths, shallowest first. Iterative,
    and plain (no deepdiff): a 10,000-row report marks every failing row's paths in well under a second."""
    found: list[JsonPath] = []
    queue: deque[tuple[JsonPath, Any, Any]] = deque([([], actual, expected)])
    while queue and len(found) < limit:
        path, a, e = queue.popleft()
        if isinstance(a, dict) and isinstance(e, dict):
            queue.extend(([*path, key], a.get(key, MISSING), e.get(key, MISSING)) for key in dict.fromkeys([*e, *a]))
        elif isinstance(a, list) and isinstance(e, list):
            queue.extend(([*path, i], a[i] if i < len(a) else MISSING, e[i] if i < len(e) else MISSING)
                         for i in range(max(len(a), len(e))))
        elif a is MISSING or e is MISSING or isinstance(a, dict | list) or isinstance(e, dict | list) \
                or not strict_equal(a, e):
            found.append(path)
    return found


def diff_paths(actual: Any, expected: Any, selected: list[JsonPath] | None) -> list[JsonPath]:
    """Absolute paths where the two sides differ, within the selection (at most DIFF_LIMIT per selected path)."""
    found: list[JsonPath] = []
    for base in selected if selected is not None else [[]]:
        dotted = ".".join(str(part) for part in base) or "*"
        a, e = select(actual, dotted), select(expected, dotted)
        if a is MISSING or e is MISSING:
            found.append(list(base))
            continue
        found.extend([*base, *path] for path in differing_paths(a, e))
    return found


def expected_actual(detail: RowDetail) -> Block:
    """Expected | actual, the differing paths marked (for a FAIL) and the unselected ones dimmed."""
    result = detail.result
    target = detail.evaluator.target_output_key if detail.evaluator is not None else "*"
    parsed = selected_paths(target)
    selected: list[JsonPath] | None = None if parsed is None else [list(p) for p in parsed]
    expected = result.expected
    if expected is None and detail.row is not None:
        expected = detail.row.expected_for(result.evaluator)
    differ = (diff_paths(result.actual, expected, selected)
              if result.verdict is Verdict.FAIL and result.actual is not None else [])
    return sides("Expected", expected, "Actual", result.actual, differ=differ, selected=selected)


def default_blocks(detail: RowDetail) -> list[Block]:
    """The detail of a row that calls the target once: its inputs, then expected | actual."""
    inputs = detail.result.inputs or (detail.row.inputs if detail.row is not None else {})
    return [json_block("Inputs", inputs), expected_actual(detail)]
