"""Scenario (seed 000) fixtures: write `.appilots/scenarios/*.json`, `.appilotsrc`, and load or run them
in-process with a scripted agent instead of a target process.

    root = scenario_project(tmp_path, {"fills": scenario("fills", "My name is Jane", {"mode": "none"})})
    project = load(root, model="gpt-x")                     # Overrides as the command line sets them
    report = run_scenarios(root, lambda request: {"actions": [], "reply": "hi"})
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from helpers.project import write_file
from workbench.config import Overrides, load_config
from workbench.engine import Engine
from workbench.events import IterationReport, Trigger
from workbench.model import Project
from workbench.project import load_project
from workbench.runners.base import LogSink, Runner, RunOutcome, RunRequest

SCENARIOS = Path(".appilots") / "scenarios"
Agent = Callable[[dict[str, Any]], Any]


def scenario(name: str, when: str, expect: Any, **extra: Any) -> dict[str, Any]:
    return {"name": name, "when": when, "expect": expect, **extra}


def scenario_project(root: Path, scenarios: Mapping[str, Any], *, rc: Any = None, toml: str | None = None,
                     folder: Path = SCENARIOS) -> Path:
    """Scenario files by base name (a dict is written as JSON, str/bytes as they are), `.appilotsrc` and
    `workbench.toml` when given."""
    (root / folder).mkdir(parents=True, exist_ok=True)
    for stem, content in scenarios.items():
        write_file(root / folder / f"{stem}.json", content)
    if rc is not None:
        write_file(root / ".appilotsrc", rc)
    if toml is not None:
        write_file(root / "workbench.toml", toml)
    return root


def config_for(root: Path, *, model: str | None = None, scenarios_dir: str | None = None, **overrides: Any) -> Any:
    """The project's settings with these command-line overrides (`model`: --model, `scenarios_dir`: --dir)."""
    config = load_config(root)
    flags = {"scenarios.model": model, "scenarios.dir": scenarios_dir}
    config.overrides = Overrides(settings={k: v for k, v in flags.items() if v is not None}, **overrides)
    config.overrides.apply(config)
    return config


def load(root: Path, **overrides: Any) -> Project:
    return load_project(root, config_for(root, **overrides))


class ScriptedAgent(Runner):
    """A runner answering each request with `agent(inputs)` in-process (no target process)."""

    def __init__(self, config: Any, agent: Agent) -> None:
        super().__init__(config)
        self.agent = agent

    async def run(self, request: RunRequest, on_log: LogSink | None = None) -> RunOutcome:
        return RunOutcome(output=self.agent(request.inputs))


def run_scenarios(root: Path, agent: Agent, **overrides: Any) -> IterationReport:
    config = config_for(root, **overrides)
    engine = Engine(config, runner_factory=lambda cfg: ScriptedAgent(cfg, agent))
    return asyncio.run(engine.run_iteration(Trigger("run")))
