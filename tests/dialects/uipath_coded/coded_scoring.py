"""Scoring one row with the coded format's own scorers, without the SDK: evaluators, spans and configs as the
format's loader and child give them to the scorers."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from workbench.config import Config
from workbench.dialects.uipath_coded.scorers import coded_scorers
from workbench.dialects.uipath_coded.settings import CodedConfig
from workbench.model import EvaluatorDef
from workbench.scoring.base import Score, ScoreInput, Scorer

SCORERS: dict[str, Scorer] = {scorer.type_id: scorer for scorer in coded_scorers()}


def evaluator(type_id: str, ident: str = "E", **config: Any) -> EvaluatorDef:
    """An evaluator file `{"id": ident, "evaluatorTypeId": type_id, "evaluatorConfig": config}`."""
    doc = {"version": "1.0", "id": ident, "name": ident, "evaluatorTypeId": type_id,
           "evaluatorConfig": {"name": ident, **config}}
    return EvaluatorDef("evaluations", ident, Path(f"evaluations/evaluators/{ident}.json"), ident, ident, type_id,
                        doc["evaluatorConfig"], doc, dialect="uipath-coded")


def span(name: str | None = None, **attributes: Any) -> dict[str, Any]:
    """A trace event as the child writes it; `tool_id=`, `input=`, `output=`, `synthesized=` set the tool's
    attributes."""
    attrs: dict[str, Any] = {}
    if name is not None:
        attrs["tool.name"] = name
    for key, attr in (("tool_id", "tool.id"), ("input", "input.value"), ("output", "output.value"),
                      ("synthesized", "tool.synthesized")):
        if key in attributes:
            attrs[attr] = attributes.pop(key)
    attrs.update(attributes)
    return {"type": "tool_call" if name else "span", "name": name or "step", "args": {}, "output": None,
            "span": {"name": name or "step", "attributes": attrs, "start_ns": 0, "end_ns": 1, "status": "OK"}}


def settings(pass_threshold: float = 1.0, **thresholds: float) -> Config:
    return Config(root=Path("."), dialect_sections={
        "uipath-coded": CodedConfig(pass_threshold=pass_threshold, thresholds=thresholds)})


def score(type_id: str, criterion: dict[str, Any] | None, output: Any = None, trace: Sequence[dict[str, Any]] = (),
          config: Config | None = None, **evaluator_config: Any) -> Score:
    """One row scored by a fresh evaluator of `type_id` (its config checked first, as loading does)."""
    ev = evaluator(type_id, **evaluator_config)
    scorer = SCORERS[type_id]
    problem = scorer.check_config(ev)
    assert problem is None, problem
    result = scorer.score(ScoreInput(ev, criterion or {}, {} if output is None else output, list(trace),
                                     config=config))
    assert isinstance(result, Score)
    return result
