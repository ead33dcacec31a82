"""Benchmark 9: the agent's side of the loop, through the MCP SDK's own stdio client against `workbench mcp`.

On a project of 200 rows whose target is a process per row (`{python} doubler.py`, `{"x": N} → {"y": 2N}`):
(a) `run` after an expectation edit: the time from calling the tool to its result (the warm session
    re-scores every row from its recorded run: nothing runs), median and worst of 10 edits. Target < 300 ms.
(b) the same `run` with every one of the 200 rows failing: the size of the result's text. Target ≤ 4 KB.
Also shown: the first `run` (every row runs) and a `run` with nothing changed.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from common import Measure, write_project

DOUBLER = '''\
import json
import sys

data = json.load(sys.stdin)
print(json.dumps({"y": data["x"] * 2}))
'''

ROOT = Path(__file__).resolve().parent.parent


def _text(result: Any) -> str:
    return "\n".join(block.text for block in result.content if getattr(block, "type", "") == "text")


async def _measure(root: Path, edits: int) -> dict[str, Any]:
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    set_file = root / "evals" / "default" / "eval-sets" / "set000.json"
    params = StdioServerParameters(command=sys.executable, args=["-m", "workbench", "mcp", str(root)],
                                   env={"PYTHONPATH": str(ROOT)}, cwd=str(root))
    out: dict[str, Any] = {}
    with open(root.parent / "mcp-stderr.log", "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            started = time.perf_counter()
            first = await session.call_tool("run", {})
            out["first"] = time.perf_counter() - started
            assert first.structured_content["green"], _text(first)
            started = time.perf_counter()
            same = await session.call_tool("run", {})
            out["unchanged"] = time.perf_counter() - started
            assert same.structured_content["rescored_rows"] == same.structured_content["rows"]["total"]
            doc = json.loads(set_file.read_text())
            times, ran = [], 0
            for edit in range(edits):
                doc["evaluations"][edit]["evaluationCriterias"]["exact"]["expectedOutput"] = {"y": -1}
                set_file.write_text(json.dumps(doc))
                started = time.perf_counter()
                result = await session.call_tool("run", {})
                times.append(time.perf_counter() - started)
                ran += result.structured_content["ran_rows"]
                assert result.structured_content["rows"]["failing"] == edit + 1, _text(result)
            out["edit"], out["edit_ran"] = times, ran
            for entry in doc["evaluations"]:
                entry["evaluationCriterias"]["exact"]["expectedOutput"] = {"y": "never", "why": "x" * 200}
            set_file.write_text(json.dumps(doc))
            started = time.perf_counter()
            failing = await session.call_tool("run", {})
            out["all_failing"] = time.perf_counter() - started
            out["failing_rows"] = failing.structured_content["rows"]["failing"]
            out["text_bytes"] = len(_text(failing).encode())
            out["structured_bytes"] = len(json.dumps(failing.structured_content).encode())
    return out


def run(quick: bool = False) -> list[Measure]:
    try:
        import mcp  # noqa: F401
    except ImportError:
        return [Measure("9 agent", "workbench mcp", "skipped: the mcp extra is not installed", "")]
    rows, edits = 200, 3 if quick else 10
    with tempfile.TemporaryDirectory(prefix="wb-bench-agent-") as tmp:
        root = write_project(Path(tmp) / "project", [({"x": i}, {"y": i * 2}) for i in range(rows)],
                             runner={"kind": "command", "command": ["{python}", "doubler.py"], "timeout": 60},
                             sources={"doubler.py": DOUBLER})
        got = asyncio.run(_measure(root, edits))
    median, worst = statistics.median(got["edit"]) * 1000, max(got["edit"]) * 1000
    return [
        Measure("9 agent", f"{rows} rows, process per row: first run() (every row runs)", f"{got['first']:.2f} s"),
        Measure("9 agent", "run() with nothing changed", f"{got['unchanged'] * 1000:.0f} ms"),
        Measure("9 agent", f"run() after an expectation edit ({edits} edits)",
                f"median {median:.0f} ms, worst {worst:.0f} ms, {got['edit_ran']} rows ran", "< 300 ms, 0 runs",
                worst < 300 and got["edit_ran"] == 0),
        Measure("9 agent", f"run() with all {got['failing_rows']} rows failing: the result's text",
                f"{got['text_bytes']:,} bytes (structured content {got['structured_bytes']:,} bytes), "
                f"{got['all_failing'] * 1000:.0f} ms", "≤ 4 KB", got["text_bytes"] <= 4096),
    ]


if __name__ == "__main__":
    for measure in run("--quick" in sys.argv):
        print(f"{measure.case}: {measure.value}  [{measure.target}] {measure.status}")
