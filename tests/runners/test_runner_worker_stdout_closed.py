"""Issue 12, point 17: a worker that closes its stdout and keeps running is dead (it can never answer),
so its row fails at once and a fresh worker takes the next rows — it is not waited on until the timeout."""

from __future__ import annotations

import asyncio
import textwrap
from pathlib import Path

from workbench.config import Config, RunnerConfig
from workbench.runners import RunRequest, make_runner

MUTE_WORKER = r'''
import json, os, sys, time
for line in sys.stdin:
    req = json.loads(line)
    if req["inputs"].get("mute"):
        open(req["inputs"]["pidfile"], "w").write(str(os.getpid()))
        sys.stdout.flush()
        os.close(1)  # no more replies can come from this process...
        time.sleep(600)  # ...but it keeps running
    print(json.dumps({"id": req["id"], "output": {"pid": os.getpid()}}), flush=True)
'''
TIMEOUT_S = 120.0  # the old behaviour waited this long; the test fails (and says so) long before


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


async def test_a_worker_that_closes_its_stdout_is_replaced_not_waited_on(tmp_path: Path) -> None:
    (tmp_path / "worker.py").write_text(textwrap.dedent(MUTE_WORKER), encoding="utf-8")
    config = Config(root=tmp_path, runner=RunnerConfig(kind="worker", command=["{python}", "worker.py"],
                                                       timeout=TIMEOUT_S, concurrency=1))
    runner = make_runner(config)
    pidfile = tmp_path / "mute.pid"
    try:
        first = await runner.run(RunRequest({"n": 1}, "a", "a", "set.json", "default"))
        mute = await asyncio.wait_for(
            runner.run(RunRequest({"mute": True, "pidfile": str(pidfile)}, "b", "b", "set.json", "default")), 30)
        after = await runner.run(RunRequest({"n": 3}, "c", "c", "set.json", "default"))
    finally:
        await runner.aclose()
    assert first.error is None and after.error is None
    assert mute.output is None and "closed its stdout but kept running" in (mute.error or "")
    assert "timed out" not in mute.error
    assert after.output["pid"] != first.output["pid"]  # a fresh worker took the next row
    assert not _alive(int(pidfile.read_text()))  # the mute one was killed
