"""The three runner kinds speaking the turn protocol with real processes: a python callable, a JSON-lines
worker and a command per turn. Worker and python processes serve a whole conversation, so a target may
keep its own memory keyed on the eval name; a turn past `options.idleTimeout` is an ERROR of that turn."""

from __future__ import annotations

import asyncio
import sys
import textwrap
from pathlib import Path

import pytest
from helpers.conversations import eval_doc, result_of, turn, write_evals

from workbench.config import Config, RunnerConfig
from workbench.engine import Engine
from workbench.events import IterationReport, Trigger
from workbench.model import Verdict

# One bot for every kind: it remembers how many turns each eval has had in this process (keyed on the
# eval name), reports the tool it "called" in the response and a usage event in the trace file.
BOT = '''
import json, os, sys, time

MEMORY = {}

def answer(request):
    name = request["eval"]
    MEMORY[name] = MEMORY.get(name, 0) + 1
    text = request.get("user") or json.dumps(request.get("event"))
    if "slow" in text:
        time.sleep(30)
    trace = os.environ.get("WORKBENCH_TRACE")
    if trace:
        with open(trace, "a") as f:
            f.write(json.dumps({"type": "tool_call", "name": "search", "args": {"q": text}}) + "\\n")
    print(f"log of turn {request['turn']}", file=sys.stderr)
    seen = request["state"]["conversation"].get("turns", 0) + 1
    return {"reply": f"pid={os.getpid()} memory={MEMORY[name]} state={seen} history={len(request['history'])}",
            "tools": [{"name": "lookup", "params": {"text": text}}],
            "state": {"conversation": {"turns": seen}}}

async def answer_async(request):
    return answer(request)
'''

WORKER = '''
import json, os, sys
from bot import answer

for line in sys.stdin:
    message = json.loads(line)
    os.environ["WORKBENCH_TRACE"] = message["trace"]  # the worker protocol names the row's trace file
    print(json.dumps({"id": message["id"], "output": answer(message["inputs"])}), flush=True)
'''

COMMAND = '''
import json, sys
from bot import answer

print(json.dumps(answer(json.load(sys.stdin))))
'''

CONFIGS = {
    "python": {"kind": "python", "callable": "bot:answer"},
    "python-async": {"kind": "python", "callable": "bot:answer_async"},
    "worker": {"kind": "worker", "command": ["{python}", "worker.py"]},
    "command": {"kind": "command", "command": ["{python}", "command.py"]},
}


def conversation(name: str, count: int = 3, **fields: object) -> dict:
    turns = [turn(f"message {n}", response=[{"contains": f"state={n} history={n - 1}"}],
                  tools=[{"called": "lookup", "params": {"text": {"equals": f"message {n}"}}}, {"called": "search"}])
             for n in range(1, count + 1)]
    return eval_doc(name, turns, **fields)


def run(root: Path, kind: str, *, concurrency: int = 2) -> IterationReport:
    for name, source in (("bot.py", BOT), ("worker.py", WORKER), ("command.py", COMMAND)):
        (root / name).write_text(textwrap.dedent(source), encoding="utf-8")
    settings = {**CONFIGS[kind], "timeout": 20, "concurrency": concurrency}
    if "command" in settings:
        settings["command"] = [sys.executable if part == "{python}" else part for part in settings["command"]]
    engine = Engine(Config(root=root, runner=RunnerConfig(**settings)))
    return asyncio.run(engine.run_iteration(Trigger("test")))


@pytest.mark.parametrize("kind", list(CONFIGS))
def test_every_runner_kind_plays_the_turns(tmp_path: Path, kind: str) -> None:
    write_evals(tmp_path, {"a": [conversation("first"), conversation("second")],
                           "b": conversation("third", tags=["smoke"])})
    report = run(tmp_path, kind)
    for name in ("first", "second", "third"):
        result = result_of(report, name)
        assert result.verdict is Verdict.PASS, result.detail
        replies = [t["reply"] for t in result.actual["turns"]]
        memories = [reply.split()[1] for reply in replies]
        pids = {reply.split()[0] for reply in replies}
        if kind == "command":
            assert memories == ["memory=1"] * 3 and len(pids) == 3  # a fresh process per turn
        else:
            assert memories == ["memory=1", "memory=2", "memory=3"] and len(pids) == 1  # one process held
        assert "log of turn 2" in result.log


@pytest.mark.parametrize("kind", ["python", "command"])
def test_a_turn_past_idle_timeout_is_an_error_and_the_process_is_killed(tmp_path: Path, kind: str) -> None:
    # 3 s: room for a `command` target's fresh Python process on a loaded machine (300 ms was not), far
    # below the slow turn's 30 s sleep
    turns = [turn("fine"), turn("slow one"), turn("never sent")]
    write_evals(tmp_path, {"a": eval_doc("slow", turns, options={"idleTimeout": 3000}),
                           "b": eval_doc("fast", [turn("fine")])})
    report = run(tmp_path, kind)
    result = result_of(report, "slow")
    assert result.verdict is Verdict.ERROR
    first = result.detail.splitlines()[0]
    assert first.startswith("turn 2: ") and "timed out after 3s" in first, first
    assert "(options.idleTimeout is 3000 ms)" in first
    assert [t["turn"] for t in result.actual["turns"]] == [1]
    assert result_of(report, "fast").verdict is Verdict.PASS
