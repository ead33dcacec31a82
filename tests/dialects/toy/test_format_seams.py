"""The three things a format may decide for its own rows that the engine used to decide for all (issue 26):
its own scorer of an evaluator type id the core also has (`scoring.scorer_of`: the same `evaluatorTypeId`
under another format's rules), which criterion an evaluator scores a row with — or that it scores the row not
at all (`Dialect.criterion_for`) — and the `[runner]` a project of it gets when its settings leave that open
(`RUNNER_DEFAULTS` in the format's settings module, applied by `config.load_config`).

The toy format: `*.shout.json` files at the project root, `{"rows": [{"q": "hi", "want": {...} | absent}]}`;
the target echoes the question, and the evaluator is of type `uipath-exact-match` — scored here by the toy's
own case-blind scorer, never by the core's strict one."""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest
from helpers.cli import invoke_json
from helpers.paths import EXAMPLES

from workbench import config as config_module
from workbench.config import Config, load_config
from workbench.dialects import added_dialect
from workbench.dialects.base import UNREADABLE, Dialect, LoadContext, Words
from workbench.model import EvalSet, EvaluatorDef, Row
from workbench.scoring import SCORERS, accepted_types, scorer_for, scorer_of, unsupported_message
from workbench.scoring.base import Score, ScoreInput, Scorer
from workbench.settings.discovery import DeclaredSettings, declared
from workbench.settings.sections import RunnerConfig

SCOPE = "shouts"
REF = "same"
SHARED_TYPE = "uipath-exact-match"  # a core type id, with other rules in this format

ECHO = """\
import json, sys
print(json.dumps({"a": json.load(sys.stdin)["q"]}))
"""


class CaseBlindScorer(Scorer):
    """The toy's rules for the shared type id: equal when equal ignoring case."""

    type_id: ClassVar[str] = SHARED_TYPE

    def score(self, data: ScoreInput) -> Score:
        answer, want = str(data.output.get("a")), str(data.criterion.get("a"))
        if answer.lower() == want.lower():
            return Score.passed(f"case-blind equal: {answer!r}")
        return Score.failed(f"{answer!r} is not {want!r}", expected=want)


class ShoutDialect(Dialect):
    """Rows in `<name>.shout.json`; a row without `want` is not scored by the evaluator (no result)."""

    name = "toy-shout"
    title = "shouts"
    words = Words(expects="*.shout.json")

    def scorers(self) -> tuple[Scorer, ...]:
        return (CaseBlindScorer(),)

    def criterion_for(self, row: Row, ref: str, evaluator: EvaluatorDef, scorer: Scorer) -> dict[str, Any] | str | None:
        if ref not in row.criteria:
            return None
        criterion = row.criteria[ref]
        return criterion if isinstance(criterion, dict) else f"the criterion of {ref!r} must be an object"

    def present(self, root: Path, config: Config | None) -> bool:
        return any(root.glob("*.shout.json"))

    def load(self, ctx: LoadContext) -> None:
        for path in sorted(ctx.root.glob("*.shout.json")):
            doc = ctx.read_json(path)
            if doc is UNREADABLE:
                continue
            rows = [Row(id=f"r{index + 1}", name=str(entry["q"]), inputs={"q": entry["q"]},
                        criteria={REF: {"a": entry["want"]}} if "want" in entry else {}, index=index, raw=entry)
                    for index, entry in enumerate(doc["rows"])]
            ctx.project.sets.append(EvalSet(scope=SCOPE, path=path, id=None, name=path.name, evaluator_refs=[REF],
                                            rows=rows, dialect=self.name, short_name=path.name.split(".")[0]))
        ctx.project.evaluators[(SCOPE, REF)] = EvaluatorDef(scope=SCOPE, ref=REF, path=ctx.root, id=None, name=REF,
                                                           type_id=SHARED_TYPE, config={}, raw={}, dialect=self.name)


@pytest.fixture
def shout() -> Iterator[ShoutDialect]:
    with added_dialect(ShoutDialect()) as dialect:
        yield dialect


def shout_project(root: Path) -> Path:
    root.mkdir()
    (root / "echo.py").write_text(ECHO, encoding="utf-8")
    (root / "workbench.toml").write_text(f'[runner]\nkind = "command"\ncommand = [{json.dumps(sys.executable)}, '
                                         '"echo.py"]\ntimeout = 30\n', encoding="utf-8")
    rows = [{"q": "Hi", "want": "HI"}, {"q": "bye", "want": "hello"}, {"q": "unscored"}]
    (root / "greetings.shout.json").write_text(json.dumps({"rows": rows}), encoding="utf-8")
    return root


def test_a_formats_own_scorer_of_a_core_type_id_serves_only_its_evaluators(shout: ShoutDialect) -> None:
    core = SCORERS[SHARED_TYPE]
    assert scorer_for(SHARED_TYPE) is core
    assert isinstance(scorer_for(SHARED_TYPE, "toy-shout"), CaseBlindScorer)
    assert scorer_for(SHARED_TYPE, "uipath") is core  # a format without one of its own gets the core's
    mine = EvaluatorDef(scope=SCOPE, ref=REF, path=Path("."), id=None, name=None, type_id=SHARED_TYPE, config={},
                        raw={}, dialect="toy-shout")
    theirs = EvaluatorDef(scope="s", ref="e", path=Path("."), id=None, name=None, type_id=SHARED_TYPE, config={},
                          raw={})
    assert isinstance(scorer_of(mine), CaseBlindScorer)
    assert scorer_of(theirs) is core


def test_run_scores_with_the_formats_rules_and_skips_what_it_says_is_not_scored(shout: ShoutDialect,
                                                                              tmp_path: Path) -> None:
    root = shout_project(tmp_path / "project")
    proc, doc = invoke_json("run", str(root))
    assert proc.returncode == 1, proc.stderr
    verdicts = {r["row_id"]: r["verdict"] for r in doc["results"]}
    # "Hi" against "HI" passes by the toy's case-blind rule (the core's exact match would fail it); the row
    # without `want` has no result at all (not an ERROR, not a row that ran)
    assert verdicts == {"r1": "PASS", "r2": "FAIL"}, doc["results"]


def test_a_formats_runner_defaults_fill_the_runner_the_settings_leave_open(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[Path] = []

    def runner_defaults(root: Path, config: Config) -> RunnerConfig | None:
        asked.append(root)
        if config.runner.kind is not None or not (root / "agent.marker").exists():
            return None
        return config.runner.model_copy(update={"kind": "worker", "command": [sys.executable, "serve.py"]})

    found = declared()
    monkeypatch.setattr(config_module, "declared",
                        lambda: DeclaredSettings(found.sections, found.options, (runner_defaults,)))
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "workbench.toml").write_text("[runner]\ntimeout = 7\n", encoding="utf-8")
    assert load_config(plain).runner.kind is None and asked == [plain.resolve()]
    (plain / "agent.marker").write_text("", encoding="utf-8")
    runner = load_config(plain).runner
    assert (runner.kind, runner.command, runner.timeout) == ("worker", [sys.executable, "serve.py"], 7.0)
    (plain / "workbench.toml").write_text('[runner]\nkind = "command"\ncommand = ["x"]\n', encoding="utf-8")
    assert load_config(plain).runner.kind == "command"  # what the settings say stays theirs


# -- an evaluator type a format does not score: its own types listed, and its own words --------------------------

OTHER_FORMATS_TYPES = ("workbench-conversation", "workbench-replay-expect", "workbench-scenario-expect")
WHISPER = "shout-whisper"


class WhisperingShouts(ShoutDialect):
    """The toy, whose evaluator names a type it knows but can't score, and says why in its own words."""

    def load(self, ctx: LoadContext) -> None:
        super().load(ctx)
        evaluator = ctx.project.evaluators[(SCOPE, REF)]
        ctx.project.evaluators[(SCOPE, REF)] = EvaluatorDef(
            scope=SCOPE, ref=REF, path=evaluator.path, id=None, name=REF, type_id=WHISPER, config={}, raw={},
            dialect=self.name)

    words = Words(expects="*.shout.json",  # its own words for a type it knows but can't score
                  unsupported_type=lambda type_id: "whispers are scored by ear, not by workbench"
                  if type_id == WHISPER else None)


def test_an_unknown_type_lists_only_the_types_its_format_accepts(shout: ShoutDialect) -> None:
    message = unsupported_message("acme-nope", "toy-shout")
    assert message == f"unsupported evaluator type 'acme-nope'; supported types: {', '.join(sorted(SCORERS))}"
    assert not any(other in message for other in OTHER_FORMATS_TYPES)
    assert accepted_types("toy-shout") == sorted(SCORERS)  # its one scorer has a core type id
    assert set(OTHER_FORMATS_TYPES) <= set(accepted_types())  # a format not known: every format's
    # and what it lists is what it scores: another format's own type is not scored for its evaluators
    assert scorer_for("workbench-conversation") is not None
    assert scorer_for("workbench-conversation", "toy-shout") is None


def test_a_format_says_in_its_words_why_it_cant_score_a_type_it_knows(tmp_path: Path) -> None:
    with added_dialect(WhisperingShouts()):
        root = shout_project(tmp_path / "project")
        proc, doc = invoke_json("run", str(root))
    assert proc.returncode == 1, proc.stderr
    details = {r["detail"] for r in doc["results"]}
    assert details == {f"unsupported evaluator type {WHISPER!r}: whispers are scored by ear, not by workbench; "
                       f"supported types: {', '.join(sorted(SCORERS))}"}, details


def test_a_uipath_evaluator_of_an_unknown_type_is_not_told_other_formats_internal_types(tmp_path: Path) -> None:
    root = tmp_path / "grading"
    shutil.copytree(EXAMPLES / "grading", root, ignore=shutil.ignore_patterns(".workbench", "__pycache__"))
    evaluator_file = root / "evals/default/evaluators/grade-only.json"
    doc = json.loads(evaluator_file.read_text(encoding="utf-8"))
    evaluator_file.write_text(json.dumps({**doc, "evaluatorTypeId": "acme-nope"}), encoding="utf-8")
    proc, run = invoke_json("run", str(root))
    assert proc.returncode == 1
    (detail,) = {r["detail"] for r in run["results"] if r["evaluator"] == "grade-only"}
    assert detail == f"unsupported evaluator type 'acme-nope'; supported types: {', '.join(sorted(SCORERS))}"
