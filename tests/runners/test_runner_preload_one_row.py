"""An iteration of one row runs it as a fresh process, not forked from a warm parent (which would cost an
interpreter start-up and the script's imports more than the row alone): the engine tells a runner it does
not keep how many rows it will run (`Runner.expect_rows`), and `PreloadRunner` starts no parent for one.
The row's outcome is a fresh process's, with nothing said in its log (it is not a fallback)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import ClassVar

from helpers.ordering import NAMES, project

from workbench.config import Config, RunnerConfig
from workbench.engine import Engine
from workbench.events import Trigger, TriggerKind
from workbench.rescoring import RowFilter
from workbench.runners import RunRequest, make_runner
from workbench.runners.base import Runner
from workbench.runners.preload import PreloadRunner

TARGET = "import json, sys\nprint(json.dumps({'y': json.load(sys.stdin)['x'] + 1}))\n"


def _config(root: Path) -> Config:
    (root / "target.py").write_text(TARGET)
    return Config(root=root, runner=RunnerConfig(kind="command", command=[sys.executable, "target.py"], timeout=30))


def _serve(config: Config, expected: int | None, rows: int) -> tuple[list[object], list[str], bool]:
    async def go() -> tuple[list[object], list[str], bool]:
        runner = make_runner(config)
        assert isinstance(runner, PreloadRunner)
        if expected is not None:
            runner.expect_rows(expected)
        logs: list[str] = []
        outputs, forked = [], False
        try:
            for number in range(rows):
                outcome = await runner.run(RunRequest({"x": number}, f"r{number}", "r", "set.json", "default"),
                                           logs.append)
                assert outcome.error is None, outcome.error
                outputs.append(outcome.output)
                forked = forked or runner.warm_parent is not None
        finally:
            await runner.aclose()
        return outputs, logs, forked

    return asyncio.run(go())


def test_one_row_runs_as_a_fresh_process_and_says_nothing(tmp_path: Path):
    outputs, logs, forked = _serve(_config(tmp_path), 1, 1)
    assert outputs == [{"y": 1}]
    assert not forked
    assert not any("preload" in line for line in logs)


def test_more_rows_or_no_hint_fork_from_the_warm_parent(tmp_path: Path):
    config = _config(tmp_path)
    assert _serve(config, 2, 2)[2]
    assert _serve(config, None, 1)[2]  # a runner told nothing (a kept one) keeps the warm parent


class _Told(PreloadRunner):
    told: ClassVar[list[int]] = []

    def expect_rows(self, rows: int) -> None:
        _Told.told.append(rows)
        super().expect_rows(rows)


def _told(config: Config, selection: RowFilter | None, *, keep: bool) -> list[int]:
    _Told.told = []
    runner = make_runner(config)
    assert isinstance(runner, PreloadRunner)

    def factory(cfg: Config) -> Runner:
        return _Told(cfg, runner.plan)

    engine = Engine(config, runner_factory=factory)
    engine.keep_runners = keep

    async def go() -> None:
        report = await engine.run_iteration(Trigger(TriggerKind.RUN), selection)
        assert all(result.passed for result in report.results), [r.detail for r in report.results]
        await engine.aclose()  # the kept runner, closed as a session would

    asyncio.run(go())
    return _Told.told


def test_the_engine_tells_the_rows_it_will_run_unless_it_keeps_the_runner(tmp_path: Path):
    root, _log = project(tmp_path, "command", set())
    config = Config(root=root, runner=RunnerConfig(kind="command", command=[sys.executable, "command.py"],
                                                   timeout=30, concurrency=1))
    assert _told(config, None, keep=False) == [len(NAMES)]
    assert _told(config, RowFilter(rows=("a",)), keep=False) == [1]
    assert _told(config, None, keep=True) == []
