"""A warm worker's start-up (its interpreter, its imports: an SDK's take seconds) is the worker's, not its first
row's: the row's timeout and duration start when the worker is ready to take it. The start-up has a deadline of
its own, and a worker that never gets ready is an ERROR naming the start-up, never a hang.

The fake targets block their start-up on a FIFO the test holds; nothing sleeps. A start-up "longer than the
timeout" is made by releasing the FIFO only once a timer of the row's timeout, set after the row was asked
for, has fired: a timer set from the request (the old clock) fires before it.
"""

from __future__ import annotations

import asyncio
import errno
import os
import sys
import textwrap
import time
from pathlib import Path

import pytest
from helpers.checks import survivors

from workbench import worker_main
from workbench.cluster.ray_runner import RayRunner
from workbench.config import Config, RunnerConfig
from workbench.runners import RunOutcome, RunRequest, make_runner, worker
from workbench.runners.base import PACKAGE_DIR
from workbench.runners.preload import PreloadRunner
from workbench.runners.python_target import PythonRunner
from workbench.runners.worker import WorkerRunner, announces_ready

OPEN_TRIES = 3000  # x 0.01 s: a hang guard for a reader that never opened the FIFO, not a timing

# The user's module: its import writes the process's pid, then blocks until the test closes the FIFO.
BLOCKING_MODULE = '''
import os
with open({pids!r}, "a") as handle:
    handle.write(f"{{os.getpid()}}\\n")
with open({fifo!r}) as gate:
    gate.read()

def answer(inputs):
    return {{"pid": os.getpid(), "n": inputs.get("n")}}
'''


def request(inputs: dict, row_id: str = "r1") -> RunRequest:
    return RunRequest(inputs=inputs, row_id=row_id, row_name=row_id, set_file="set.json", scope="default")


def gated_project(tmp_path: Path, *, timeout: float, concurrency: int = 1) -> tuple[Config, Path, Path]:
    """A python-kind project whose module's import waits on `fifo`; `pids` collects its processes' pids."""
    fifo, pids = tmp_path / "gate", tmp_path / "pids"
    os.mkfifo(fifo)
    (tmp_path / "slowstart.py").write_text(textwrap.dedent(BLOCKING_MODULE.format(pids=str(pids), fifo=str(fifo))))
    config = Config(root=tmp_path, runner=RunnerConfig(kind="python", callable="slowstart:answer", timeout=timeout,
                                                       concurrency=concurrency))
    return config, fifo, pids


async def release(fifo: Path) -> None:
    """Let every reader blocked on `fifo` through (waiting for the first to open it)."""
    for _ in range(OPEN_TRIES):
        try:
            fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        except OSError as exc:
            if exc.errno != errno.ENXIO:  # ENXIO: no reader yet
                raise
            await asyncio.sleep(0.01)
            continue
        os.close(fd)
        return
    pytest.fail(f"nothing opened {fifo} to read")


async def after(seconds: float) -> None:
    """Once a timer of `seconds`, set now, has fired (timers fire in deadline order)."""
    fired = asyncio.Event()
    asyncio.get_running_loop().call_later(seconds, fired.set)
    await fired.wait()


def pids_in(path: Path) -> list[int]:
    return [int(pid) for pid in path.read_text().split()] if path.exists() else []


# -- the timeout and the duration start when the worker is ready ----------------------------------------------------

async def test_a_start_up_longer_than_the_timeout_does_not_time_the_first_row_out(tmp_path: Path) -> None:
    timeout = 3.0
    config, fifo, pids = gated_project(tmp_path, timeout=timeout)
    runner = make_runner(config)
    assert isinstance(runner, PythonRunner) and runner.announces
    try:
        row = asyncio.ensure_future(runner.run(request({"n": 1})))
        await after(timeout)  # a row clock started at the request has run out by now
        assert not row.done()
        released = time.perf_counter()
        await release(fifo)
        first = await row
        finished = time.perf_counter()
        second = await runner.run(request({"n": 2}, "r2"))
    finally:
        await runner.aclose()
    assert first.error is None and first.output["n"] == 1, first.error
    assert second.error is None and second.output["pid"] == first.output["pid"]
    # its duration counts from the ready line, which came after the release: not the start-up before it
    assert first.duration_ms <= (finished - released) * 1000
    assert not survivors(pids_in(pids), 30)


async def test_a_worker_that_never_gets_ready_is_an_error_naming_its_start_up(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(worker, "START_TIMEOUT_S", 0.5)
    config, _fifo, pids = gated_project(tmp_path, timeout=60.0, concurrency=2)
    runner = make_runner(config)
    try:
        outcomes = await asyncio.gather(*(runner.run(request({"n": n}, f"r{n}")) for n in range(5)))
    finally:
        await runner.aclose()
    assert all(o.error for o in outcomes)
    first = outcomes[0].error or ""
    assert "did not get ready within 0.5s of starting" in first
    assert "start-up: starting the interpreter and importing slowstart:answer" in first
    assert "stopped starting workers" in first
    assert all("did not get ready" in (o.error or "") for o in outcomes)
    assert len(pids_in(pids)) == 2  # the rows after the deadline start no worker that would hang as long
    assert not survivors(pids_in(pids), 30)


async def test_cancelling_a_row_while_its_worker_starts_kills_the_worker(tmp_path: Path) -> None:
    config, _fifo, pids = gated_project(tmp_path, timeout=60.0)
    runner = make_runner(config)
    row = asyncio.ensure_future(runner.run(request({})))
    for _ in range(OPEN_TRIES):
        if pids_in(pids):
            break
        await asyncio.sleep(0.01)
    row.cancel()
    with pytest.raises(asyncio.CancelledError):
        await row
    await runner.aclose()
    assert pids_in(pids) and not survivors(pids_in(pids), 30)


async def test_a_worker_that_dies_while_starting_says_so(tmp_path: Path) -> None:
    (tmp_path / "dies.py").write_text("import os\nos._exit(5)\n")
    config = Config(root=tmp_path, runner=RunnerConfig(kind="python", callable="dies:answer", concurrency=1))
    runner = make_runner(config)
    try:
        outcomes = [await runner.run(request({}, f"r{n}")) for n in range(worker.MAX_STARTUP_DEATHS + 1)]
    finally:
        await runner.aclose()
    assert "exited with code 5 during its start-up, before it was ready for this row" in (outcomes[0].error or "")
    assert "stopped restarting" in (outcomes[-1].error or "")


# -- which workers say they are ready ---------------------------------------------------------------------------------

def test_workbenchs_own_children_announce_and_a_users_worker_is_not_presumed_to() -> None:
    child = PACKAGE_DIR / "dialects" / "uipath_coded" / "child_main.py"
    assert announces_ready([sys.executable, str(child), "main.py", "main"])
    assert announces_ready([sys.executable, "-u", str(PACKAGE_DIR / "worker_main.py"), "/p", "m:f"])
    assert not announces_ready([sys.executable, "worker.py"])
    assert not announces_ready([sys.executable, "-m", "workbench.worker_main"])
    assert not announces_ready(["node", str(PACKAGE_DIR / "worker_main.py")])
    assert worker.READY_ENV == worker_main.READY_ENV


async def test_a_worker_command_running_workbenchs_own_child_gets_the_start_up_deadline(tmp_path: Path) -> None:
    """The coded-agent format's shape: `kind = "worker"` running a child shipped in workbench's package (here
    worker_main.py itself, as `{workbench}/...`), whose imports outlast the row timeout."""
    timeout = 3.0
    config, fifo, _pids = gated_project(tmp_path, timeout=timeout)
    config.runner = RunnerConfig(kind="worker", command=["{python}", "{workbench}/worker_main.py", str(tmp_path),
                                                         "slowstart:answer"], timeout=timeout, concurrency=1)
    runner = make_runner(config)
    assert type(runner) is WorkerRunner and runner.announces
    try:
        row = asyncio.ensure_future(runner.run(request({"n": 7})))
        await after(timeout)
        await release(fifo)
        outcome = await row
    finally:
        await runner.aclose()
    assert outcome.error is None and outcome.output["n"] == 7, outcome.error


async def test_a_users_worker_that_prints_the_ready_line_starts_its_rows_clock_there(tmp_path: Path) -> None:
    fifo = tmp_path / "gate"
    os.mkfifo(fifo)
    (tmp_path / "worker.py").write_text(textwrap.dedent(f'''
        import json, sys
        print("loading", file=sys.stderr, flush=True)
        open({str(fifo)!r}).read()
        print(json.dumps({{"ready": True}}), flush=True)
        for line in sys.stdin:
            req = json.loads(line)
            print(json.dumps({{"id": req["id"], "output": req["inputs"]}}), flush=True)
    '''))
    config = Config(root=tmp_path, runner=RunnerConfig(kind="worker", command=["{python}", "worker.py"],
                                                       timeout=60.0, concurrency=1))
    runner = make_runner(config)
    assert isinstance(runner, WorkerRunner) and not runner.announces
    try:
        row = asyncio.ensure_future(runner.run(request({"n": 1})))
        await after(0.2)
        released = time.perf_counter()
        await release(fifo)
        outcome: RunOutcome = await row
        finished = time.perf_counter()
        learned = runner.announces
    finally:
        await runner.aclose()
    assert outcome.output == {"n": 1}, outcome.error
    assert outcome.duration_ms <= (finished - released) * 1000
    assert "loading" in outcome.log and "ready" not in outcome.log
    assert learned  # the workers started after it have the start-up deadline


# -- the driver of a Ray cluster waits for the start-up too -----------------------------------------------------------

def test_a_ray_actors_row_is_waited_for_its_timeout_plus_the_workers_start_up(tmp_path: Path) -> None:
    config = Config(root=tmp_path, runner=RunnerConfig(kind="worker", command=["w"], timeout=10.0))
    actor = RayRunner(config, "worker", make_runner).deadline(request({}))
    task = RayRunner(config, "command", make_runner).deadline(request({}))
    assert actor - task == worker.START_TIMEOUT_S


# -- a forked row is charged its parent's start-up in its duration as in its timeout ----------------------------------

async def test_a_forked_rows_duration_counts_the_parents_start_up_as_its_timeout_does(tmp_path: Path) -> None:
    """As a fresh process's duration counts its own start-up: a row's duration (a `duration_ms` assertion,
    `--max-slowdown`) must not change with whether the fork worked."""
    root, lib = tmp_path / "proj", tmp_path / "lib"
    root.mkdir()
    lib.mkdir()
    fifo = tmp_path / "gate"
    os.mkfifo(fifo)
    gated = f'import os\nif "WORKBENCH_ROW_ID" not in os.environ:\n    open({str(fifo)!r}).read()\n'  # the parent only
    (lib / "gated.py").write_text(gated)
    (root / "target.py").write_text("import json, gated\nprint(json.dumps(1))\n")
    config = Config(root=root)
    config.runner.kind = "command"
    config.runner.command = [sys.executable, "target.py"]
    config.runner.timeout = 60.0
    config.runner.env = {"PYTHONPATH": str(lib)}
    runner = make_runner(config)
    assert isinstance(runner, PreloadRunner)
    try:
        first = asyncio.ensure_future(runner.run(request({})))
        await after(0.3)
        await release(fifo)
        waited = await first
        later = await runner.run(request({}, "r2"))
        parent = runner.warm_parent
        assert parent is not None and runner.fallback_reason is None, runner.fallback_reason
        charged = parent.import_seconds * 1000
    finally:
        await runner.aclose()
    assert waited.output == 1 and later.output == 1, (waited.error, later.error)
    assert waited.duration_ms >= charged and later.duration_ms >= charged
