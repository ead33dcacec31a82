"""The TUI's detail for coded agent rows (`CodedAgentView`): the picked evaluator's id, type, score and the
scorer's justification; for an output evaluator the expected value beside the actual one at its
targetOutputKey; for a tool-call evaluator the expected order beside the calls recorded from the spans (name,
arguments, output) in the order they ended; every evaluator of the row with its score. The target is a fake
runner answering as the starter agent would, with the spans `uipath.tracing.traced` records, so every screen
is fixed (and needs no SDK)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers.tui import (
    pinned_clock,
    screen_text,
    selected_id,
    settle,
    shown_rows,
    static_text,
    status_text,
    wait_idle,
)
from textual.pilot import Pilot

from workbench.config import Config, load_config
from workbench.runners.base import LogSink, Runner, RunOutcome, RunRequest
from workbench.tui.app import WorkbenchApp, make_app
from workbench.tui.detail_views import view_for
from workbench.tui.detail_views.uipath_coded import CodedAgentView

CAPITALS = {"France": "Paris", "Japan": "Tokyo", "Kenya": "Nairobi"}
SMALL, LARGE = (80, 24), (160, 48)


def _span(name: str, args: dict[str, Any], output: Any) -> dict[str, Any]:
    """A trace event as the coded child writes it for a span of `@traced(span_type="tool")`."""
    attributes = {"span_type": "TOOL", "openinference.span.kind": "TOOL", "tool.name": name,
                  "input.value": json.dumps(args), "output.value": json.dumps(output)}
    return {"type": "tool_call", "name": name, "args": args, "output": output,
            "span": {"name": name, "attributes": attributes, "start_ns": 1, "end_ns": 2, "status": "OK"}}


def agent(inputs: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The starter agent: look the capital up, then write the answer — or, told to hurry, the other way."""
    country = inputs["country"]
    capital = CAPITALS[country]
    if inputs.get("hurry"):
        answer = f"The capital of {country} is ?."
        return {"capital": capital, "answer": answer}, [
            _span("write_answer", {"country": country, "capital": "?"}, answer),
            _span("find_capital", {"country": country}, capital)]
    answer = f"The capital of {country} is {capital}."
    return {"capital": capital, "answer": answer}, [
        _span("find_capital", {"country": country}, capital),
        _span("write_answer", {"country": country, "capital": capital}, answer)]


class AgentRunner(Runner):
    """Runs `agent` in-process: the output and the spans of a real run, a fixed duration."""

    async def run(self, request: RunRequest, on_log: LogSink | None = None) -> RunOutcome:
        if request.inputs["country"] not in CAPITALS:
            return RunOutcome(error="ImportError: main.py needs the uipath package", duration_ms=12.0)
        output, trace = agent(request.inputs)
        return RunOutcome(output=output, duration_ms=12.0, trace=trace)


def _evaluator(ident: str, type_id: str, **config: Any) -> dict[str, Any]:
    return {"version": "1.0", "id": ident, "name": ident, "evaluatorTypeId": type_id,
            "evaluatorConfig": {"name": ident, **config}}


def _row(ident: str, country: str, capital: str, **more: Any) -> dict[str, Any]:
    expected = {"capital": capital, "answer": f"The capital of {country} is {capital}."}
    return {"id": ident, "name": ident, "inputs": {"country": country, **more.pop("inputs", {})},
            "expectedOutput": expected,
            "evaluationCriterias": {"ExactMatch": {"expectedOutput": {"capital": capital}}, "ToolCallOrder": None,
                                    "JsonSim": None, **more}}


def write_project(root: Path) -> Config:
    evaluators = {
        "exact-match.json": _evaluator("ExactMatch", "uipath-exact-match", targetOutputKey="capital"),
        "tool-call-order.json": _evaluator("ToolCallOrder", "uipath-tool-call-order", strict=False,
                                           defaultEvaluationCriteria={"toolCallsOrder": ["find_capital",
                                                                                         "write_answer"]}),
        "json-sim.json": _evaluator("JsonSim", "uipath-json-similarity"),
    }
    folder = root / "evaluations" / "evaluators"
    folder.mkdir(parents=True)
    for name, doc in evaluators.items():
        (folder / name).write_text(json.dumps(doc, indent=2), encoding="utf-8")
    rows = [_row("paris", "France", "Paris"), _row("kyoto", "Japan", "Kyoto"),
            _row("hurried", "Kenya", "Nairobi", inputs={"hurry": True})]
    doc = {"version": "1.0", "id": "default", "name": "Default", "evaluatorRefs": ["ExactMatch", "ToolCallOrder",
                                                                                    "JsonSim"], "evaluations": rows}
    (root / "evaluations" / "eval-sets").mkdir()
    (root / "evaluations" / "eval-sets" / "default.json").write_text(json.dumps(doc, indent=2), encoding="utf-8")
    (root / "uipath.json").write_text('{"functions": {"main": "main.py:main"}}', encoding="utf-8")
    (root / "main.py").write_text("def main(input):\n    return {}\n", encoding="utf-8")
    return load_config(root)


def app_on(config: Config) -> WorkbenchApp:
    return pinned_clock(make_app(config, watch=False, record=False, runner_factory=AgentRunner))


@pytest.fixture
def config(tmp_path: Path) -> Config:
    return write_project(tmp_path / "capitals")


async def _show(app: WorkbenchApp, pilot: Pilot[Any], row_id: str, ref: str) -> None:
    """After the first iteration, the row `row_id` selected in the tree and the evaluator `ref` picked."""
    await wait_idle(app, pilot)
    await pilot.press(*["k"] * 5)
    for _ in range(6):
        if selected_id(app) == row_id:
            break
        await pilot.press("j")
    await settle(pilot)
    assert selected_id(app) == row_id
    assert isinstance(app.main.detail.view, CodedAgentView)
    await pilot.press("enter")
    for _ in range(3):
        if app.main.detail.current_ref == ref:
            break
        await pilot.press("right")
    await settle(pilot)
    assert app.main.detail.current_ref == ref


def test_the_format_names_this_view() -> None:
    assert view_for("uipath-coded") is CodedAgentView


async def test_an_output_evaluator_shows_expected_beside_actual_at_its_key(config: Config) -> None:
    app = app_on(config)
    async with app.run_test(size=LARGE) as pilot:
        await _show(app, pilot, "kyoto", "ExactMatch")
        meta = static_text(app, "#detail-meta")
        assert "✘ FAIL  ExactMatch · score 0\nuipath-exact-match · not case-sensitive · 12ms" in meta
        assert "'Tokyo', expected 'Kyoto'" in static_text(app, "#detail-explanation")
        assert static_text(app, "#coded-expected-title") == "Expected (capital)"
        assert static_text(app, "#coded-actual-title") == "Actual (capital)"
        assert (static_text(app, "#detail-expected"), static_text(app, "#detail-actual")) == ('"Kyoto"', '"Tokyo"')
        tools = static_text(app, "#coded-tools")
        assert 'Tool calls recorded (2)\n  1. find_capital(country="Japan")\n     → "Tokyo"' in tools
        evaluators = static_text(app, "#coded-evaluators")
        assert "✘ ExactMatch  0" in evaluators and "✔ ToolCallOrder  1" in evaluators


async def test_a_tool_call_evaluator_shows_the_expected_order_and_the_calls_as_they_ended(config: Config) -> None:
    app = app_on(config)
    async with app.run_test(size=LARGE) as pilot:
        await _show(app, pilot, "hurried", "ToolCallOrder")
        assert "✘ FAIL  ToolCallOrder · score 0.5" in static_text(app, "#detail-meta")
        assert "LCS" in static_text(app, "#detail-explanation")
        assert not app.query_one("#detail-sides").display, "no expected | actual for a tool-call evaluator"
        tools = static_text(app, "#coded-tools")
        assert tools.startswith("Expected order\n  find_capital → write_answer\n")
        assert ('  1. write_answer(country="Kenya", capital="?")\n     → "The capital of Kenya is ?."\n'
                '  2. find_capital(country="Kenya")\n     → "Nairobi"') in tools


async def test_a_graded_evaluator_shows_its_score_and_the_threshold_it_missed(config: Config) -> None:
    app = app_on(config)
    async with app.run_test(size=LARGE) as pilot:
        await _show(app, pilot, "hurried", "JsonSim")
        assert "✘ FAIL  JsonSim · score 0.8" in static_text(app, "#detail-meta")
        why = static_text(app, "#detail-explanation")
        assert "< threshold 1" in why and "leaves" in why
        assert static_text(app, "#coded-expected-title") == "Expected (the whole output)"
        assert '"The capital of Kenya is Nairobi."' in static_text(app, "#detail-expected"), (
            "the row's own expectedOutput, which a null criterion of an output evaluator is scored against")


async def test_it_reads_at_80x24(config: Config) -> None:
    app = app_on(config)
    async with app.run_test(size=SMALL) as pilot:
        await _show(app, pilot, "hurried", "ToolCallOrder")
        screen = screen_text(app)
        assert "✘ FAIL  ToolCallOrder · score 0.5" in screen
        assert "uipath-tool-call-order" in screen


async def test_a_row_that_did_not_run_says_why_and_shows_no_score(tmp_path: Path) -> None:
    config = write_project(tmp_path / "capitals")
    path = config.root / "evaluations" / "eval-sets" / "default.json"
    path.write_text(path.read_text(encoding="utf-8").replace('"Japan"', '"Atlantis"'), encoding="utf-8")
    app = app_on(load_config(config.root))
    async with app.run_test(size=LARGE) as pilot:
        await _show(app, pilot, "kyoto", "ExactMatch")
        meta = static_text(app, "#detail-meta")
        assert meta.startswith("! ERROR  ExactMatch\n") and "score" not in meta
        assert static_text(app, "#detail-explanation") == "Error\nImportError: main.py needs the uipath package"
        assert static_text(app, "#detail-actual") == "(no output)"
        assert static_text(app, "#coded-tools") == "Tool calls: none (the row did not run)"


def test_snapshot_of_a_tool_call_failure_at_80x24(config: Config, snap_compare: Any) -> None:
    app = app_on(config)

    async def run_before(pilot: Pilot[Any]) -> None:
        await _show(app, pilot, "hurried", "ToolCallOrder")
        app.clear_notifications()
        await pilot.pause()

    assert snap_compare(app, terminal_size=SMALL, run_before=run_before)


async def test_a_row_an_evaluator_skips_passes_on_the_others(tmp_path: Path) -> None:
    """The SDK scores a row only by the evaluators its evaluationCriterias names: a row without a JsonSim key
    has no JsonSim result, and passes when the others do: the row's label and its detail's tabs name only the
    evaluators that score it, and the status line counts it as passing."""
    config = write_project(tmp_path / "capitals")
    path = config.root / "evaluations" / "eval-sets" / "default.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["evaluations"] = [doc["evaluations"][0]]
    del doc["evaluations"][0]["evaluationCriterias"]["JsonSim"]
    path.write_text(json.dumps(doc), encoding="utf-8")
    app = app_on(load_config(config.root))
    async with app.run_test(size=LARGE) as pilot:
        await wait_idle(app, pilot)
        await settle(pilot)
        assert shown_rows(app)["paris"].startswith("✔")
        assert "JsonSim" not in shown_rows(app)["paris"]
        assert "1/1 rows pass" in status_text(app)
        await _show(app, pilot, "paris", "ToolCallOrder")
        assert app.main.detail.refs == ["ExactMatch", "ToolCallOrder"]
        assert app.main.detail.current_ref == "ToolCallOrder"


async def test_a_row_edited_to_name_a_failing_evaluator_opens_on_it_and_its_mark_shows(tmp_path: Path) -> None:
    """The row shown while its file gains a JsonSim criterion it fails (its 3rd evaluator): when it runs again
    the detail opens on JsonSim with a tab for it (it kept the row as first read, scored by ExactMatch and
    ToolCallOrder alone, and opened on the passing ExactMatch); the evaluators tab names the files the ids
    live in; the sets pane keeps the JsonSim ✘ on screen at 160 and at 80 columns."""
    config = write_project(tmp_path / "capitals")
    path = config.root / "evaluations" / "eval-sets" / "default.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["evaluations"] = [doc["evaluations"][0]]
    first = doc["evaluations"][0]
    first["name"] = "the capital of France is Paris, and this row's name goes on long enough to be cut"
    del first["evaluationCriterias"]["JsonSim"]
    path.write_text(json.dumps(doc), encoding="utf-8")
    app = app_on(load_config(config.root))
    async with app.run_test(size=LARGE) as pilot:
        await wait_idle(app, pilot)
        await settle(pilot)
        detail = app.main.detail
        assert (detail.refs, detail.current_ref) == (["ExactMatch", "ToolCallOrder"], "ExactMatch")
        first["evaluationCriterias"]["JsonSim"] = {"expectedOutput": {"capital": "Paris", "answer": "Lyon"}}
        path.write_text(json.dumps(doc), encoding="utf-8")
        done = app.main.iterations_done
        await pilot.press("r")
        await wait_idle(app, pilot, done + 1)
        await settle(pilot)
        assert detail.refs == ["ExactMatch", "ToolCallOrder", "JsonSim"]
        assert detail.current_ref == "JsonSim"
        assert "✘ FAIL  JsonSim" in static_text(app, "#detail-meta")
        assert "evaluations/eval-sets/default.json · id paris" in static_text(app, "#detail-title")
        await pilot.press("3")
        await settle(pilot)
        files = [line.split()[0] for line in screen_text(app).splitlines() if ".json" in line and "evaluations" in line]
        assert {"exact-match.json", "json-sim.json", "tool-call-order.json"} <= set(files), files
        for size in (LARGE, SMALL):
            await pilot.resize_terminal(*size)
            await settle(pilot)
            shown = shown_rows(app)["paris"]
            assert shown.startswith("✘ the capital of France") and "JsonSim ✘" in shown
            line = next(line for line in screen_text(app).splitlines() if "─ ✘ the capital of Fr" in line)
            assert line.split("│")[1].rstrip().endswith("✘"), line  # the row's JsonSim mark, on screen


async def test_a_failing_row_opens_at_its_first_difference_at_80x24(tmp_path: Path) -> None:
    """As the default view does (docs/tui.md): the expectation's first differing line is in view when a failing row
    opens, every time it is opened; a passing row opens at its top."""
    config = write_project(tmp_path / "capitals")
    path = config.root / "evaluations" / "eval-sets" / "default.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    filler = {f"note{n:02}": n for n in range(30)}  # the difference far below the pane's first screen
    doc["evaluations"][1]["evaluationCriterias"]["ExactMatch"] = {"expectedOutput": {**filler, "capital": "Kyoto"}}
    path.write_text(json.dumps(doc), encoding="utf-8")
    (config.root / "evaluations" / "evaluators" / "exact-match.json").write_text(json.dumps(
        _evaluator("ExactMatch", "uipath-exact-match")), encoding="utf-8")
    app = app_on(load_config(config.root))
    async with app.run_test(size=SMALL) as pilot:
        await _show(app, pilot, "kyoto", "ExactMatch")
        detail = app.main.detail
        opened_at = detail.scroll_y
        assert opened_at > 0, "the failing row opened at its top, above its first difference"
        await pilot.press("escape", "k")  # the row above passes: it opens at its top
        await settle(pilot)
        assert selected_id(app) == "paris" and detail.scroll_y == 0
        await pilot.press("j")
        await settle(pilot)
        assert selected_id(app) == "kyoto" and detail.scroll_y == opened_at
