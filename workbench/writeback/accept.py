"""Accept: write a row's recorded actual output into `evaluationCriterias[ref].expectedOutput`.

For an evaluator that compares only some paths (`targetOutputKey`), only those paths are set inside
the existing expectation; the rest of it stays as written. An expectation held as a JSON string stays
a string. The edit refuses when the row is gone or its expectation changed since the output was
recorded: the user would be blessing an output that was judged against something else.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .. import jsonio
from ..compare import strict_equal
from ..dialects.base import WritesRows
from ..model import EvaluatorDef, Result, Verdict
from ..output_paths import MISSING, WHOLE, resolve, set_at
from . import expected as exp
from .edit import Op, SetValue, apply_ops
from .errors import WritebackError
from .plan import Change, Edit, Edited, WritePlan, make_plan, writer_of
from .rows import row_index
from .stamp import restamp
from .style import detect

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    return datetime.now(UTC)


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else "no detail"


def check_recorded(results: Sequence[Result], evaluators: Mapping[str, EvaluatorDef]) -> None:
    """Refuse up front what no file content could fix: no output, a missing evaluator, several rows."""
    if not results:
        raise WritebackError("nothing to accept: no recorded result for that row")
    keys = {r.row_key for r in results}
    if len(keys) > 1:
        raise WritebackError("internal error: accept got results of more than one row")
    for result in results:
        label = result.label
        if result.actual is None and result.verdict is not Verdict.ERROR:  # recorded, but unreadable now
            raise WritebackError(f"row {label!r}: its recorded output could not be read back from the history "
                                 "(it is nested deeper than JSON readers go, about 1000 levels), so it can't "
                                 "be written as an expectation either")
        if result.actual is None:
            raise WritebackError(f"row {label!r} has no recorded output to accept: its run ended in ERROR "
                                 f"({_first_line(result.detail)}). Fix the run first.")
        evaluator = evaluators.get(result.evaluator)
        if evaluator is None:
            raise WritebackError(f"evaluator {result.evaluator!r} has no usable file, so workbench can't tell "
                                 "what it compares; fix the evaluator first")
        if not exp.uses_expected_output(evaluator):
            raise WritebackError(exp.not_expected_output(evaluator))
        exp.target_paths(evaluator)


def _get(node: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(node, dict) or key not in node:
            return MISSING
        node = node[key]
    return node


def _ops_for(result: Result, evaluator: EvaluatorDef, row: dict[str, Any], index: int,
            writer: WritesRows) -> tuple[list[Op], Change | None]:
    """The edits that make this ref's expectation hold the recorded output, and what they change."""
    ref, label = result.evaluator, result.label
    if result.verdict is Verdict.PASS:  # already holds: left as written (a null criterion stays the default)
        return [], None
    raw = _get(row, "evaluationCriterias", ref, "expectedOutput")
    if not exp.same(result.expected, raw, evaluator, writer.expected_sources(row, ref, evaluator)):
        raise WritebackError(f"row {label!r}: evaluationCriterias[{ref!r}].expectedOutput changed since this "
                             "output was recorded; run the row again and accept the new result")
    base = ("evaluations", index, "evaluationCriterias", ref, "expectedOutput")
    current, as_string = exp.decode(raw)
    paths = exp.target_paths(evaluator)
    if paths == [WHOLE]:
        if current is not MISSING and strict_equal(current, result.actual):
            return [], None
        new_value = result.actual
        written = exp.encode_like(raw, new_value) if as_string else new_value
        return [SetValue(base, written)], Change(ref, current, new_value)
    ops: list[Op] = []
    new_value = current if isinstance(current, dict) else {}
    indexed = False  # a path through a list item: the expectation is written whole (its lists may lack the item)
    for path in paths:
        tokens = exp.path_tokens(evaluator, path)
        value = resolve(result.actual, tokens)
        if value is MISSING:
            raise exp.missing_path(path, ref)
        existing = resolve(current, tokens) if current is not MISSING else MISSING
        if existing is not MISSING and strict_equal(existing, value):
            continue
        new_value = set_at(new_value, tokens, value, result.actual)
        indexed = indexed or any(isinstance(token, int) for token in tokens)
        ops.append(SetValue(base + tuple(tokens), value))
    if not ops:
        return [], None
    if as_string:
        ops = [SetValue(base, exp.encode_like(raw, new_value))]
    elif indexed:
        ops = [SetValue(base, new_value)]
    return ops, Change(ref, current, new_value)


def _stamp_ops(doc: dict[str, Any], indexes: Sequence[int], now: datetime) -> tuple[list[Op], list[str]]:
    """Refresh `updatedAt` on the set and on each changed row, where present, in the format they use."""
    ops: list[Op] = []
    notes: list[str] = []
    owners = [((), doc)] + [(("evaluations", index), doc["evaluations"][index]) for index in indexes]
    for path, owner in owners:
        if not isinstance(owner, dict) or "updatedAt" not in owner:
            continue
        stamped = restamp(owner["updatedAt"], now)
        if stamped is None:
            note = f"left updatedAt {owner['updatedAt']!r} alone: its format is not one workbench knows"
            if note not in notes:
                notes.append(note)
        else:
            ops.append(SetValue((*path, "updatedAt"), stamped))
    return ops, notes


def _row_ops(doc: dict[str, Any], results: Sequence[Result], evaluators: Mapping[str, EvaluatorDef],
             writer: WritesRows) -> tuple[int, list[Op], list[Change]]:
    """Where the row of `results` is in `doc` (by the rule of the set's format, `writer`), and the edits
    that accept them there."""
    row_id, label = results[0].row_id, results[0].label
    evaluations = doc.get("evaluations")
    index = row_index(evaluations, row_id, writer.row_ids) if isinstance(evaluations, list) else None
    if index is None or not isinstance(evaluations, list):
        raise WritebackError(f"row {label!r} (id {row_id}) is no longer in the eval set; nothing written")
    ops: list[Op] = []
    changes: list[Change] = []
    for result in results:
        more, change = _ops_for(result, evaluators[result.evaluator], evaluations[index], index, writer)
        ops += more
        if change is not None:
            changes.append(change)
    return index, ops, changes


def accept_rows_edit(rows: Sequence[Sequence[Result]], evaluators: Mapping[str, EvaluatorDef], writer: WritesRows,
                     clock: Clock = utc_now) -> Edit:
    """The edit (bytes → Edited) that accepts several rows of one eval set of format `writer` at once: one
    parse, one splice per changed value, one check of the result (bulk accept writes each file once).
    Each entry of `rows` is one row's results (one per evaluator ref to accept)."""
    for results in rows:
        check_recorded(results, evaluators)

    def edit(data: bytes) -> Edited:
        try:
            doc = jsonio.loads_object(data)
        except jsonio.NotAnObject:
            raise WritebackError("the eval set's top level is not a JSON object right now; nothing written") from None
        except jsonio.JsonError as exc:
            raise WritebackError(f"the eval set is not valid JSON right now ({exc}); fix it, then accept") from None
        ops: list[Op] = []
        changes: list[Change] = []
        changed_rows: list[int] = []
        for results in rows:
            index, more, row_changes = _row_ops(doc, results, evaluators, writer)
            ops += more
            changes += row_changes
            if more:
                changed_rows.append(index)
        if not ops:
            return Edited(data, [])
        stamps, notes = _stamp_ops(doc, changed_rows, clock())
        return Edited(apply_ops(data, doc, ops + stamps, detect(data)), changes, notes)

    return edit


def accept_edit(results: Sequence[Result], evaluators: Mapping[str, EvaluatorDef], writer: WritesRows,
                clock: Clock = utc_now) -> Edit:
    """The edit (bytes → Edited) that accepts `results` (one row, one result per evaluator ref)."""
    return accept_rows_edit([results], evaluators, writer, clock)


def plan_accept(root: Path, set_path: Path, results: Sequence[Result], evaluators: Mapping[str, EvaluatorDef],
                *, clock: Clock = utc_now) -> WritePlan:
    """What accepting `results` would write into the eval set at `set_path`; writes nothing.

    `results` are one row's recorded results (one per evaluator ref to accept); `evaluators` maps
    each ref to its definition in the set's scope.
    """
    return make_plan(root, set_path, accept_edit(results, evaluators, writer_of(root, set_path)[1], clock))


def plan_accept_rows(root: Path, set_path: Path, rows: Sequence[Sequence[Result]],
                     evaluators: Mapping[str, EvaluatorDef], *, clock: Clock = utc_now) -> WritePlan:
    """What accepting several rows of the eval set at `set_path` would write, as one change; writes nothing."""
    return make_plan(root, set_path, accept_rows_edit(rows, evaluators, writer_of(root, set_path)[1], clock))
