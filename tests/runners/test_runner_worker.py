"""`kind = "worker"`: long-lived targets over JSON lines — replies, errors, crashes, hangs, logs, traces."""

from __future__ import annotations

import asyncio
import json
import textwrap
from pathlib import Path

import pytest
from helpers.checks import survivors
from helpers.runners import cancel_once_started

from workbench.config import Config, ConfigError, RunnerConfig
from workbench.engine import Engine
from workbench.events import ResultReady, RowLog, Trigger
from workbench.model import Verdict
from workbench.runners import RunRequest, make_runner
from workbench.runners.worker import MAX_STARTUP_DEATHS, WorkerRunner

# A worker that answers {"n": x} with {"double": 2x, "pid": ...} and misbehaves on request.
WORKER = r'''
import json, os, subprocess, sys, time
for line in sys.stdin:
    req = json.loads(line)
    inp = req["inputs"]
    act = inp.get("act")
    print(f"row {inp.get('n')} on stderr", file=sys.stderr, flush=True)
    if act == "die":
        print("about to die", file=sys.stderr, flush=True)
        sys.exit(7)
    if act == "hang":
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        open(inp["pidfile"], "w").write(str(child.pid))
        time.sleep(600)
    if act == "chatter":
        print("just some debug output", flush=True)
    if act == "garble":
        print("{not json", flush=True)
        continue
    if act == "wrong-id":
        print(json.dumps({"id": -1, "output": {}}), flush=True)
        continue
    if act == "trace":
        with open(req["trace"], "a") as f:
            f.write(json.dumps({"span": "llm", "tokens": 12}) + "\n")
            f.write("not json\n")
    if act == "error":
        reply = {"id": req["id"], "error": "the model refused"}
    else:
        reply = {"id": req["id"], "output": {"double": inp.get("n", 0) * 2, "pid": os.getpid()}}
    print(json.dumps(reply), flush=True)
'''


def make_config(tmp_path: Path, script: str = WORKER, *, concurrency: int = 2, timeout: float = 20.0,
                argv: list[str] | None = None) -> Config:
    (tmp_path / "worker.py").write_text(textwrap.dedent(script), encoding="utf-8")
    runner = RunnerConfig(kind="worker", command=argv or ["{python}", "worker.py"], timeout=timeout,
                          concurrency=concurrency)
    return Config(root=tmp_path, runner=runner)


def request(inputs: dict, row_id: str = "r1") -> RunRequest:
    return RunRequest(inputs=inputs, row_id=row_id, row_name=row_id, set_file="set.json", scope="default")


async def run_rows(config: Config, rows: list[dict]) -> list:
    runner = make_runner(config)
    try:
        return list(await asyncio.gather(*(runner.run(request(r, f"r{i}")) for i, r in enumerate(rows))))
    finally:
        await runner.aclose()


def test_make_runner_builds_a_worker_pool(tmp_path: Path) -> None:
    assert isinstance(make_runner(make_config(tmp_path)), WorkerRunner)


def test_worker_needs_a_command(tmp_path: Path) -> None:
    config = Config(root=tmp_path, runner=RunnerConfig(kind="worker"))
    with pytest.raises(ConfigError, match="command"):
        make_runner(config)


async def test_a_few_processes_serve_many_rows(tmp_path: Path) -> None:
    outcomes = await run_rows(make_config(tmp_path, concurrency=2), [{"n": i} for i in range(12)])
    assert [o.error for o in outcomes] == [None] * 12
    assert [o.output["double"] for o in outcomes] == [2 * i for i in range(12)]
    assert len({o.output["pid"] for o in outcomes}) <= 2


async def test_an_error_reply_is_that_rows_error(tmp_path: Path) -> None:
    bad, good = await run_rows(make_config(tmp_path), [{"act": "error"}, {"n": 1}])
    assert bad.error and "the model refused" in bad.error
    assert good.ok and good.output["double"] == 2


async def test_a_worker_that_dies_fails_only_its_row_and_is_replaced(tmp_path: Path) -> None:
    config = make_config(tmp_path, concurrency=1)
    outcomes = await run_rows(config, [{"n": 1}, {"act": "die", "n": 2}, {"n": 3}, {"n": 4}])
    first, died, *rest = outcomes
    assert died.error and "exited with code 7" in died.error and "about to die" in died.error
    assert [o.output["double"] for o in rest] == [6, 8]
    assert first.output["pid"] != rest[0].output["pid"]  # a fresh process took over


async def test_a_hung_row_times_out_and_its_process_group_is_killed(tmp_path: Path) -> None:
    pidfile = tmp_path / "grandchild.pid"
    config = make_config(tmp_path, concurrency=1, timeout=5)
    # A first row warms the worker up, so the 5 s are the hanging row's own (and the fresh worker after it
    # has them to start and answer on a loaded machine).
    _, hung, after = await run_rows(config, [{"n": 0}, {"act": "hang", "pidfile": str(pidfile)}, {"n": 5}])
    assert hung.error and "timed out after 5s" in hung.error
    assert after.ok and after.output["double"] == 10
    assert not survivors([int(pidfile.read_text())], 30)


async def test_stray_stdout_text_is_logged_not_fatal(tmp_path: Path) -> None:
    (outcome,) = await run_rows(make_config(tmp_path), [{"act": "chatter", "n": 1}])
    assert outcome.ok and outcome.output["double"] == 2
    assert "[stdout] just some debug output" in outcome.log


async def test_a_broken_reply_is_a_protocol_error_and_the_worker_is_replaced(tmp_path: Path) -> None:
    config = make_config(tmp_path, concurrency=1)
    garbled, wrong_id, fine = await run_rows(config, [{"act": "garble"}, {"act": "wrong-id"}, {"n": 2}])
    assert garbled.error and "broke the protocol" in garbled.error and "{not json" in garbled.error
    assert wrong_id.error and "broke the protocol" in wrong_id.error and "id -1" in wrong_id.error
    assert fine.ok and fine.output["double"] == 4


async def test_each_row_gets_its_own_log_lines(tmp_path: Path) -> None:
    outcomes = await run_rows(make_config(tmp_path, concurrency=2), [{"n": i} for i in range(6)])
    for i, outcome in enumerate(outcomes):
        assert f"row {i} on stderr" in outcome.log
        others = [j for j in range(6) if j != i and f"row {j} on stderr" in outcome.log]
        assert others == []


async def test_trace_lines_written_to_the_requests_trace_path_come_back(tmp_path: Path) -> None:
    (outcome,) = await run_rows(make_config(tmp_path), [{"act": "trace", "n": 1}])
    assert outcome.trace == [{"span": "llm", "tokens": 12}]
    assert "trace line 2 is not JSON" in outcome.log


async def test_a_fatal_message_fails_every_row_without_restarts(tmp_path: Path) -> None:
    script = '''
    import json, sys
    with open("starts.txt", "a") as f:
        f.write("x")
    print(json.dumps({"fatal": "no API key in the environment"}), flush=True)
    sys.exit(3)
    '''
    config = make_config(tmp_path, script, concurrency=1)
    outcomes = await run_rows(config, [{"n": i} for i in range(5)])
    assert all(o.error and "no API key in the environment" in o.error for o in outcomes)
    assert (tmp_path / "starts.txt").read_text() == "x"


async def test_a_worker_that_cannot_start_stops_being_restarted(tmp_path: Path) -> None:
    script = '''
    import sys
    with open("starts.txt", "a") as f:
        f.write("x")
    print("ImportError: no module named agent", file=sys.stderr)
    sys.exit(1)
    '''
    config = make_config(tmp_path, script, concurrency=1)
    outcomes = await run_rows(config, [{"n": i} for i in range(10)])
    assert all(o.error for o in outcomes)
    assert "no module named agent" in outcomes[-1].error
    assert "stopped restarting" in outcomes[-1].error
    assert len((tmp_path / "starts.txt").read_text()) == MAX_STARTUP_DEATHS


async def test_a_missing_program_is_a_clear_error(tmp_path: Path) -> None:
    config = make_config(tmp_path, argv=[str(tmp_path / "no-such-program")])
    outcomes = await run_rows(config, [{"n": 1}, {"n": 2}])
    assert all(o.error and "could not start" in o.error for o in outcomes)


async def test_big_integers_and_unicode_round_trip_exactly(tmp_path: Path) -> None:
    script = '''
    import json, sys
    for line in sys.stdin:
        req = json.loads(line)
        print(json.dumps({"id": req["id"], "output": req["inputs"]}), flush=True)
    '''
    value = {"big": 2**80 + 1, "text": "naïve — ✓\nline", "nested": [1.5, None, True]}
    (outcome,) = await run_rows(make_config(tmp_path, script), [value])
    assert outcome.output == value and outcome.output["big"] == 2**80 + 1


async def test_engine_streams_results_and_logs_and_leaves_no_process_behind(tmp_path: Path) -> None:
    sets = tmp_path / "evals" / "default" / "eval-sets"
    evaluators = tmp_path / "evals" / "default" / "evaluators"
    sets.mkdir(parents=True)
    evaluators.mkdir(parents=True)
    (evaluators / "exact.json").write_text(json.dumps({
        "id": "exact", "evaluatorTypeId": "uipath-exact-match", "evaluatorConfig": {"targetOutputKey": "double"}}))
    rows = [{"id": f"row-{i}", "name": f"row {i}", "inputs": {"n": i},
             "evaluationCriterias": {"exact": {"expectedOutput": {"double": 2 * i}}}} for i in range(8)]
    (sets / "numbers.json").write_text(json.dumps({"evaluatorRefs": ["exact"], "evaluations": rows}))
    config = make_config(tmp_path, concurrency=3)
    events: list = []
    report = await Engine(config).run_iteration(Trigger("run"), on_event=events.append)
    assert [r.verdict for r in report.results] == [Verdict.PASS] * 8
    assert sum(isinstance(e, ResultReady) for e in events) == 8
    assert any(isinstance(e, RowLog) and e.line == "row 3 on stderr" and e.key.row_id == "row-3" for e in events)
    pids = {r.actual["pid"] for r in report.results}
    assert not survivors(pids, 30)


async def test_cancelling_mid_row_kills_the_workers(tmp_path: Path) -> None:
    pidfile = tmp_path / "grandchild.pid"
    config = make_config(tmp_path, concurrency=1, timeout=60)
    await cancel_once_started(make_runner(config), request({"act": "hang", "pidfile": str(pidfile)}), pidfile)
    assert not survivors([int(pidfile.read_text())], 30)



async def test_crashes_on_some_rows_never_stop_the_restarts_once_the_target_has_answered(tmp_path: Path) -> None:
    config = make_config(tmp_path, concurrency=1)
    rows = [{"n": 1}] + [{"act": "die", "n": i} for i in range(MAX_STARTUP_DEATHS + 1)] + [{"n": 9}]
    outcomes = await run_rows(config, rows)
    assert all(o.error and "exited with code 7" in o.error for o in outcomes[1:-1])
    assert outcomes[-1].ok and outcomes[-1].output["double"] == 18


async def test_a_large_reply_arrives_whole(tmp_path: Path) -> None:
    script = '''
    import json, sys
    for line in sys.stdin:
        req = json.loads(line)
        items = [{"i": i, "text": "x" * 40} for i in range(req["inputs"]["count"])]
        print(json.dumps({"id": req["id"], "output": {"items": items}}), flush=True)
    '''
    (outcome,) = await run_rows(make_config(tmp_path, script), [{"count": 30000}])
    assert outcome.ok and len(outcome.output["items"]) == 30000 and outcome.output["items"][-1]["i"] == 29999


async def test_a_reply_over_max_output_mb_is_refused(tmp_path: Path) -> None:
    script = '''
    import json, sys
    for line in sys.stdin:
        req = json.loads(line)
        print(json.dumps({"id": req["id"], "output": "x" * 200000}), flush=True)
    '''
    config = make_config(tmp_path, script)
    config.runner.max_output_mb = 0.05
    (outcome,) = await run_rows(config, [{}])
    assert outcome.error and "max_output_mb" in outcome.error


async def test_what_a_worker_logs_at_start_up_lands_in_its_first_rows_log(tmp_path: Path) -> None:
    script = '''
    import json, sys
    print("loading the model", file=sys.stderr, flush=True)
    for line in sys.stdin:
        req = json.loads(line)
        print(json.dumps({"id": req["id"], "output": 1}), flush=True)
    '''
    first, second = (await run_rows(make_config(tmp_path, script, concurrency=1), [{}, {}]))
    assert "loading the model" in first.log and "loading the model" not in second.log
