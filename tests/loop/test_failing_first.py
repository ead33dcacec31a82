"""Issue 24, failing rows first: a re-run starts with the rows that did not pass last time (from history
for `run`, from the session's remembered verdicts in the loop), then the rest in file order — on every
runner kind and format; the results, the history and the reports keep file order.

The targets append each row's name to a log outside the project as they start it, so the order is the
one the target saw; concurrency 1 makes it exact."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers.cli import invoke_json
from helpers.conversations import ScriptedTarget, config_for, eval_doc, turn, write_evals
from helpers.ordering import NAMES, RUNNERS, config_of, order, project, run_and_record
from helpers.project import make_project, row
from helpers.replays import call, case, replay_project

from workbench.config import load_config
from workbench.engine import Engine, failing_first
from workbench.events import Event, IterationReport, RowStarted, Trigger, TriggerKind
from workbench.history import HistoryStore, last_row_verdicts
from workbench.session import Session


def names_of(report: IterationReport) -> list[str]:
    return [result.row_id for result in report.results]


@pytest.mark.parametrize("kind", list(RUNNERS))
def test_rows_that_failed_last_time_start_first(tmp_path: Path, kind: str) -> None:
    root, log = project(tmp_path, kind, failing={"c"})
    config = config_of(root, kind)
    first = run_and_record(config)
    assert order(log) == ["a", "b", "c", "d"]  # nothing known yet: file order
    assert {r.row_id: r.passed for r in first.results} == {"a": True, "b": True, "c": False, "d": True}

    second = run_and_record(config)
    assert order(log) == ["c", "a", "b", "d"]  # the failing row first, then the rest in file order
    assert names_of(second) == ["a", "b", "c", "d"]  # the results keep file order
    with HistoryStore.open(config) as store:
        assert [r.row_id for r in store.results(2)] == ["a", "b", "c", "d"]


def test_a_row_fixed_goes_back_to_its_place_and_a_new_failure_leads(tmp_path: Path) -> None:
    root, log = project(tmp_path, "command", failing={"d"})
    config = config_of(root, "command")
    run_and_record(config)
    order(log)
    project(tmp_path, "command", failing={"b"})  # d fixed, b broken
    run_and_record(config)
    assert order(log) == ["d", "a", "b", "c"]
    run_and_record(config)
    assert order(log) == ["b", "a", "c", "d"]


def test_new_rows_count_as_not_passing(tmp_path: Path) -> None:
    root, log = project(tmp_path, "command", failing=set())
    config = config_of(root, "command")
    run_and_record(config)
    order(log)
    with HistoryStore.open(config) as store:
        assert all(store.last_verdicts().values())
    assert last_row_verdicts(config)  # the read-only reader sees the same history
    rows = [row(name, {"name": name, "log": str(log)}, {"name": name}) for name in (*NAMES[:3], "new")]
    make_project(root, sets={"first": rows}, evaluators={}, config=None)
    run_and_record(config)
    assert order(log) == ["new", "a", "b", "c", "d"]


def test_run_json_and_junit_keep_file_order(tmp_path: Path) -> None:
    root, log = project(tmp_path, "command", failing={"c"})
    (root / "workbench.toml").write_text(f'[runner]\nkind = "command"\ncommand = [{json.dumps(sys.executable)}, '
                                         '"command.py"]\nconcurrency = 1\n', encoding="utf-8")
    invoke_json("run", str(root))
    order(log)
    junit = root.parent / "junit.xml"
    _, doc = invoke_json("run", str(root), "--junit", str(junit))
    assert order(log) == ["c", "a", "b", "d"]
    rows = [r["row_id"] for r in doc["results"]]
    assert rows == ["a", "b", "c", "d"]
    text = junit.read_text()
    assert [text.index(f'name="{name} [') for name in NAMES] == sorted(text.index(f'name="{name} [') for name in NAMES)


def test_the_session_remembers_verdicts_between_iterations(tmp_path: Path) -> None:
    root, log = project(tmp_path, "python", failing={"d"})
    (root / "workbench.toml").write_text('[runner]\nkind = "python"\ncallable = "agent:answer"\nconcurrency = 1\n',
                                         encoding="utf-8")
    started: list[str] = []

    def on_event(event: Event) -> None:
        if isinstance(event, RowStarted):
            started.append(event.key.row_id)

    async def main() -> None:
        session = Session(load_config(root), on_event=on_event)
        try:
            await session.iterate_now(Trigger(TriggerKind.START))
            await session.iterate_now(Trigger(TriggerKind.MANUAL))
        finally:
            await session.aclose()
        restarted = Session(load_config(root))  # a new session reads the verdicts from history
        try:
            assert restarted.verdicts[next(k for k in restarted.verdicts if k.row_id == "d")] is False
        finally:
            await restarted.aclose()

    asyncio.run(main())
    assert order(log) == ["a", "b", "c", "d", "d", "a", "b", "c"]
    assert started == ["a", "b", "c", "d", "d", "a", "b", "c"]


def started_order(engine: Engine, times: int = 2) -> list[list[str]]:
    """The rows' start order (RowStarted) in each of `times` iterations of one engine, remembering verdicts
    between them as the session does."""
    orders: list[list[str]] = []
    for _ in range(times):
        started: list[str] = []

        def on_event(event: Event, started: list[str] = started) -> None:
            if isinstance(event, RowStarted):
                started.append(event.key.row_id)

        report = asyncio.run(engine.run_iteration(Trigger(TriggerKind.MANUAL), on_event=on_event))
        verdicts: dict[Any, bool] = {}
        for result in report.results:
            verdicts[result.row_key] = verdicts.get(result.row_key, True) and result.passed
        engine.last_verdicts = verdicts
        assert len({r.row_key for r in report.results}) == len(started)
        orders.append(started)
    return orders


def test_conversations_start_failing_first(tmp_path: Path) -> None:
    write_evals(tmp_path, {"chats": [eval_doc(name, [turn(f"say {name}", response=[{"contains": name}])])
                                     for name in ("hello", "bye", "thanks")]})
    target = ScriptedTarget(lambda request: {"reply": "nope" if "bye" in request["user"] else request["user"]})
    engine = Engine(config_for(tmp_path, concurrency=1), target.factory)
    first, second = started_order(engine)
    assert first == ["hello", "bye", "thanks"]
    assert second == ["bye", "hello", "thanks"]


def test_replays_start_failing_first(tmp_path: Path) -> None:
    good = case(call("lookup_order", {"orderId": "A-0001"}, result={}), status="completed")
    bad = case(call("lookup_order", {"orderId": "A-0001"}, result={}), status="waiting")
    replay_project(tmp_path, {"a-one": good, "b-two": good, "c-three": bad})
    engine = Engine(load_config(tmp_path))
    first, second = started_order(engine)
    assert first == ["a-one", "b-two", "c-three"]
    assert second == ["c-three", "a-one", "b-two"]


def test_the_order_helper_keeps_file_order_without_verdicts() -> None:
    assert failing_first([], {}) == []
