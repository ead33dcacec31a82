"""Benchmark 7: conversations — 1,000 conversation evals × 5 turns through a `kind = "python"` target.

Measured in a fresh interpreter (so its peak memory is its own): conversations/s and turns/s end to
end (load, play every turn, score every assertion), and peak RSS of workbench's process. Then what
workbench itself costs per turn, two ways: (a) the same 5,000 turns answered by an instant in-process
target (no pipes, no processes: the engine, the turn protocol, the transcript and the scorer alone),
and (b) the python target's wall time per turn minus its wall time per plain one-call row (5,000
rows through the same worker pool, same concurrency). Target: under 1 ms per turn.
One run alone: `python benchmarks/bench_conversations.py --child PROJECT` prints JSON.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from common import ROOT, Measure, config_for, iterate, write_project

from workbench.engine import Engine
from workbench.model import Verdict
from workbench.runners import Runner, RunOutcome, RunRequest

CONCURRENCY = 4
TURNS = 5

BOT = '''\
def reply(request):
    if "turn" not in request:  # a plain row (the comparison run)
        return {"y": request["x"] + 1}
    seen = request["state"]["conversation"].get("seen", 0) + 1
    return {"reply": f"turn {request['turn']} of {request['eval']}: {request['user']}",
            "tools": [{"name": "lookup", "params": {"turn": request["turn"]}}],
            "state": {"conversation": {"seen": seen}}}
'''


def conversation(name: str) -> dict[str, Any]:
    turns = [{"user": f"message {n}",
              "assert": {"response": [{"contains": f"turn {n}"}],
                         "tools": [{"called": "lookup", "params": {"turn": {"equals": n}}}],
                         "state": [{"path": "conversation.seen", "equals": n}],
                         "timing": [{"response_time": {"lte": 60_000}}]}}
             for n in range(1, TURNS + 1)]
    return {"name": name, "type": "regression", "tags": ["bench"], "conversation": turns,
            "outcome": {"state": [{"path": "conversation.seen", "changed": True}]}}


def write_conversations(root: Path, count: int, files: int = 10) -> Path:
    evals = root / "evals"
    evals.mkdir(parents=True, exist_ok=True)
    for number in range(files):
        chunk = [conversation(f"c{i}") for i in range(number, count, files)]
        (evals / f"chat{number:02d}.eval.json").write_text(json.dumps(chunk), encoding="utf-8")
    (root / "bot.py").write_text(BOT, encoding="utf-8")
    return root


class InstantBot(Runner):
    """The same bot answered in-process: what remains is workbench's own cost per turn."""

    async def run(self, request: RunRequest, on_log: object = None) -> RunOutcome:
        inputs = request.inputs
        if "turn" not in inputs:
            return RunOutcome(output={"y": inputs["x"] + 1})
        seen = inputs["state"]["conversation"].get("seen", 0) + 1
        return RunOutcome(output={"reply": f"turn {inputs['turn']} of {inputs['eval']}: {inputs['user']}",
                                  "tools": [{"name": "lookup", "params": {"turn": inputs["turn"]}}],
                                  "state": {"conversation": {"seen": seen}}})


def _timed(engine: Engine) -> tuple[float, int]:
    started = time.perf_counter()
    report = iterate(engine)
    wall = time.perf_counter() - started
    bad = [r for r in report.results if r.verdict is not Verdict.PASS]
    assert not bad, bad[0].detail
    return wall, len(report.results)


def child(conversations: Path, plain: Path) -> dict[str, float]:
    python = config_for(conversations, kind="python", callable="bot:reply", concurrency=CONCURRENCY, timeout=60)
    wall, rows = _timed(Engine(python))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    instant_wall, _ = _timed(Engine(python, InstantBot))
    plain_config = config_for(plain, kind="python", callable="bot:reply", concurrency=CONCURRENCY, timeout=60)
    plain_wall, plain_rows = _timed(Engine(plain_config))
    instant_plain_wall, _ = _timed(Engine(plain_config, InstantBot))
    turns = rows * TURNS
    return {"rows": rows, "turns": turns, "wall_s": wall, "peak_mib": peak,
            "instant_turn_us": instant_wall / turns * 1e6,
            "instant_row_us": instant_plain_wall / plain_rows * 1e6,
            "python_turn_us": wall / turns * 1e6, "python_row_us": plain_wall / plain_rows * 1e6}


def measure(count: int, tmp: Path) -> dict[str, float]:
    conversations = write_conversations(tmp / "conversations", count)
    plain = write_project(tmp / "plain", [({"x": i}, {"y": i + 1}) for i in range(count * TURNS)],
                          sources={"bot.py": BOT})
    out = subprocess.run([sys.executable, __file__, "--child", str(conversations), str(plain)],
                         capture_output=True, text=True, check=True, cwd=ROOT, timeout=1800)
    return json.loads(out.stdout)


def run(quick: bool = False) -> list[Measure]:
    count = 200 if quick else 1000
    with tempfile.TemporaryDirectory(prefix="wb-bench-conversations-") as tmp:
        got = measure(count, Path(tmp))
    bench = "7 conversations"
    overhead = got["python_turn_us"] - got["python_row_us"]
    return [
        Measure(bench, f"{got['rows']:,} conversations × {TURNS} turns, python target, concurrency {CONCURRENCY}",
                f"{got['wall_s']:.2f}s = {got['rows'] / got['wall_s']:,.0f} conversations/s "
                f"({got['turns'] / got['wall_s']:,.0f} turns/s); peak {got['peak_mib']:.0f} MiB"),
        Measure(bench, "workbench alone per turn (instant in-process target; engine, protocol, transcript, "
                       "4 assertions)",
                f"{got['instant_turn_us']:.0f} µs per turn (a plain one-call row: {got['instant_row_us']:.0f} µs)",
                "< 1 ms", got["instant_turn_us"] < 1000),
        Measure(bench, "python target: per turn minus per plain row (same worker pool)",
                f"{got['python_turn_us']:.0f} − {got['python_row_us']:.0f} = {overhead:.0f} µs per turn",
                "< 1 ms", overhead < 1000),
    ]


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        print(json.dumps(child(Path(sys.argv[2]), Path(sys.argv[3]))))
    else:
        from run import table

        print(table(run("--quick" in sys.argv)))
