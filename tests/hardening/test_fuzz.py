"""Fuzzing with Hypothesis: whatever bytes or JSON-ish documents the eval files hold, loading gives a Project
(with problems) and running it gives one verdict per planned result; whatever two values are compared, and
however an evaluator is configured, scoring gives a verdict. Never an exception."""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from helpers.hardening import FixedRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workbench import jsonio
from workbench.compare import differences, explain, strict_equal
from workbench.config import Config
from workbench.engine import Engine
from workbench.events import Trigger
from workbench.model import EvaluatorDef, Project, Verdict
from workbench.project import load_project
from workbench.runners.base import RunOutcome
from workbench.scoring import scorer_for, supported_types
from workbench.scoring.exact_match import compare_selected

pytestmark = pytest.mark.hardening

FUZZ = settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))

VOCABULARY = ["evaluations", "evaluatorRefs", "inputs", "evaluationCriterias", "expectedOutput", "id", "name",
              "version", "evaluatorTypeId", "evaluatorConfig", "targetOutputKey", "defaultEvaluationCriteria",
              "exact", "other", "searchText", "expectedClass", "toolCallsOrder", "checks", "path", "equals", ""]
REFS = ["exact", "other", "missing", "../exact", ""]
TYPES = [*supported_types(), "uipath-unknown", "", 7]

scalars = st.one_of(st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70),
                    st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=6),
                    st.sampled_from(REFS + TYPES + ["*", "a.b", "result"]))
keys = st.one_of(st.sampled_from(VOCABULARY), st.text(max_size=4))
json_values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                            st.dictionaries(keys, inner, max_size=5)),
                           max_leaves=30)


@st.composite
def set_documents(draw: st.DrawFn) -> Any:
    """Mostly eval-set shaped, with any part swapped for something of the wrong type."""
    row = st.fixed_dictionaries({}, optional={
        "id": json_values, "name": json_values, "inputs": json_values,
        "evaluationCriterias": st.one_of(json_values, st.dictionaries(st.sampled_from(REFS), json_values)),
    })
    doc = draw(st.fixed_dictionaries({}, optional={
        "evaluations": st.one_of(st.lists(st.one_of(row, json_values), max_size=5), json_values),
        "evaluatorRefs": st.one_of(st.lists(st.sampled_from(REFS), max_size=3), json_values),
        "id": json_values, "name": json_values,
    }))
    return draw(st.one_of(st.just(doc), json_values)) if draw(st.integers(0, 9)) == 0 else doc


evaluator_documents = st.one_of(
    st.fixed_dictionaries({}, optional={
        "evaluatorTypeId": st.sampled_from(TYPES), "id": json_values, "name": json_values,
        "evaluatorConfig": st.one_of(json_values, st.fixed_dictionaries({}, optional={
            "targetOutputKey": json_values, "defaultEvaluationCriteria": json_values, "passThreshold": json_values,
            "classes": json_values, "positiveClass": json_values, "strict": json_values}))}),
    json_values,
)


@pytest.fixture(scope="module")
def scratch() -> Iterator[Path]:
    folder = Path(tempfile.mkdtemp(prefix="workbench-fuzz-"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def write_project(root: Path, sets: dict[str, bytes], evaluators: dict[str, bytes]) -> None:
    shutil.rmtree(root, ignore_errors=True)
    for folder, files in (("eval-sets", sets), ("evaluators", evaluators)):
        path = root / "evals" / "default" / folder
        path.mkdir(parents=True)
        for name, data in files.items():
            (path / f"{name}.json").write_bytes(data)


def run_everything(root: Path) -> Project:
    """Load, then run every planned result with a target that echoes its inputs."""
    project = load_project(root)
    assert all(isinstance(p.message, str) and p.message for p in project.problems)
    config = Config(root=root)
    engine = Engine(config, lambda c: Echo(c))
    planned = sum(len(s.rows) * len(s.evaluator_refs) for s in project.sets)  # a result per row and evaluator
    report = asyncio.run(engine.run_iteration(Trigger("run"), project=project))
    assert len(report.results) == planned
    assert all(r.verdict in (Verdict.PASS, Verdict.FAIL, Verdict.ERROR) for r in report.results)
    return project


class Echo(FixedRunner):
    def __init__(self, config: Config) -> None:
        super().__init__(config, {})

    async def run(self, request: Any, on_log: Any = None) -> Any:
        outcome = await super().run(request, on_log)
        outcome.output = request.inputs.get("out", request.inputs)
        return outcome


def dump(value: Any) -> bytes:
    return jsonio.dumps(value).encode("utf-8", "surrogatepass")


@FUZZ
@given(st.binary(max_size=300), st.binary(max_size=300))
def test_random_bytes_in_eval_files_load_as_problems(scratch, set_bytes, evaluator_bytes):
    write_project(scratch, {"s": set_bytes}, {"exact": evaluator_bytes})
    project = run_everything(scratch)
    assert project.sets or any(p.file.endswith("s.json") for p in project.problems)


@FUZZ
@given(st.binary(max_size=200), set_documents())
def test_almost_json_loads_as_problems(scratch, noise, document):
    """A valid document with random bytes spliced in, as a half-finished save or a bad merge leaves it."""
    text = dump(document)
    cut = len(noise) % (len(text) + 1)
    write_project(scratch, {"s": text[:cut] + noise + text[cut:]}, {"exact": dump({"evaluatorTypeId": "x"})})
    run_everything(scratch)


@FUZZ
@given(set_documents(), set_documents(), evaluator_documents, evaluator_documents)
def test_json_ish_documents_load_with_problems_and_every_planned_result_gets_a_verdict(scratch, one, two, exact,
                                                                                         other):
    write_project(scratch, {"one": dump(one), "two": dump(two)}, {"exact": dump(exact), "other": dump(other)})
    project = run_everything(scratch)
    for eval_set in project.sets:
        assert isinstance(eval_set.evaluator_refs, list)
        assert all(isinstance(r.inputs, dict) and isinstance(r.criteria, dict) for r in eval_set.rows)
        assert len({r.id for r in eval_set.rows}) == len(eval_set.rows)  # ids are unique after the loader


# -- the comparator and the scorers --------------------------------------------------------------------------

numbers = st.one_of(st.integers(), st.floats(allow_nan=False, allow_infinity=False),
                    st.sampled_from([Decimal("1e400"), Decimal("-1e400"), 2**64, 85, 85.0, 0, -0.0, True, False]))
values = st.recursive(st.one_of(scalars, numbers), lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.sampled_from(["a", "A", "b", "result", ""]), inner, max_size=4)),
    max_leaves=25)


def nested(value: Any, depth: int) -> Any:
    for _ in range(depth):
        value = {"k": [value]}
    return value


@FUZZ
@given(values, values, st.integers(0, 3), st.one_of(st.none(), st.sampled_from(["*", "", "a", "a.b", "result"]),
                                                     st.lists(st.sampled_from(["a", "b", "*", "a.A"]), max_size=3)))
def test_the_comparator_always_answers_and_explains_exactly_when_it_fails(actual, expected, depth_power, target):
    depth = (0, 10, 300, 3000)[depth_power]
    actual, expected = nested(actual, depth), nested(expected, depth)
    equal = strict_equal(actual, expected)
    assert isinstance(equal, bool)
    assert strict_equal(actual, actual)
    assert (differences(actual, expected) == []) is equal
    assert all(isinstance(line, str) for line in explain(actual, expected))
    score = compare_selected(actual, expected, target)
    assert score.verdict in (Verdict.PASS, Verdict.FAIL)


@FUZZ
@given(st.sampled_from([*supported_types(), "uipath-unknown"]), values, values, values,
       st.lists(st.dictionaries(st.sampled_from(["type", "name", "args", "output", "tokens"]), values,
                                max_size=4), max_size=4))
def test_every_evaluator_type_gives_a_verdict_for_anything(type_id, config, criterion, output, trace):
    evaluator = EvaluatorDef("default", "ev", Path("ev.json"), None, None, type_id,
                             config if isinstance(config, dict) else {"targetOutputKey": config}, {})
    scorer = scorer_for(type_id)
    if scorer is None or scorer.check_config(evaluator):
        return  # planning turns these into an ERROR before scoring (the loader fuzz above covers that)
    criterion = criterion if isinstance(criterion, dict) else {"expectedOutput": criterion}
    wrapped = output if isinstance(output, dict) else {"result": output}
    engine = Engine(Config(root=Path(".")))
    score = asyncio.run(engine.score(evaluator, criterion, wrapped, RunOutcome(output=output, trace=trace)))
    assert score.verdict in (Verdict.PASS, Verdict.FAIL, Verdict.ERROR)
    assert 0.0 <= score.score <= 1.0 and isinstance(score.detail, str)
