"""A format's own gate (`Gates.gate`), defined in this module, joins `workbench run` with nothing changed
elsewhere: its results leave the generic gate, its reasons join the verdict, its lines and `--json` part
are shown, `--update-baseline` reports what it did, and a gate that takes `--baseline` gets the flag while
the other results keep `[baseline]`'s file. (Scenarios' gate is the real one: tests/dialects/scenarios/.)

The toy format: `*.tally.json` at the project root, `{"answers": {"id": "expected"}}`; the target echoes
`{"a": ...}` and the `toy-tally` evaluator passes on the expected answer. Its gate wants two passes."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, ClassVar

import pytest
from helpers.cli import invoke_json, invoke_workbench

from workbench.baseline import Baseline, write_baseline
from workbench.config import Config
from workbench.dialects import added_dialect
from workbench.dialects.base import UNREADABLE, Dialect, GateAsk, GateUpdate, LoadContext, Words
from workbench.events import IterationReport
from workbench.model import EvalSet, EvaluatorDef, Project, Row, Verdict
from workbench.scoring.base import Score, ScoreInput, Scorer

SCOPE, REF = "tallies", "tally"

ECHO = """\
import json, sys
print(json.dumps({"a": json.load(sys.stdin)["say"]}))
"""


class TallyScorer(Scorer):
    type_id: ClassVar[str] = "toy-tally"

    def score(self, data: ScoreInput) -> Score:
        said = data.output.get("a") if isinstance(data.output, dict) else None
        want = data.criterion.get("a")
        return Score.passed("as expected") if said == want else Score.failed(f"said {said!r}", expected=want)


@dataclass(slots=True)
class TallyVerdict:
    passed_count: int
    total: int
    updated: GateUpdate | None
    key: str = "tally"
    reasons: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        return [f"tally: {self.passed_count}/{self.total} pass (two wanted)"]

    def to_json(self) -> dict[str, Any]:
        return {"passed_count": self.passed_count, "total": self.total}

    def update(self) -> GateUpdate | None:
        return self.updated


@dataclass(slots=True)
class TallyGate:
    project: Project
    ask: GateAsk
    takes_baseline: bool

    def _mine(self, report: IterationReport) -> list[Any]:
        return [r for r in report.results if r.scope == SCOPE]

    def others(self, report: IterationReport) -> IterationReport:
        return replace(report, results=[r for r in report.results if r.scope != SCOPE])

    def judge(self, report: IterationReport) -> TallyVerdict:
        mine = self._mine(report)
        passed = sum(r.verdict is Verdict.PASS for r in mine)
        updated = GateUpdate(passed >= 2, "tally baseline written" if passed >= 2 else "tally baseline NOT updated: "
                             "fewer than two pass") if self.ask.update else None
        return TallyVerdict(passed, len(mine), updated, reasons=[] if passed >= 2 else ["fewer than two tallies pass"])


class TallyDialect(Dialect):
    name = "toy-tally"
    title = "tallies"
    words = Words(expects="*.tally.json")

    def __init__(self, takes_baseline: bool = False) -> None:
        self.takes_baseline = takes_baseline
        self.asked: list[GateAsk] = []

    def scorers(self) -> tuple[Scorer, ...]:
        return (TallyScorer(),)

    def present(self, root: Path, config: Config | None) -> bool:
        return any(root.glob("*.tally.json"))

    def load(self, ctx: LoadContext) -> None:
        for path in sorted(ctx.root.glob("*.tally.json")):
            doc = ctx.read_json(path)
            if doc is UNREADABLE:
                continue
            rows = [Row(id=key, name=key, inputs={"say": key}, criteria={REF: {"a": want}}, index=index, raw=want)
                    for index, (key, want) in enumerate(doc["answers"].items())]
            ctx.project.sets.append(EvalSet(scope=SCOPE, path=path, id=None, name=path.name, evaluator_refs=[REF],
                                            rows=rows, dialect=self.name))
        ctx.project.evaluators[(SCOPE, REF)] = EvaluatorDef(scope=SCOPE, ref=REF, path=ctx.root, id=None, name=REF,
                                                           type_id=TallyScorer.type_id, config={}, raw={})

    def gate(self, project: Project, config: Config, ask: GateAsk) -> TallyGate | None:
        self.asked.append(ask)
        return TallyGate(project, ask, self.takes_baseline) if any(s.dialect == self.name for s in project.sets) \
            else None


@pytest.fixture
def tally() -> Iterator[TallyDialect]:
    dialect = TallyDialect()
    with added_dialect(dialect):
        yield dialect


def tally_project(root: Path, answers: dict[str, str]) -> Path:
    root.mkdir()
    (root / "echo.py").write_text(ECHO, encoding="utf-8")
    (root / "workbench.toml").write_text(f'[runner]\nkind = "command"\ncommand = [{json.dumps(sys.executable)}, '
                                         '"echo.py"]\ntimeout = 30\n', encoding="utf-8")
    (root / "votes.tally.json").write_text(json.dumps({"answers": answers}), encoding="utf-8")
    return root


def test_a_formats_gate_judges_its_results_and_its_reasons_fail_the_run(tally: TallyDialect, tmp_path: Path) -> None:
    root = tally_project(tmp_path / "project", {"yes": "yes", "no": "maybe"})
    proc = invoke_workbench("run", str(root), "--no-history")
    assert proc.returncode == 1, proc.stderr
    assert "tally: 1/2 pass (two wanted)" in proc.stdout
    # only the format's reason: its results are not the generic gate's (nothing else ran, and that is fine)
    assert "gate failed: fewer than two tallies pass" in proc.stdout.splitlines()


def test_a_formats_gate_has_its_part_of_the_json_document(tally: TallyDialect, tmp_path: Path) -> None:
    root = tally_project(tmp_path / "project", {"yes": "yes", "also": "also"})
    proc, doc = invoke_json("run", str(root), "--no-history")
    assert proc.returncode == 0, proc.stderr
    assert doc["gate"]["tally"] == {"passed_count": 2, "total": 2}
    assert doc["gate"]["passed"] is True and doc["gate"]["reasons"] == []


def test_update_baseline_says_what_the_formats_gate_did(tally: TallyDialect, tmp_path: Path) -> None:
    root = tally_project(tmp_path / "project", {"yes": "yes", "no": "maybe"})
    refused = invoke_workbench("run", str(root), "--no-history", "--update-baseline")
    assert refused.returncode == 1
    assert "workbench: tally baseline NOT updated: fewer than two pass" in refused.stderr
    (root / "votes.tally.json").write_text(json.dumps({"answers": {"yes": "yes", "also": "also"}}), encoding="utf-8")
    written = invoke_workbench("run", str(root), "--no-history", "--update-baseline")
    assert written.returncode == 0, written.stderr
    assert "tally baseline written" in written.stdout.splitlines()
    assert tally.asked[-1].update and not tally.asked[-1].partial


def test_a_gate_that_takes_the_baseline_flag_gets_it(tmp_path: Path) -> None:
    root = tally_project(tmp_path / "project", {"yes": "yes", "also": "also"})
    kept = root / "workbench-baseline.json"  # [baseline]'s file, the default
    write_baseline(kept, Baseline.from_results([]))
    mine = tmp_path / "elsewhere.json"
    dialect = TallyDialect(takes_baseline=True)
    with added_dialect(dialect):
        proc, doc = invoke_json("run", str(root), "--no-history", "--baseline", str(mine))
    assert proc.returncode == 0, proc.stderr
    assert dialect.asked[-1].baseline == mine
    assert doc["baseline"]["path"] == str(kept)  # the other results are compared with [baseline]'s file


def test_without_a_gate_taking_it_the_baseline_flag_names_the_generic_baseline(tally: TallyDialect,
                                                                              tmp_path: Path) -> None:
    root = tally_project(tmp_path / "project", {"yes": "yes", "also": "also"})
    write_baseline(root / "workbench-baseline.json", Baseline.from_results([]))
    mine = tmp_path / "elsewhere.json"
    write_baseline(mine, Baseline.from_results([]))
    proc, doc = invoke_json("run", str(root), "--no-history", "--baseline", str(mine))
    assert proc.returncode == 0, proc.stderr
    assert tally.asked[-1].baseline == mine and doc["baseline"]["path"] == str(mine)
