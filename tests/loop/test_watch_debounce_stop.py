"""Issue 12, point 14: a long `[watch] debounce_ms` neither delays stopping a watch nor is unbounded."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest

from workbench.config import ConfigError, load_config
from workbench.watching import watch_changes

STOP_S = 5.0  # from the stop to the end, far below the 10 s debounce: a stop that waits it out fails here
GUARD_S = 60.0  # a hang guard for the whole program (interpreter start-up on a loaded machine included)


def _config(root: Path, debounce_ms: int):
    (root / "workbench.toml").write_text(f"[watch]\ndebounce_ms = {debounce_ms}\n")
    return load_config(root)


async def _first_batch(config, ready: asyncio.Event) -> list[str]:
    async for files in watch_changes(config, ready=ready):
        return files
    return []


STOP_SCRIPT = """
import asyncio, sys, time
from pathlib import Path
from workbench.config import load_config
from workbench.watching import watch_changes

root = Path(sys.argv[1])
config = load_config(root)

async def main():
    ready = asyncio.Event()
    async def first():
        async for files in watch_changes(config, ready=ready):
            return files
    task = asyncio.create_task(first())
    await ready.wait()
    (root / "a.py").write_text("x = 1")  # a change waiting out its quiet time when the stop comes
    await asyncio.sleep(0.3)
    stopped_at.append(time.monotonic())
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        print("stopped")

stopped_at = []
asyncio.run(main())  # returns only once the watcher thread has ended too
print(f"{time.monotonic() - stopped_at[0]:.3f}")  # how long the stop took, interpreter start-up left out
"""


def test_stopping_a_watch_with_the_longest_debounce_is_immediate(tmp_path):
    """The whole program (watcher thread included) ends soon after the stop, not after the debounce."""
    _config(tmp_path, 10_000)
    proc = subprocess.run([sys.executable, "-c", STOP_SCRIPT, str(tmp_path)], capture_output=True, text=True,
                          timeout=GUARD_S)
    said, took = proc.stdout.split() if proc.stdout.count("\n") == 2 else (proc.stdout, "nan")
    assert said == "stopped", proc.stdout + proc.stderr
    assert float(took) < STOP_S, f"the program ended {took} s after the stop"


async def test_a_long_debounce_still_collects_saves_into_one_batch(tmp_path):
    config = _config(tmp_path, 4000)  # the 0.3 s between the saves stays far inside it on a loaded machine
    ready = asyncio.Event()
    task = asyncio.create_task(_first_batch(config, ready))
    await asyncio.wait_for(ready.wait(), 30)
    (tmp_path / "a.py").write_text("x = 1\n")
    await asyncio.sleep(0.3)
    (tmp_path / "b.py").write_text("y = 2\n")
    assert await asyncio.wait_for(task, 30) == ["a.py", "b.py"]


@pytest.mark.parametrize("debounce_ms", [30_000, 60_000, 2**63 - 1])
def test_a_debounce_beyond_ten_seconds_is_refused(tmp_path, debounce_ms):
    with pytest.raises(ConfigError, match=r"\[watch\] debounce_ms must be between 0 and 10000"):
        _config(tmp_path, debounce_ms)
