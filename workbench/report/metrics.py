"""The set-level metric of classification evaluators (precision, recall or F-score over a whole set),
computed from an iteration's results. The text report's footer, `--json` and the TUI's set line show it.

A metric is shown for a classification evaluator whose config asks for one (`metricType`); a binary
one also needs `positiveClass` to know which class counts as positive."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..model import EvalSet, EvaluatorKey, Project, Result, SetKey
from ..scoring import scorer_of
from ..scoring.base import Scorer, SetMetric


@dataclass(frozen=True, slots=True)
class SetMetricLine:
    """One evaluator's metric over one set's scored rows."""

    scope: str
    set_file: str
    evaluator: str
    metric: SetMetric

    def describe(self, show_scope: bool = False) -> str:
        where = SetKey(self.scope, self.set_file).shown(show_scope)
        return f"{where} [{self.evaluator}]: {self.metric.describe()}"

    def to_json(self) -> dict[str, Any]:
        return {"scope": self.scope, "set": self.set_file, "evaluator": self.evaluator, "metric": self.metric.name,
                "value": round(self.metric.value, 4), "rows": self.metric.rows}


def set_metrics(project: Project, results: Iterable[Result]) -> list[SetMetricLine]:
    """Every set-level metric of an iteration, in the project's set order, then the set's evaluator order."""
    wanted = {key: ev for key, ev in project.evaluators.items()
              if (scorer := scorer_of(ev)) is not None and type(scorer).set_metric is not Scorer.set_metric}
    if not wanted:
        return []
    groups: dict[tuple[str, str, str], list[Result]] = {}
    for result in results:
        if (result.scope, result.evaluator) in wanted:
            groups.setdefault((result.scope, result.set_file, result.evaluator), []).append(result)
    lines: list[SetMetricLine] = []
    for eval_set in project.sets:
        for ref in dict.fromkeys(eval_set.evaluator_refs):
            group = groups.get((eval_set.scope, eval_set.file_name, ref))
            if not group:
                continue
            evaluator = wanted[EvaluatorKey(eval_set.scope, ref)]
            scorer = scorer_of(evaluator)
            metric = scorer.set_metric(evaluator, group) if scorer is not None else None
            if metric is not None:
                lines.append(SetMetricLine(eval_set.scope, eval_set.file_name, ref, metric))
    return lines


def metrics_of_set(project: Project, eval_set: EvalSet, results: Iterable[Result]) -> list[SetMetricLine]:
    """The metrics of one set (`results` may hold other sets' results too)."""
    mine = [r for r in results if r.scope == eval_set.scope and r.set_file == eval_set.file_name]
    return [line for line in set_metrics(project, mine)
            if line.scope == eval_set.scope and line.set_file == eval_set.file_name]
