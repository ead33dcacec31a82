"""`kind = "python"`: a plain `module:function` (sync or async) becomes a target, no protocol code."""

from __future__ import annotations

import asyncio
import json
import textwrap
from pathlib import Path

import pytest
from helpers.runners import cancel_once_started

from workbench.config import Config, ConfigError, RunnerConfig, load_config
from workbench.engine import Engine
from workbench.events import Trigger
from workbench.model import Verdict
from workbench.runners import RunRequest, make_runner
from workbench.runners.python_target import PythonRunner

AGENT = '''
import asyncio, json, os, sys

calls = 0

class Unprintable(Exception):
    def __str__(self):
        raise RuntimeError("no words")

def answer(inputs):
    global calls
    calls += 1
    print(f"thinking about {inputs.get('q')}")          # stdout: must land in the log, not the protocol
    print("stderr line", file=sys.stderr)
    if inputs.get("q") == "boom":
        raise ValueError("cannot answer boom")
    if inputs.get("q") == "exit":
        sys.exit(4)
    if inputs.get("q") == "unprintable":
        raise Unprintable()
    if inputs.get("q") == "set":
        return {1, 2}
    if inputs.get("q") == "nan":
        return {"x": float("nan")}
    if inputs.get("q") == "trace":
        with open(os.environ["WORKBENCH_TRACE"], "a") as f:
            f.write(json.dumps({"tool": "search"}) + "\\n")
    return {"answer": str(inputs.get("q")).upper(), "calls": calls, "pid": os.getpid()}

_loop_ids = []

async def answer_async(inputs):
    await asyncio.sleep(0)
    _loop_ids.append(id(asyncio.get_running_loop()))
    return {"answer": inputs["q"] * 2, "loops": len(set(_loop_ids))}

class Agent:
    @staticmethod
    def run(inputs):
        return inputs["q"]
'''


def write_agent(root: Path, source: str = AGENT) -> None:
    (root / "agentpkg").mkdir(exist_ok=True)
    (root / "agentpkg" / "__init__.py").write_text("", encoding="utf-8")
    (root / "agentpkg" / "agent.py").write_text(textwrap.dedent(source), encoding="utf-8")


def make_config(root: Path, callable_: str = "agentpkg.agent:answer", *, concurrency: int = 1,
                timeout: float = 20.0) -> Config:
    write_agent(root)
    return Config(root=root, runner=RunnerConfig(kind="python", callable=callable_, concurrency=concurrency,
                                                 timeout=timeout))


def request(inputs: dict) -> RunRequest:
    return RunRequest(inputs=inputs, row_id="r", row_name="r", set_file="s.json", scope="default")


async def run_rows(config: Config, rows: list[dict]) -> list:
    runner = make_runner(config)
    try:
        return [await runner.run(request(r)) for r in rows]
    finally:
        await runner.aclose()


def test_callable_in_the_config_file_selects_the_python_runner(tmp_path: Path) -> None:
    (tmp_path / "workbench.toml").write_text('[runner]\ncallable = "agentpkg.agent:answer"\n')
    assert isinstance(make_runner(load_config(tmp_path)), PythonRunner)


def test_python_kind_needs_a_callable(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="callable"):
        make_runner(Config(root=tmp_path, runner=RunnerConfig(kind="python")))


@pytest.mark.parametrize("spec", ["agentpkg.agent", "agentpkg.agent:", ":answer", "agent-pkg:run", "a:b:c"])
def test_a_malformed_callable_is_a_config_error(tmp_path: Path, spec: str) -> None:
    with pytest.raises(ConfigError, match=r"package\.module:function"):
        make_runner(Config(root=tmp_path, runner=RunnerConfig(kind="python", callable=spec)))


async def test_a_sync_function_serves_rows_in_one_warm_process(tmp_path: Path) -> None:
    outcomes = await run_rows(make_config(tmp_path), [{"q": "a"}, {"q": "b"}, {"q": "c"}])
    assert [o.output["answer"] for o in outcomes] == ["A", "B", "C"]
    assert [o.output["calls"] for o in outcomes] == [1, 2, 3]
    assert len({o.output["pid"] for o in outcomes}) == 1


async def test_prints_go_to_the_rows_log(tmp_path: Path) -> None:
    first, second = await run_rows(make_config(tmp_path), [{"q": "a"}, {"q": "b"}])
    assert "thinking about a" in first.log and "stderr line" in first.log
    assert "thinking about b" in second.log and "thinking about a" not in second.log


async def test_a_rows_last_log_lines_are_its_own_when_its_reply_is_read_first(tmp_path: Path, monkeypatch) -> None:
    """The loop reads stdout and stderr separately: on a loaded machine the reply may be taken before the log
    lines written (and flushed) ahead of it. Here the loop never reads stderr at all (its reading paused), so
    only the reply's own draining of the pipe can put them in the row they belong to."""
    from workbench.runners import worker

    real_start = worker.Worker.start

    async def start_with_stderr_paused(self: worker.Worker, *args: object) -> None:
        await real_start(self, *args)  # type: ignore[arg-type]
        assert self.transport is not None
        stderr = self.transport.get_pipe_transport(2)
        assert isinstance(stderr, asyncio.ReadTransport)
        stderr.pause_reading()

    monkeypatch.setattr(worker.Worker, "start", start_with_stderr_paused)
    first, second = await run_rows(make_config(tmp_path), [{"q": "a"}, {"q": "b"}])
    assert first.ok and "thinking about a" in first.log and "stderr line" in first.log
    assert "thinking about b" in second.log and "stderr line" in second.log and "thinking about a" not in second.log


async def test_an_exception_is_that_rows_error_with_the_traceback_in_the_log(tmp_path: Path) -> None:
    boom, after = await run_rows(make_config(tmp_path), [{"q": "boom"}, {"q": "ok"}])
    assert boom.error and "agentpkg.agent:answer raised ValueError: cannot answer boom" in boom.error
    assert "Traceback" in boom.log and 'agent.py", line' in boom.log
    assert "worker_main" not in boom.log  # only the user's frames
    assert after.ok and after.output["calls"] == 2  # same process carried on


async def test_an_exception_whose_str_raises_is_that_rows_error_and_the_worker_lives(tmp_path: Path) -> None:
    unprintable, after = await run_rows(make_config(tmp_path), [{"q": "unprintable"}, {"q": "ok"}])
    assert unprintable.error and "Unprintable (its str() raised RuntimeError: no words)" in unprintable.error
    assert after.ok and after.output["calls"] == 2, "the same worker took the next row"


async def test_sys_exit_and_non_json_results_are_row_errors(tmp_path: Path) -> None:
    exited, a_set, nan, after = await run_rows(make_config(tmp_path), [{"q": "exit"}, {"q": "set"}, {"q": "nan"},
                                                                       {"q": "ok"}])
    assert exited.error and "SystemExit: 4" in exited.error
    assert a_set.error and "not JSON" in a_set.error and "set" in a_set.error
    assert nan.error and "not JSON" in nan.error
    assert after.ok


async def test_async_functions_share_one_event_loop_across_rows(tmp_path: Path) -> None:
    outcomes = await run_rows(make_config(tmp_path, "agentpkg.agent:answer_async"), [{"q": "x"}, {"q": "y"}])
    assert [o.output for o in outcomes] == [{"answer": "xx", "loops": 1}, {"answer": "yy", "loops": 1}]


async def test_attribute_paths_name_methods(tmp_path: Path) -> None:
    (outcome,) = await run_rows(make_config(tmp_path, "agentpkg.agent:Agent.run"), [{"q": 41}])
    assert outcome.output == 41


@pytest.mark.parametrize(("spec", "expected"), [
    ("agentpkg.missing:answer", "ModuleNotFoundError"),
    ("agentpkg.agent:nope", "AttributeError"),
    ("agentpkg.agent:calls", "not a function"),
])
async def test_a_callable_that_cannot_load_fails_every_row_with_the_reason(tmp_path: Path, spec: str,
                                                                           expected: str) -> None:
    outcomes = await run_rows(make_config(tmp_path, spec), [{"q": "a"}, {"q": "b"}])
    for outcome in outcomes:
        assert outcome.error and "could not load" in outcome.error and expected in outcome.error


async def test_trace_file_named_by_workbench_trace(tmp_path: Path) -> None:
    traced, plain = await run_rows(make_config(tmp_path), [{"q": "trace"}, {"q": "a"}])
    assert traced.trace == [{"tool": "search"}]
    assert plain.trace == []


async def test_a_hung_function_times_out_and_the_next_row_gets_a_fresh_process(tmp_path: Path) -> None:
    source = AGENT + '''
def slow(inputs):
    import os, time
    if inputs["q"] == "hang":
        time.sleep(600)
    return {"pid": os.getpid()}
'''
    # 5 s, not less: the fresh process after the hung one must start and answer within the same timeout
    # on a loaded machine.
    config = make_config(tmp_path, "agentpkg.agent:slow", timeout=5)
    write_agent(tmp_path, source)
    hung, after = await run_rows(config, [{"q": "hang"}, {"q": "ok"}])
    assert hung.error and "timed out after 5s" in hung.error
    assert after.ok


async def test_project_modules_shadow_nothing_of_workbench(tmp_path: Path) -> None:
    # `config` and `model` are also module names inside the workbench package; the user's win.
    (tmp_path / "config.py").write_text("VALUE = 'users config'\n")
    (tmp_path / "model.py").write_text("from config import VALUE\ndef run(inputs):\n    return VALUE\n")
    (outcome,) = await run_rows(make_config(tmp_path, "model:run"), [{}])
    assert outcome.output == "users config"


async def test_each_iteration_imports_the_code_afresh(tmp_path: Path) -> None:
    sets = tmp_path / "evals" / "default" / "eval-sets"
    evaluators = tmp_path / "evals" / "default" / "evaluators"
    sets.mkdir(parents=True)
    evaluators.mkdir(parents=True)
    (evaluators / "exact.json").write_text(json.dumps({"id": "exact", "evaluatorTypeId": "uipath-exact-match",
                                                       "evaluatorConfig": {"targetOutputKey": "*"}}))
    rows = [{"id": "r1", "name": "greets", "inputs": {"name": "Ada"},
             "evaluationCriterias": {"exact": {"expectedOutput": {"greeting": "Hello, Ada"}}}}]
    (sets / "greet.json").write_text(json.dumps({"evaluatorRefs": ["exact"], "evaluations": rows}))
    write_agent(tmp_path, "def greet(inputs):\n    return {'greeting': 'Hi, ' + inputs['name']}\n")
    config = Config(root=tmp_path, runner=RunnerConfig(kind="python", callable="agentpkg.agent:greet"))
    engine = Engine(config)
    first = await engine.run_iteration(Trigger("start"))
    assert [r.verdict for r in first.results] == [Verdict.FAIL]
    write_agent(tmp_path, "def greet(inputs):\n    return {'greeting': 'Hello, ' + inputs['name']}\n")
    second = await engine.run_iteration(Trigger("change", ("agentpkg/agent.py",)))
    assert [r.verdict for r in second.results] == [Verdict.PASS]


async def test_the_worker_loads_nothing_heavy_before_the_users_code(tmp_path: Path) -> None:
    source = AGENT + '''
def loaded(inputs):
    import sys
    return sorted(m for m in sys.modules if m.split(".")[0] in ("workbench", "textual", "orjson", "asyncio"))
'''
    config = make_config(tmp_path, "agentpkg.agent:loaded")
    write_agent(tmp_path, source.replace("import asyncio, json, os, sys", "import json, os, sys"))
    (outcome,) = await run_rows(config, [{}])
    assert outcome.output == []


async def test_cancelling_kills_the_python_worker(tmp_path: Path) -> None:
    source = AGENT + '''
def stuck(inputs):
    import os, time
    open("pid.txt", "w").write(str(os.getpid()))
    time.sleep(600)
'''
    config = make_config(tmp_path, "agentpkg.agent:stuck", timeout=60)
    write_agent(tmp_path, source)
    pid_file = tmp_path / "pid.txt"
    await cancel_once_started(make_runner(config), request({}), pid_file)
    pid = int(pid_file.read_text())
    assert not Path(f"/proc/{pid}").exists() or Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z"
