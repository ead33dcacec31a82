"""One vocabulary, typed (issue 21): the keys are read by field name, the StrEnums write the same strings the
JSON and the history always held, and "green" has one definition that the report, the loop's summary and the
text summary share."""

from __future__ import annotations

import ast
import json

from helpers.paths import PACKAGE

from workbench.events import IterationReport, Trigger, TriggerKind
from workbench.model import (
    EvaluatorKey,
    Problem,
    Result,
    ResultKey,
    RowKey,
    SetKey,
    Severity,
    Summary,
    Verdict,
    is_green,
)
from workbench.progress import LoopTracker
from workbench.report.text import format_summary

KEY_NAMES = ("key", "row_key", "set_key", "result_key", "evaluator_key")


def result(row_id: str, verdict: Verdict = Verdict.PASS) -> Result:
    return Result(scope="default", set_file="qa.json", row_id=row_id, row_name=None, evaluator="exact",
                  verdict=verdict, score=1.0 if verdict is Verdict.PASS else 0.0, detail="", actual=None,
                  expected=None, duration_ms=1.0)


def test_keys_equal_the_tuples_they_replace_and_know_their_set() -> None:
    assert RowKey("s", "a.json", "r") == ("s", "a.json", "r")
    assert {EvaluatorKey("s", "exact"): 1}[("s", "exact")] == 1  # type: ignore[index]
    assert ResultKey("s", "a.json", "r", "exact").set == SetKey("s", "a.json") == RowKey("s", "a.json", "r").set
    assert result("r").set_key == SetKey("default", "qa.json")
    assert SetKey("s", "a.json").shown(with_scope=True) == "s/a.json" and SetKey("s", "a.json").shown(False) == "a.json"


def test_severities_and_trigger_kinds_write_the_strings_they_always_did() -> None:
    assert json.dumps(Problem("f", "m", Severity.WARNING).to_json()) == \
        '{"file": "f", "message": "m", "severity": "warning"}'
    assert Problem("f", "m", "error").severity is Severity.ERROR  # type: ignore[arg-type]  # as old callers wrote it
    assert Problem("f", "m").is_error and not Problem("f", "m", Severity.WARNING).is_error
    assert json.dumps(Trigger(TriggerKind.CHANGE, ("a.py",)).to_json()) == '{"kind": "change", "files": ["a.py"]}'
    assert {kind.value for kind in TriggerKind} == {"start", "run", "change", "manual", "row", "agent"}
    assert Trigger(TriggerKind.ROW).describe() == "re-run row" and f"{Severity.ERROR}" == "error"


def test_green_is_one_definition_in_results_rows_and_the_summary_line() -> None:
    error, warning = Problem("f", "broken"), Problem("f", "odd", Severity.WARNING)
    cases = [([], []), ([result("a")], []), ([result("a"), result("b", Verdict.FAIL)], []), ([result("a")], [error]),
             ([result("a")], [warning]), ([result("a", Verdict.ERROR)], [])]
    for results, problems in cases:
        report = IterationReport(trigger=Trigger(TriggerKind.RUN), results=results, problems=problems, complete=True)
        summary = Summary.of(results)
        expected = bool(results) and all(r.passed for r in results) and error not in problems
        assert report.green is expected
        assert LoopTracker().update(report).green is expected
        assert is_green(summary.passed, summary.total, problems) is expected
        painted = format_summary(summary, problems, 0.0, color=True)
        assert painted.startswith("\x1b[32m" if expected else "\x1b[31m")


def test_no_key_is_read_by_position_outside_the_tui() -> None:
    """`key[1]` says nothing; `key.set_file` does. (The TUI, workbench/tui/, is kept by its own owner.)"""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.relative_to(PACKAGE).parts[0] == "tui":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Subscript):
                continue
            target = node.value
            name = target.attr if isinstance(target, ast.Attribute) else target.id if isinstance(target, ast.Name) \
                else None
            positional = isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, int)
            if name in KEY_NAMES and positional:  # (a slice is left alone: `key[:1]` of a JSON key is text)
                found.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}")
    assert not found, "keys read by position:\n" + "\n".join(found)
