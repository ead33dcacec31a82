"""Issue 22 point 12: without `[runner] concurrency`, rows at once fit the machine and the target kind — one per
core (at least 4) for process and worker targets, 8 per core (16 to 32) for `uip`, whose runs mostly wait.
The measurement behind the numbers: benchmarks/bench_uip_concurrency.py (benchmarks/README.md, #10)."""

from __future__ import annotations

import asyncio
import json
import stat
import sys
from pathlib import Path

from helpers.cli import invoke_json
from helpers.project import COMMAND_CONFIG, WORKFLOW_JSON, make_project, row

from workbench.cluster import rows_in_flight
from workbench.config import load_config
from workbench.runners import concurrency_of, default_concurrency
from workbench.runners.concurrency import cores
from workbench.settings.sections import RunnerConfig


def test_the_defaults_by_kind_and_cores() -> None:
    assert [default_concurrency("uip", cpus) for cpus in (1, 2, 4, 8, 64)] == [16, 16, 32, 32, 32]
    for kind in ("command", "worker", "python"):
        assert [default_concurrency(kind, cpus) for cpus in (1, 2, 4, 8, 64)] == [4, 4, 4, 8, 64]
    assert default_concurrency("uip") == default_concurrency("uip", cores())


def test_the_setting_wins_and_unset_is_the_kinds_default(tmp_path: Path) -> None:
    assert RunnerConfig().concurrency is None  # the default is decided by the kind, not a fixed number
    explicit = load_config(make_project(tmp_path / "a", config={**COMMAND_CONFIG, "concurrency": 3}))
    assert concurrency_of(explicit) == 3 and asyncio.run(rows_in_flight(explicit)) == 3
    command = load_config(make_project(tmp_path / "b", config=COMMAND_CONFIG))
    assert concurrency_of(command) == default_concurrency("command") == asyncio.run(rows_in_flight(command))
    uip = load_config(make_project(tmp_path / "c", files={"Workflow.json": WORKFLOW_JSON}))  # no config: uip
    assert concurrency_of(uip) == default_concurrency("uip") >= 16
    nothing = load_config(make_project(tmp_path / "d"))  # nothing runs the rows: still a number
    assert concurrency_of(nothing) == default_concurrency("command")


BARRIER_UIP = '''
import json, os, sys, time
args = sys.argv[1:]
inputs = json.loads(args[args.index("--input-arguments") + 1])
log = args[args.index("--log-file") + 1]
folder, count = inputs["barrier"]
open(os.path.join(folder, str(os.getpid())), "w").close()
deadline = time.monotonic() + 120  # a hang guard: the test fails on "met": false, never waits for it
while len(os.listdir(folder)) < count and time.monotonic() < deadline:
    time.sleep(0.02)
met = len(os.listdir(folder)) >= count
with open(log, "a") as f:
    f.write('Response task evaluated successfully for "Response_1": ' + json.dumps({"response": {"met": met}}) + "\\n")
print(json.dumps({"Result": "Success", "Message": "", "Data": {"Met": met}}))
'''


def test_a_uip_project_runs_16_rows_at_once_without_a_setting(tmp_path: Path) -> None:
    """16 rows whose runs each wait until all 16 have started: they all pass only if 16 run at once."""
    barrier = tmp_path / "barrier"
    barrier.mkdir()
    uip = tmp_path / "uip"
    uip.write_text(f"#!{sys.executable}\n{BARRIER_UIP}")
    uip.chmod(uip.stat().st_mode | stat.S_IXUSR)
    rows = [row(f"r{i}", {"barrier": [str(barrier), 16]}, {"met": True}) for i in range(16)]
    root = make_project(tmp_path / "p", sets={"s": rows}, files={"Workflow.json": WORKFLOW_JSON},
                        config={"kind": "uip", "uip": [str(uip)], "timeout": 200})
    proc, doc = invoke_json("run", str(root), "--no-history")
    assert proc.returncode == 0, json.dumps(doc["results"][:2])
    assert sorted(r["verdict"] for r in doc["results"]) == ["PASS"] * 16
