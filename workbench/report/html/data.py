"""What the HTML report embeds: one JSON document built from an iteration — just run (`run --html`) or read
back from history (`workbench report N --html`) — with the gate, the previous iteration and the baseline,
the trend, the flips, every row with each result's detail as its format draws it (`dialects.base.detail_blocks`),
logs and traces, and the project's settings; secrets redacted (`report/redact.py`)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ... import jsonio
from ...actions.gate import GateRun, dialect_gates, gate_request, judge_run
from ...baseline import BaselineCheck, load_baseline
from ...config import Config
from ...dialects import all_dialects, dialect_for
from ...dialects.base import Dialect, GateAsk, GateVerdict, detail_blocks
from ...dialects.detail import RowDetail
from ...errors import WorkbenchError
from ...events import IterationReport
from ...gate import GateOutcome
from ...history import DB_NAME, HistoryStore, IterationInfo, compare_results
from ...model import EvaluatorDef, Problem, Project, Result, Row, RowKey, Verdict, results_by_row, row_verdict
from ..redact import Redactor, redactor_for, settings_of

FORMAT = 1
TREND_ITERATIONS = 60
LOG_CHARS = 16 * 1024
TRACE_EVENTS = 200
VALUE_BYTES = 256 * 1024  # one value of a row's detail shown whole up to this much JSON
VALUE_SHOWN = 64 * 1024


@dataclass(slots=True)
class ReportSource:
    """One iteration and everything the report says around it."""

    config: Config
    report: IterationReport
    partial: bool = False
    gate: GateOutcome | None = None
    gate_note: str = ""  # why the gate was not judged (a report from history whose baseline can't be used)
    verdicts: list[GateVerdict] = field(default_factory=list)
    check: BaselineCheck | None = None
    baseline_path: Path | None = None
    history: list[IterationInfo] = field(default_factory=list)  # the trend, oldest first
    previous: list[Result] | None = None  # the results known before this iteration
    previous_number: int | None = None


def from_gate_run(config: Config, run: GateRun) -> ReportSource:
    """`run --html`: the iteration just judged, with the history it was recorded into."""
    source = ReportSource(config, run.report, run.request.partial, run.gate, "", list(run.verdicts), run.check,
                          run.request.baseline_path if run.check is not None else None)
    _add_history(source)
    return source


def from_history(config: Config, project: Project | None, store: HistoryStore, number: int) -> ReportSource:
    """`workbench report N`: iteration N as recorded, judged again by today's gate settings and baseline."""
    info = store.iteration(number)
    if info is None:
        latest = store.latest_number()
        raise WorkbenchError(f"no iteration {number} in history" + (f" (the newest is {latest})" if latest else ""))
    report = IterationReport(info.trigger, info.started_at, store.results(number),
                             list(info.problems), info.duration_s, True, project, number)
    source = ReportSource(config, report, info.partial)
    _judge(source, project)
    _add_history(source, store)
    return source


def _judge(source: ReportSource, project: Project | None) -> None:
    """The gate over a recorded iteration (the formats' own gates need the project as it is now)."""
    config, report = source.config, source.report
    try:
        request = gate_request(config)
        gates = dialect_gates(project, config, GateAsk(None, False, source.partial, False)) if project else []
        run = judge_run(request, report, load_baseline(request.baseline_path), gates)
    except WorkbenchError as exc:
        source.gate_note = f"not judged: {exc}"
        return
    source.gate, source.verdicts, source.check = run.gate, list(run.verdicts), run.check
    source.baseline_path = request.baseline_path if run.check is not None else None


def _add_history(source: ReportSource, store: HistoryStore | None = None) -> None:
    if store is None:
        if not (source.config.state_dir / DB_NAME).is_file():
            return  # nothing recorded (run --no-history in a fresh project): no history is made for the report
        try:
            with HistoryStore.open(source.config) as opened:
                _add_history(source, opened)
        except WorkbenchError:
            return
        return
    infos = store.iterations(TREND_ITERATIONS)
    number = source.report.number
    source.history = [i for i in infos if number is None or i.number <= number]
    earlier = [i for i in store.iterations() if number is None or i.number < number]
    if earlier:
        start = max((index for index, info in enumerate(earlier) if not info.partial), default=0)
        known: dict[Any, Result] = {}
        for info in earlier[start:]:
            known.update((result.key, result) for result in store.results(info.number))
        source.previous, source.previous_number = list(known.values()), earlier[-1].number


# -- the document ----------------------------------------------------------------------------------


def _dialect_of(project: Project | None, result: Result) -> Dialect | None:
    """The format a result's row is of: its set's, or (its set gone) the format whose evaluator type it is."""
    if project is not None:
        eval_set = project.find_set(result.scope, result.set_file)
        if eval_set is not None:
            return dialect_for(eval_set.dialect)
    for dialect in all_dialects():
        if result.evaluator_type in {scorer.type_id for scorer in dialect.scorers()}:
            return dialect
    return None


def _rows_of(project: Project | None) -> dict[RowKey, Row]:
    if project is None:
        return {}
    return {eval_set.key_of(row): row for eval_set in project.sets for row in eval_set.rows}


def bounded(value: Any) -> Any:
    """A value as the page shows it: whole up to VALUE_BYTES of JSON, else the start of its JSON text (a
    report of many rows with large outputs stays a file a browser opens)."""
    if value is None or isinstance(value, bool | int | float) or (isinstance(value, str) and len(value) < 1024):
        return value
    text = jsonio.dumps(value)
    if len(text) <= VALUE_BYTES:
        return value
    return f"{text[:VALUE_SHOWN]} … (cut: {len(text) / 1e6:.1f} MB of JSON in all; the whole is in history)"


def _bounded_block(block: dict[str, Any]) -> dict[str, Any]:
    if block.get("kind") == "json":
        return {**block, "value": bounded(block.get("value"))}
    if block.get("kind") == "sides":
        sides = {side: {**block[side], "value": bounded(block[side].get("value"))}
                 for side in ("left", "right") if isinstance(block.get(side), dict)}
        return {**block, **sides}
    return block


def row_blocks(dialect: Dialect | None, detail: RowDetail) -> list[dict[str, Any]]:
    """A result's detail drawn by its format (bounded); a renderer that raises says so in the row alone."""
    try:
        blocks = detail_blocks(dialect, detail)
    except Exception as exc:  # a renderer's bug must not lose the report: the row says so, the rest shows
        return [{"kind": "text", "title": "Detail", "text": f"this detail could not be drawn: {exc!r}",
                 "tone": "error"}]
    return [_bounded_block(block) for block in blocks]


def _result_doc(result: Result, dialect: Dialect | None, row: Row | None, evaluator: EvaluatorDef | None
                ) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "evaluator": result.evaluator, "type": result.evaluator_type, "verdict": result.verdict.value,
        "score": result.score, "ms": round(result.duration_ms, 1), "detail": result.detail[:LOG_CHARS],
        "blocks": row_blocks(dialect, RowDetail(result, row, evaluator)), "log": result.log[-LOG_CHARS:],
        "trace": [bounded(event) for event in result.trace[:TRACE_EVENTS]], "trace_count": len(result.trace),
    }
    if result.samples:
        doc["samples"] = result.samples_text
        doc["sample_verdicts"] = [s.verdict.value for s in result.samples]
    return doc


def _flip_names(flips: list[Result]) -> list[str]:
    return list(dict.fromkeys(f"{r.set_file} › {r.label}" for r in flips))


def row_duration_ms(group: list[Result]) -> float:
    """How long a row took: it ran once and each of its results carries that run's time, so the longest one
    (as the TUI's labels show it), never their sum (a row scored by 9 evaluators is not 9 runs)."""
    return max((r.duration_ms for r in group), default=0.0)


def rows_doc(source: ReportSource) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """Every row of the iteration (its results in order) and the flips since the previous iteration."""
    report, project = source.report, source.report.project
    rows = _rows_of(project)
    flips = (compare_results(source.previous, report.results, only_current=source.partial)
             if source.previous is not None else None)
    newly = ({r.row_key for r in flips.newly_failing}, {r.row_key for r in flips.newly_passing}) if flips else (
        set(), set())
    show_scope = len({r.scope for r in report.results}) > 1
    out = []
    for index, (key, group) in enumerate(results_by_row(report.results).items()):
        row = rows.get(key)
        first = group[0]
        dialect = _dialect_of(project, first)
        evaluators = project.evaluators_of(key.scope) if project is not None else {}
        verdict = row_verdict(r.verdict for r in group) or Verdict.ERROR
        flaky = next((r for r in group if r.flaky), None)
        doc: dict[str, Any] = {
            "i": index, "set": f"{key.scope}/{key.set_file}" if show_scope else key.set_file, "id": key.row_id,
            "name": first.label, "verdict": verdict.value, "ms": round(row_duration_ms(group), 1),
            "tags": list(row.tags) if row is not None else [], "rescored": any(r.reused for r in group),
            "flip": "newly failing" if key in newly[0] else ("newly passing" if key in newly[1] else ""),
            "results": [_result_doc(r, dialect, row, evaluators.get(r.evaluator)) for r in group],
        }
        if flaky is not None:  # issue 24's mark: flaky over time, or by its samples
            doc["flaky"] = (f"since iteration {flaky.flaky_since}" if flaky.flaky_since is not None
                            else f"{flaky.samples_text} samples passed")
        out.append(doc)
    flip_doc = None
    if flips is not None:
        flip_doc = {"previous": source.previous_number, "newly_failing": _flip_names(flips.newly_failing),
                    "newly_passing": _flip_names(flips.newly_passing), "added": len(flips.added),
                    "removed": len(flips.removed)}
    return out, flip_doc


def _summary(source: ReportSource, rows: list[dict[str, Any]]) -> dict[str, Any]:
    report = source.report
    summary = report.summary
    passed_rows = sum(1 for r in rows if r["verdict"] == Verdict.PASS.value)
    doc: dict[str, Any] = {
        "number": report.number, "started_at": report.started_at.astimezone(UTC).isoformat(),
        "trigger": report.trigger.describe(), "partial": source.partial, "duration_s": round(report.duration_s, 3),
        "results": summary.to_json(), "rows": {"passed": passed_rows, "total": len(rows)},
        "problems": [_problem(p) for p in report.problems],
    }
    previous = next((i for i in reversed(source.history) if report.number is None or i.number < report.number),
                    None)
    if previous is not None:
        doc["previous"] = {"number": previous.number, "rows_passed": previous.rows_passed,
                           "rows_total": previous.rows_total, "partial": previous.partial}
    return doc


def _problem(problem: Problem) -> dict[str, Any]:
    return {"severity": str(problem.severity), "file": problem.file, "message": problem.message}


def _gate(source: ReportSource) -> dict[str, Any]:
    gate = source.gate
    if gate is None:
        return {"judged": False, "note": source.gate_note or "not judged"}
    doc: dict[str, Any] = {"judged": True, "passed": gate.passed, "pass_rate": round(gate.result_pass_rate, 4),
                           "reasons": gate.reasons, "warnings": gate.warnings,
                           "lines": [line for verdict in source.verdicts for line in verdict.lines()]}
    if source.check is not None:
        doc["baseline"] = {"path": source.baseline_path.name if source.baseline_path else None,
                           "regressions": [r.describe() for r in source.check.regressions]}
        doc["baseline"].update(_baseline_counts(source))
    return doc


def _baseline_counts(source: ReportSource) -> dict[str, int]:
    """How many of the baseline's results passed, beside this run's (empty when it can't be read again)."""
    try:
        baseline = load_baseline(source.baseline_path) if source.baseline_path is not None else None
    except WorkbenchError:
        return {}
    if baseline is None:
        return {}
    return {"passed": sum(entry.passed for entry in baseline.entries.values()), "total": len(baseline.entries)}


def _trend(source: ReportSource) -> list[dict[str, Any]]:
    return [{"n": i.number, "passed": i.rows_passed, "total": i.rows_total, "partial": i.partial}
            for i in source.history]


def document(source: ReportSource, redactor: Redactor | None = None) -> dict[str, Any]:
    """The report's data: everything the page shows, secrets redacted."""
    redactor = (redactor if redactor is not None else redactor_for(source.config)).knowing(
        [*source.report.results, *(source.previous or ())])
    # a log's tail and a detail are cut without a mark: redacted before, so no secret is cut in half unseen
    results = [replace(r, log=redactor.text(r.log), detail=redactor.text(r.detail)) for r in source.report.results]
    source = replace(source, report=replace(source.report, results=results))
    rows, flips = rows_doc(source)
    doc = {
        "format": FORMAT, "project": source.config.root.name,
        "generated_at": datetime.now(UTC).replace(microsecond=0).isoformat(),
        "summary": _summary(source, rows), "gate": _gate(source), "flips": flips, "trend": _trend(source),
        "sets": sorted({r["set"] for r in rows}), "tags": sorted({t for r in rows for t in r["tags"]}),
        "settings": redactor.hidden(settings_of(source.config)), "rows": rows,
    }
    scrubbed: dict[str, Any] = redactor.scrub(doc)
    return scrubbed
