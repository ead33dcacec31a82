"""The read-only tools: `check` (problems), `row` (one row's whole story) and `history` (iterations and
their flips). Plain data, each bounded; names are looked up among what the project holds, so no argument
reaches a path of its own."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any

from .. import jsonio
from ..actions.project_check import check_project
from ..compare import differences, format_path
from ..config import Config
from ..dialects import all_dialects
from ..dialects.base import Checks
from ..history import HistoryStore, IterationInfo
from ..model import EvalSet, EvaluatorDef, Project, Result, ResultKey, Row, RowKey
from ..output_paths import MISSING, WHOLE, describe_target, select_pairs, split_path
from ..project import load_project
from ..scoring import scorer_for
from ..textsafe import counted, one_line
from ..trace import tool_calls, trace_tokens
from ..writeback.rows import find_row, find_set
from .digest import flips_between
from .loop import AgentRefusal

MAX_PROBLEMS = 50
MAX_VALUE_CHARS = 12_000  # one value (inputs, expected, actual) in `row`'s structured content
MAX_DIFFERENCES = 50
LOG_TAIL_LINES = 30
MAX_HISTORY = 50


@dataclass(slots=True)
class Answer:
    """A tool's answer: structured content, and its short text rendering. `refused`: part of what was asked
    was refused (an `accept` of a row that is no row's), so the call answers as an error, as every other
    refusal does, even though the rest of it was done."""

    structured: dict[str, Any]
    text: str
    refused: bool = False
    secrets: frozenset[str] = frozenset()  # values to redact beyond the project's (a digest's outputs')


def check_answer(config: Config) -> Answer:
    report = check_project(config.root)
    problems = [p.to_json() for p in report.problems[:MAX_PROBLEMS]]
    doc = report.to_json() | {"problems": problems, "problems_total": len(report.problems)}
    doc.pop("reuse", None)
    lines = [one_line(f"{p['severity']}: {p['file']}: {p['message']}", 300) for p in problems[:20]]
    if len(report.problems) > 20:
        lines.append(f"… {len(report.problems) - 20} more in the structured content"
                     + (f" (first {MAX_PROBLEMS})" if len(report.problems) > MAX_PROBLEMS else ""))
    checked = (f"{counted(report.sets, 'set')}, {counted(report.rows, 'row')}, "
               f"{counted(report.evaluators, 'evaluator')}"
               + (f"; rows checked against {report.workflow}" if report.workflow else ""))
    lines.append(f"check {'passed' if report.passed else 'failed'}: {counted(len(report.errors), 'error')}, "
                 f"{counted(len(report.warnings), 'warning')} ({checked})")  # the words `workbench check` ends with
    return Answer(doc, "\n".join(lines))


def _bounded(value: Any) -> Any:
    """`value`, or a clipped preview of its JSON when it is too big for an agent's context."""
    text = jsonio.dumps(value)
    if len(text) <= MAX_VALUE_CHARS:
        return value
    return {"clipped": True, "json_chars": len(text), "preview": text[:2000]}


def locate_row(project: Project, name: str, set_name: str | None) -> tuple[EvalSet, Row]:
    """The row called `name` (id or exact name), in `set_name` or, without it, in the one set that has it."""
    if set_name:
        eval_set = find_set(project, set_name)
        return eval_set, find_row(eval_set, name)
    found = [(s, r) for s in project.sets for r in s.rows if r.id == name or r.name == name]
    if len(found) == 1:
        return found[0]
    if found:
        sets = ", ".join(sorted({s.stem for s, _ in found}))
        raise AgentRefusal(f"{len(found)} rows are called {name!r} (in {sets}); give set= too, or the row's id")
    meant = _rows_meant(name, [r.label for s in project.sets for r in s.rows])
    hint = f"did you mean {' or '.join(repr(m) for m in meant)}? " if meant else ""
    raise AgentRefusal(f"no row {name!r} in any eval set ({hint}give its id or exact name; sets: "
                       + (", ".join(s.stem for s in project.sets) or "none") + ")")


def _rows_meant(name: str, labels: list[str]) -> list[str]:
    """Up to three row names an agent probably meant: those holding what it typed, else close spellings."""
    folded = name.casefold()
    holding = [label for label in dict.fromkeys(labels) if folded in label.casefold()]
    return holding[:3] or difflib.get_close_matches(name, list(dict.fromkeys(labels)), n=3, cutoff=0.6)


def row_findings(config: Config, project: Project, key: RowKey) -> list[str]:
    """What loading and `check` say about this row (a casing hint, inputs or expectation against the
    workflow's schemas), each once."""
    found = [p.message for p in project.problems if p.row == key]
    for dialect in all_dialects():
        if not isinstance(dialect, Checks):
            continue
        checked = dialect.check(project, config)
        found += [p.message for p in checked.findings if p.row == key]
    return list(dict.fromkeys(found))


def _compares_expected_output(result: Result) -> bool:
    """Whether a structural diff of expected and actual says why the result failed: not for a `contains`,
    a classification or a tool-call evaluator, whose criterion is no expected output (their detail says)."""
    scorer = scorer_for(result.evaluator_type) if result.evaluator_type else None
    return scorer is None or scorer.uses_expected_output


def _selected_differences(actual: Any, expected: Any, target: Any, extra_ignored: bool) -> tuple[list[str], list[str]]:
    """(the differences under the paths the evaluator's targetOutputKey selects, in the scorer's words; the
    paths where the two sides differ too but the evaluator ignores: outside the selection, and with
    `extra_ignored` what the output has beyond expectedOutput)."""
    pairs = select_pairs(actual, expected, target)
    whole = not pairs or any(pair.is_whole for pair in pairs)
    found: list[str] = []
    ignored: list[str] = []

    def sort(a: Any, e: Any, prefix: str) -> None:
        for difference in differences(a, e, MAX_DIFFERENCES + 1):
            if extra_ignored and difference.kind in ("unexpected", "extra_item"):
                ignored.append(format_path(difference.path, prefix))
            else:
                found.append(difference.describe(prefix))

    if whole and pairs:
        sort(actual, expected, "")
        return _clipped(found), list(dict.fromkeys(ignored))
    for pair in pairs:
        if pair.actual is MISSING and pair.expected is MISSING:
            found.append(f"{pair.path}: missing from both the output and expectedOutput")
        elif pair.actual is MISSING:
            found.append(f"{pair.path}: missing from the actual output")
        elif pair.expected is MISSING:
            found.append(f"{pair.path}: missing from expectedOutput")
        else:
            sort(pair.actual, pair.expected, pair.path)
    selected = [tuple(split_path(pair.path)) for pair in pairs]

    def compared(path: tuple[str | int, ...]) -> bool:  # under a selected path, or above one (it holds it)
        return any(path[:len(base)] == base or base[:len(path)] == path for base in selected)

    ignored += [format_path(d.path) for d in differences(actual, expected, MAX_DIFFERENCES) if not compared(d.path)]
    return _clipped(found), list(dict.fromkeys(ignored))


def _clipped(lines: list[str]) -> list[str]:
    if len(lines) <= MAX_DIFFERENCES:
        return lines
    return [*lines[:MAX_DIFFERENCES], f"… and more differences (showing the first {MAX_DIFFERENCES})"]


def _evaluator_part(result: Result, iteration: int, row: Row, evaluator: EvaluatorDef | None) -> dict[str, Any]:
    part: dict[str, Any] = {"evaluator": result.evaluator, "type": result.evaluator_type,
                            "verdict": result.verdict.value, "score": result.score, "iteration": iteration,
                            "detail": result.detail, "expected": _bounded(result.expected),
                            "actual": _bounded(result.actual)}
    if not result.passed and result.expected is not None and _compares_expected_output(result):
        target = WHOLE if evaluator is None or evaluator.target_error else evaluator.target_output_key
        scorer = scorer_for(result.evaluator_type) if result.evaluator_type else None
        part["differences"], ignored = _selected_differences(result.actual, result.expected, target,
                                                             scorer is not None and scorer.extra_output_ignored)
        if ignored:  # what the evaluator does not compare is no reason it failed; said apart, never as one
            part["compares"] = describe_target(target) + (" (keys and items beyond expectedOutput cost nothing)"
                                                          if scorer is not None and scorer.extra_output_ignored
                                                          else "")
            part["ignored"] = ignored
    if result.verdict.value == "ERROR":
        part["error"] = result.detail
    now = row.expected_for(result.evaluator)
    if now is not None and jsonio.dumps(now) != jsonio.dumps(result.expected):
        part["stale"] = "the expectation was edited since this run; run() re-scores it"
    return part


def row_answer(config: Config, name: str, set_name: str | None, iteration: int | None) -> Answer:
    project = load_project(config.root, config)
    eval_set, row = locate_row(project, name, set_name)
    key = eval_set.key_of(row)
    found: list[tuple[int, Result]] = []
    with HistoryStore.open(config) as store:
        for ref in eval_set.evaluator_refs:
            hit = store.find_result(ResultKey(key.scope, key.set_file, key.row_id, ref), iteration)
            if hit is not None:
                found.append(hit)
    warnings = row_findings(config, project, key)
    doc: dict[str, Any] = {"set": eval_set.stem, "row": row.label, "row_id": row.id, "inputs": _bounded(row.inputs),
                           "file": eval_set.source_of(row).relative_to(project.root).as_posix()
                           if eval_set.source_of(row).is_relative_to(project.root) else eval_set.file_name,
                           "warnings": warnings, "evaluators": [], "problem": row.problem}
    if not found:
        when = f"in iteration {iteration}" if iteration is not None else "yet"
        doc["note"] = f"no recorded run of this row {when}; run(rows=[{row.label!r}]) runs it"
        return Answer(doc, f"{eval_set.stem} › {row.label}: {doc['note']}")
    evaluators = project.evaluators_of(eval_set.scope)
    doc["evaluators"] = [_evaluator_part(result, number, row, evaluators.get(result.evaluator))
                         for number, result in found]
    newest = max(found, key=lambda hit: hit[0])[1]
    doc["log_tail"] = newest.log.splitlines()[-LOG_TAIL_LINES:]
    calls = tool_calls(newest.trace)
    doc["trace"] = {"events": len(newest.trace), "tool_calls": calls.names[:50], "tokens": trace_tokens(newest.trace)}
    return Answer(doc, _row_text(doc))


def _row_text(doc: dict[str, Any]) -> str:
    lines = [f"{doc['set']} › {doc['row']} (id {doc['row_id']})",
             "inputs: " + one_line(jsonio.dumps(doc["inputs"]), 400)]
    for part in doc["evaluators"]:
        lines.append(f"[{part['evaluator']}] {part['verdict']} in iteration {part['iteration']}"
                     + (f" — {part['stale']}" if "stale" in part else ""))
        if part["verdict"] != "PASS":
            lines.extend(f"  {one_line(line, 300)}" for line in part.get("differences", [])[:15])
            if part.get("ignored"):
                lines.append(one_line(f"  ignored, not compared (it compares {part['compares']}): "
                                      + ", ".join(part["ignored"][:10]), 300))
            if not part.get("differences"):
                lines.extend(f"  {one_line(line, 300)}" for line in part["detail"].splitlines()[:10])
    lines.extend(f"warning: {one_line(w, 300)}" for w in doc["warnings"][:5])
    if doc.get("log_tail"):
        lines.append("log tail: " + one_line(" | ".join(doc["log_tail"][-5:]), 400))
    trace = doc.get("trace") or {}
    if trace.get("tool_calls"):
        lines.append("tool calls: " + one_line(", ".join(trace["tool_calls"]), 300))
    lines.append("(expected, actual, every difference and the log tail are in the structured content)")
    return "\n".join(lines)[:6000]


def _iteration_doc(info: IterationInfo, flips: dict[str, Any] | None) -> dict[str, Any]:
    return {"number": info.number, "started_at": info.started_at.isoformat(), "trigger": info.trigger.describe(),
            "trigger_kind": str(info.trigger.kind), "files_changed": list(info.trigger.files)[:20],
            "partial": info.partial, "rows": {"passing": info.rows_passed, "total": info.rows_total},
            "results": {"passed": info.passed, "failed": info.failed, "errors": info.errors, "total": info.total},
            "file_errors": sum(p.is_error for p in info.problems), "duration_s": round(info.duration_s, 3),
            "flips": flips}


def history_answer(config: Config, last: int) -> Answer:
    last = max(1, min(last, MAX_HISTORY))
    with HistoryStore.open(config) as store:
        infos = store.iterations(limit=last + 1)
        results = {info.number: store.results(info.number) for info in infos}
    docs = []
    for before, info in zip([None, *infos], infos, strict=False):
        if before is None and len(infos) > last:
            continue
        flips = flips_between(results[before.number], results[info.number], before.number) if before else None
        docs.append(_iteration_doc(info, flips.to_json() if flips else None))
    docs = docs[-last:]
    lines = []
    for doc in docs:
        flips = doc["flips"]
        change = ""
        if flips:
            change = f"; fixed {flips['fixed_count']}, newly failing {flips['newly_failing_count']}"
        lines.append(one_line(f"#{doc['number']} ({doc['trigger']}{', partial' if doc['partial'] else ''}): "
                              f"{doc['rows']['passing']}/{doc['rows']['total']} rows pass{change}", 300))
    return Answer({"iterations": docs}, "\n".join(lines) or "no iterations recorded yet")
