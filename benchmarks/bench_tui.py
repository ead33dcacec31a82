"""Benchmark 5 (TUI part): the real app, headless, on 10,000 rows with a fast python-worker target.

Measures, in a fresh interpreter: time from creating the app to the first paint that shows all
10,000 rows in the sets tree; then, while the iteration streams verdicts in, how long a key press
takes to take effect (the cursor moves), over several presses; and the iteration's total time.
Target: first paint under 2 s, and key presses answered promptly while rows run.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import ROOT, TRIVIAL_TARGET, Measure, config_for, trivial_rows, write_project

ROWS = 10_000
PRESSES = 10
GIVE_UP_S = 10.0


async def _child(root: Path) -> dict[str, float]:
    from textual import events

    from workbench.tui.app import make_app

    config = config_for(root, kind="python", callable="target:add_one", concurrency=4, timeout=60)
    started = time.perf_counter()
    app = make_app(config, watch=False, record=False)
    async with app.run_test(size=(150, 45)):
        while len(app.main.sets_tree.visible_rows()) < ROWS:
            await asyncio.sleep(0.005)
        first_paint = time.perf_counter() - started
        while not app.state.running and app.main.iterations_done < 1 and time.perf_counter() - started < 60:
            await asyncio.sleep(0.005)  # the iteration starts once the session has re-read the project
        delays = []
        for _ in range(PRESSES):
            if not app.state.running:
                break
            line = app.main.sets_tree.cursor_line
            pressed = time.perf_counter()
            app.post_message(events.Key("j", "j"))  # as the terminal driver would deliver it
            while app.main.sets_tree.cursor_line == line and time.perf_counter() - pressed < GIVE_UP_S:
                await asyncio.sleep(0.002)
            delays.append(time.perf_counter() - pressed)
            await asyncio.sleep(0.05)
        while app.main.iterations_done < 1:
            await asyncio.sleep(0.02)
        total = time.perf_counter() - started
        app.exit()
    return {"first_paint_s": first_paint, "key_median_s": statistics.median(delays) if delays else -1.0,
            "key_max_s": max(delays) if delays else -1.0, "keys": len(delays), "iteration_s": total}


def measure() -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="wb-tui-") as tmp:
        root = write_project(Path(tmp) / "rows", trivial_rows(ROWS), files=10, sources={"target.py": TRIVIAL_TARGET})
        out = subprocess.run([sys.executable, __file__, "--child", str(root)], capture_output=True, text=True,
                             check=True, cwd=ROOT, timeout=600)
        return json.loads(out.stdout.strip().splitlines()[-1])


def run(quick: bool = False) -> list[Measure]:
    got = measure()
    keys = (f"key press answered in median {got['key_median_s'] * 1000:.0f} ms, max "
            f"{got['key_max_s'] * 1000:.0f} ms over {got['keys']:.0f} presses while rows ran"
            if got["keys"] else "iteration finished before keys could be pressed")
    return [
        Measure("5 scale", "TUI first paint, 10,000 rows", f"{got['first_paint_s']:.2f} s", "< 2 s",
                got["first_paint_s"] < 2.0),
        Measure("5 scale", "TUI responsive during the 10,000-row run", keys, "every press < 0.5 s",
                None if not got["keys"] else got["key_max_s"] < 0.5),
        Measure("5 scale", "TUI 10,000-row iteration, run + score + paint", f"{got['iteration_s']:.1f} s"),
    ]


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        print(json.dumps(asyncio.run(_child(Path(sys.argv[2])))))
    else:
        for measure_line in run():
            print(measure_line)
