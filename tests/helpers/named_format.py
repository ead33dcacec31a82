"""A toy format for the TUI tests of what a format may do differently from seed 003 (added for a block with
`dialects.added_dialect`): its evaluators are referred to by id, not by file name, and a row is scored only by
the evaluators its criteria name (`Dialect.refs_of`, `criterion_for` skipping the others).

    <root>/<name>.named.json     {"evaluatorRefs": [...], "rows": [{"id", "inputs", "criteria": {...}}]}
    <root>/checks/<file>.json    {"id": "Grade", "targetOutputKey": "grade"}  (exact match)

plus `Echo`, an evaluator the format brings with no file of its own. Rows run on the FakeTarget (`{"out": X}`
outputs X)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from workbench.config import Config, load_config
from workbench.dialects import added_dialect
from workbench.dialects.base import UNREADABLE, Dialect, LoadContext, Words
from workbench.model import EvalSet, EvaluatorDef, EvaluatorKey, Row
from workbench.scoring.base import Scorer

NAME = "toy-named"
SCOPE = "named"
BUILT_IN = "Echo"
CONFIG = '[runner]\nkind = "command"\ncommand = ["{python}", "-c", "pass"]\ntimeout = 20\n'


class NamedRefsDialect(Dialect):
    name = NAME
    title = "named-refs sets"
    words = Words(expects="*.named.json")

    def present(self, root: Path, config: Config | None) -> bool:
        return any(root.glob("*.named.json"))

    def refs_of(self, eval_set: EvalSet, row: Row) -> list[str]:
        return [ref for ref in eval_set.evaluator_refs if ref in row.criteria]

    def criterion_for(self, row: Row, ref: str, evaluator: EvaluatorDef, scorer: Scorer) -> dict[str, Any] | str | None:
        if ref not in row.criteria:
            return None
        return super().criterion_for(row, ref, evaluator, scorer)

    def load(self, ctx: LoadContext) -> None:
        for path in sorted((ctx.root / "checks").glob("*.json")):
            doc = ctx.read_json(path)
            if doc is UNREADABLE:
                continue
            ctx.project.evaluators[EvaluatorKey(SCOPE, doc["id"])] = EvaluatorDef(
                scope=SCOPE, ref=doc["id"], path=path, id=doc["id"], name=doc["id"], type_id="uipath-exact-match",
                config={"targetOutputKey": doc["targetOutputKey"]}, raw=doc)
        ctx.project.evaluators[EvaluatorKey(SCOPE, BUILT_IN)] = EvaluatorDef(
            scope=SCOPE, ref=BUILT_IN, path=ctx.root, id=None, name="echo", type_id="uipath-exact-match", config={},
            raw={})
        for path in sorted(ctx.root.glob("*.named.json")):
            doc = ctx.read_json(path)
            if doc is UNREADABLE:
                continue
            rows = [Row(id=spec["id"], name=spec.get("name", spec["id"]), inputs=spec["inputs"],
                        criteria=spec["criteria"], index=index, raw=spec)
                    for index, spec in enumerate(doc["rows"])]
            ctx.project.sets.append(EvalSet(scope=SCOPE, path=path, id=None, name=None,
                                            evaluator_refs=doc["evaluatorRefs"], rows=rows, dialect=NAME))


@contextmanager
def named_format() -> Iterator[NamedRefsDialect]:
    with added_dialect(NamedRefsDialect()) as dialect:
        yield dialect


def write_named_project(root: Path, checks: dict[str, dict[str, Any]], sets: dict[str, dict[str, Any]]) -> Config:
    """`checks`: evaluator file base name -> document; `sets`: set name -> document."""
    (root / "checks").mkdir(parents=True, exist_ok=True)
    for name, doc in checks.items():
        (root / "checks" / f"{name}.json").write_text(json.dumps(doc), encoding="utf-8")
    for name, doc in sets.items():
        (root / f"{name}.named.json").write_text(json.dumps(doc), encoding="utf-8")
    (root / "workbench.toml").write_text(CONFIG, encoding="utf-8")
    return load_config(root)
