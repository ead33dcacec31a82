"""The classification set-level metric (docs/evaluators.md) is shown: in the text report's
footer, in `--json` as `set_metrics`, and through `report.metrics` for the TUI's set line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from helpers.cli import invoke_json, invoke_workbench
from helpers.project import COMMAND_CONFIG, eval_set, make_project, row

from workbench.config import load_config
from workbench.model import Result, Verdict
from workbench.project import load_project
from workbench.report.metrics import metrics_of_set, set_metrics


def classifier(type_id: str, **config: Any) -> dict[str, Any]:
    return {"version": "1.0", "id": type_id, "name": "router", "evaluatorTypeId": type_id,
            "evaluatorConfig": {"name": "router", "targetOutputKey": "queue", **config}}


def routed(name: str, expected: str, predicted: str, refs: tuple[str, ...]) -> dict[str, Any]:
    return row(name, {"output": {"queue": predicted}},
               criteria={ref: {"expectedClass": expected} for ref in refs})


REFS = ("routing", "spam", "plain")
ROWS = [routed("r1", "a", "a", REFS), routed("r2", "b", "a", REFS), routed("r3", "b", "b", REFS)]


def project(tmp_path: Path) -> Path:
    return make_project(tmp_path, config=COMMAND_CONFIG, sets={"tickets": eval_set(ROWS, refs=REFS)}, evaluators={
        "routing": classifier("uipath-multiclass-classification", metricType="f-score", averaging="macro"),
        "spam": classifier("uipath-binary-classification", classes=["a", "b"], metricType="precision"),  # no positive
        "plain": classifier("uipath-multiclass-classification"),  # asks for no metric
    })


def test_the_text_report_ends_with_the_metric_before_the_summary(tmp_path: Path) -> None:
    proc = invoke_workbench("run", str(project(tmp_path)))
    lines = proc.stdout.splitlines()
    # per class: a (tp 1, fp 1, fn 0) and b (tp 1, fp 0, fn 1) both have F1 2/3
    assert lines[-2] == "metric: tickets.json [routing]: f-score (macro) 0.67 over 3 rows"
    assert lines[-1].startswith("6 passed, 3 failed, 0 errors")
    assert sum(line.startswith("metric:") for line in lines) == 1


def test_json_lists_the_set_metrics(tmp_path: Path) -> None:
    _, doc = invoke_json("run", str(project(tmp_path)))
    assert doc["set_metrics"] == [{"scope": "default", "set": "tickets.json", "evaluator": "routing",
                                   "metric": "f-score (macro)", "value": 0.6667, "rows": 3}]


def test_the_metric_of_one_set_for_the_tui(tmp_path: Path) -> None:
    root = project(tmp_path)
    loaded = load_project(root, load_config(root))
    tickets = loaded.sets[0]
    results = [Result("default", "tickets.json", r["id"], r["name"], "routing", Verdict.PASS, 1.0, "",
                      expected=expected, actual={"queue": expected}) for r, expected in zip(ROWS, "abb", strict=True)]
    other = Result("default", "other.json", "x", "x", "routing", Verdict.FAIL, 0.0, "",
                   expected="a", actual={"queue": "b"})
    (line,) = metrics_of_set(loaded, tickets, [*results, other])
    assert line.metric.value == 1.0 and line.describe() == "tickets.json [routing]: f-score (macro) 1.00 over 3 rows"
    assert set_metrics(loaded, []) == []
