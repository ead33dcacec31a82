"""Helpers for the conversation tests: write `*.eval.json` files, play them through the real engine with an
in-process scripted target, and pick a result out of the report.

    root = write_evals(tmp_path, {"greeting": eval_doc("hi", [turn("Hi", response=[{"contains": "Hello"}])])})
    report = play(root, lambda request: {"reply": "Hello!"})
    assert result_of(report, "hi").verdict is Verdict.PASS

The scripted target is called with each turn's request dict (what a real target gets) and returns the
turn's answer, or raises to make the turn fail; `ScriptedTarget.requests` keeps every request seen.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from workbench.config import Config, JudgeConfig, RunnerConfig
from workbench.dialects.conversations.settings import ConversationsConfig
from workbench.engine import Engine
from workbench.events import IterationReport, Trigger
from workbench.model import Result
from workbench.rescoring import RowFilter
from workbench.runners.base import LogSink, Runner, RunOutcome, RunRequest

Answer = Callable[[dict[str, Any]], Any]


def turn(trigger: str | dict[str, Any], *, silence: bool = False, **assertions: Any) -> dict[str, Any]:
    """A turn: a user message (text) or an event (a dict payload), with assertions by category."""
    doc: dict[str, Any] = {"user": trigger} if isinstance(trigger, str) else {"event": {"payload": trigger}}
    if silence:
        doc["expectSilence"] = True
    if assertions:
        doc["assert"] = assertions
    return doc


def eval_doc(name: str, turns: list[dict[str, Any]], **fields: Any) -> dict[str, Any]:
    return {"name": name, "conversation": turns, **fields}


def write_evals(root: Path, files: dict[str, Any], *, folder: str = "evals") -> Path:
    """`files` maps a file name without `.eval.json` to its content (an object, a list, or raw text)."""
    base = root / folder
    base.mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        text = content if isinstance(content, str) else json.dumps(content, indent=2)
        (base / f"{name}.eval.json").write_text(text, encoding="utf-8")
    return root


class ScriptedTarget:
    """A target answering each turn in-process; one instance serves every runner the engine asks for."""

    def __init__(self, answer: Answer) -> None:
        self.answer = answer
        self.requests: list[dict[str, Any]] = []
        self.timeouts: list[float | None] = []

    def factory(self, config: Config) -> Runner:
        return _ScriptedRunner(config, self)


class _ScriptedRunner(Runner):
    def __init__(self, config: Config, target: ScriptedTarget) -> None:
        super().__init__(config)
        self.target = target

    async def run(self, request: RunRequest, on_log: LogSink | None = None) -> RunOutcome:
        self.target.requests.append(json.loads(json.dumps(request.inputs)))
        self.target.timeouts.append(request.timeout)
        try:
            answer = self.target.answer(request.inputs)
            if asyncio.iscoroutine(answer):
                answer = await answer
        except Exception as exc:  # the target's own failure: an error outcome, as a real runner reports it
            return RunOutcome(error=f"the target raised {type(exc).__name__}: {exc}", log=f"boom at {request.inputs}")
        trace = answer.pop("__trace__", []) if isinstance(answer, dict) else []
        return RunOutcome(output=answer, duration_ms=1.0, log="target log line", trace=trace)


def config_for(root: Path, *, judge: list[str] | None = None, threshold: float = 3.0, **runner: Any) -> Config:
    return Config(root=root, runner=RunnerConfig(**runner), judge=JudgeConfig(command=judge),
                  dialect_sections={"evals": ConversationsConfig(judge_pass_threshold=threshold)})


def play(root: Path, answer: Answer | ScriptedTarget, *, config: Config | None = None,
         selection: RowFilter | None = None) -> IterationReport:
    """One iteration of the project at `root` with the scripted target."""
    target = answer if isinstance(answer, ScriptedTarget) else ScriptedTarget(answer)
    engine = Engine(config or config_for(root), target.factory)
    return asyncio.run(engine.run_iteration(Trigger("test"), selection))


def result_of(report: IterationReport, name: str) -> Result:
    found = [r for r in report.results if r.row_name == name or r.row_id == name]
    assert len(found) == 1, f"expected one result for {name!r}, got {[r.row_id for r in report.results]}"
    return found[0]


def failures(result: Result) -> list[str]:
    """The detail lines that name a failed assertion (`turn 2 · tools: ...`)."""
    return [line for line in result.detail.splitlines() if " · " in line]


def judge_script(root: Path, score: Any = None, *, body: str | None = None) -> list[str]:
    """A local judge command (no network): prints `score`, or runs `body` with the prompt in `prompt`."""
    source = body or f"import json\nprint(json.dumps({{'score': {score!r}, 'justification': 'fixed'}}))\n"
    path = root / "judge_stub.py"
    path.write_text("import sys\nprompt = sys.stdin.read()\n" + source, encoding="utf-8")
    return ["{python}", str(path)]
