"""The warm-parent runner (`[runner] preload`) behaves like a fresh `python script.py` per row.

Every script runs twice, once forked from the warm parent and once as a fresh process, and the row
outcomes are compared: what the target printed, its exit status, its log, its errors.
"""

from __future__ import annotations

import asyncio
import os
import sys
import textwrap
import time
from pathlib import Path

import pytest

from workbench.config import Config
from workbench.runners import RunOutcome, RunRequest, make_runner
from workbench.runners.command import CommandRunner
from workbench.runners.preload import PreloadRunner
from workbench.runners.warm_parent import PreloadPlan, plan_preload


def _config(root: Path, argv: list[str], *, preload: bool = True, timeout: float = 20.0) -> Config:
    config = Config(root=root)
    config.runner.kind = "command"
    config.runner.command = argv
    config.runner.preload = preload
    config.runner.timeout = timeout
    return config


def _run(config: Config, inputs: dict[str, object] | None = None, row: str = "r1") -> tuple[RunOutcome, object]:
    async def go() -> tuple[RunOutcome, object]:
        runner = make_runner(config)
        logs: list[str] = []
        try:
            outcome = await runner.run(RunRequest(inputs or {}, row, f"name {row}", "set.json", "default"), logs.append)
        finally:
            await runner.aclose()
        return outcome, runner

    return asyncio.run(go())


def _both(root: Path, script: str, args: tuple[str, ...] = (), inputs: dict[str, object] | None = None,
          timeout: float = 20.0) -> tuple[RunOutcome, RunOutcome]:
    (root / "target.py").write_text(textwrap.dedent(script))
    argv = [sys.executable, "target.py", *args]
    warm, runner = _run(_config(root, argv, timeout=timeout), inputs)
    assert isinstance(runner, PreloadRunner) and runner.fallback_reason is None, "the warm parent was not used"
    fresh, plain = _run(_config(root, argv, preload=False, timeout=timeout), inputs)
    assert type(plain) is CommandRunner
    return warm, fresh


def test_argv_env_cwd_and_stdin_match_a_fresh_process(tmp_path: Path) -> None:
    script = """
        import json, os, sys
        data = json.load(sys.stdin)
        print(json.dumps({"argv": sys.argv, "cwd": os.getcwd(), "row": os.environ["WORKBENCH_ROW_ID"],
                          "trace": "WORKBENCH_TRACE" in os.environ, "name": __name__, "file": __file__,
                          "x": data["x"], "eof": sys.stdin.read() == "", "path0": sys.path[0]}))
    """
    warm, fresh = _both(tmp_path, script, ("--flag", "two words"), {"x": 21})
    assert warm.error is None, warm.error
    assert warm.output == fresh.output
    assert warm.output["argv"] == ["target.py", "--flag", "two words"]
    assert warm.output["eof"] is True


def test_main_guard_runs(tmp_path: Path) -> None:
    script = """
        import json
        def main():
            print(json.dumps({"ran": True}))
        if __name__ == "__main__":
            main()
    """
    warm, fresh = _both(tmp_path, script)
    assert warm.output == fresh.output == {"ran": True}


@pytest.mark.parametrize("ending, expected", [
    ("sys.exit(3)", "exited with code 3"),
    ("sys.exit('it went wrong')", "exited with code 1"),
    ("raise ValueError('boom')", "exited with code 1"),
])
def test_exit_statuses_and_messages_match(tmp_path: Path, ending: str, expected: str) -> None:
    script = f"""
        import sys
        print("partial output", flush=True)
        {ending}
    """
    warm, fresh = _both(tmp_path, script)
    assert warm.error is not None and fresh.error is not None
    assert expected in warm.error and expected in fresh.error
    assert warm.log == fresh.log
    if "raise" in ending:
        assert "Traceback" in warm.log and "target.py" in warm.log
        assert "zygote" not in warm.log and "runpy" not in warm.log  # only the script's frames


def test_buffered_stdout_is_flushed_at_exit_and_atexit_runs(tmp_path: Path) -> None:
    script = """
        import atexit, json, sys
        sys.stdout = open(1, "w", buffering=1 << 16, closefd=False)  # fully buffered, flushed only at exit
        atexit.register(lambda: print("bye from atexit", file=sys.stderr))
        print(json.dumps({"done": True}))
    """
    warm, fresh = _both(tmp_path, script)
    assert warm.output == fresh.output == {"done": True}
    assert "bye from atexit" in warm.log


def test_random_is_reseeded_per_row(tmp_path: Path) -> None:
    (tmp_path / "target.py").write_text("import json, random\nprint(json.dumps(random.random()))\n")
    config = _config(tmp_path, [sys.executable, "target.py"])

    async def go() -> list[object]:
        runner = make_runner(config)
        try:
            outcomes = await asyncio.gather(*[runner.run(RunRequest({}, f"r{i}", "", "s.json", "d")) for i in range(4)])
        finally:
            await runner.aclose()
        return [o.output for o in outcomes]

    values = asyncio.run(go())
    assert len(set(map(str, values))) == 4


def test_timeout_kills_the_row_and_its_grandchildren(tmp_path: Path) -> None:
    marker = tmp_path / "grandchild.pid"
    script = f"""
        import subprocess, sys, time
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        open({str(marker)!r}, "w").write(str(child.pid))
        time.sleep(600)
    """
    (tmp_path / "target.py").write_text(textwrap.dedent(script))
    started = time.monotonic()
    outcome, _ = _run(_config(tmp_path, [sys.executable, "target.py"], timeout=5))  # time to start under load
    assert outcome.error is not None and "timed out after 5s" in outcome.error
    assert time.monotonic() - started < 300, "the run waited for the target's sleep"  # a hang guard only
    pid = int(marker.read_text())
    deadline = time.monotonic() + 30  # a hang guard: it stops as soon as the grandchild is gone
    while time.monotonic() < deadline and _alive(pid):
        time.sleep(0.05)
    assert not _alive(pid), "the grandchild outlived the timeout"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is dead for our purposes
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


def test_dash_m_modules_run_like_python_dash_m(tmp_path: Path) -> None:
    package = tmp_path / "agent"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "__main__.py").write_text(
        "import json, sys\nprint(json.dumps({'name': __name__, 'argv': sys.argv[1:], 'in': json.load(sys.stdin)}))\n")
    argv = [sys.executable, "-m", "agent", "go"]
    warm, runner = _run(_config(tmp_path, argv), {"q": 1})
    assert isinstance(runner, PreloadRunner) and runner.fallback_reason is None
    fresh, _ = _run(_config(tmp_path, argv, preload=False), {"q": 1})
    assert warm.output == fresh.output == {"name": "__main__", "argv": ["go"], "in": {"q": 1}}


def test_third_party_imports_are_preloaded_but_project_code_never_runs_in_the_parent(tmp_path: Path) -> None:
    (tmp_path / "helper.py").write_text("import os\nopen('helper-imported-' + str(os.getpid()), 'w').close()\n")
    (tmp_path / "target.py").write_text("import json, decimal, helper\nprint(json.dumps(1))\n")
    config = _config(tmp_path, [sys.executable, "target.py"])

    async def go() -> list[str]:
        runner = make_runner(config)
        assert isinstance(runner, PreloadRunner)
        try:
            outcome = await runner.run(RunRequest({}, "r", "", "s.json", "d"))
            assert outcome.output == 1
            assert runner.warm_parent is not None
            return runner.warm_parent.preloaded
        finally:
            await runner.aclose()

    preloaded = asyncio.run(go())
    assert "decimal" in preloaded and "helper" not in preloaded
    assert len(list(tmp_path.glob("helper-imported-*"))) == 1  # once, by the row's child only


def test_each_runner_starts_a_new_parent_so_edits_take_effect(tmp_path: Path) -> None:
    (tmp_path / "target.py").write_text("print(1)\n")
    config = _config(tmp_path, [sys.executable, "target.py"])
    assert _run(config)[0].output == 1
    (tmp_path / "target.py").write_text("print(2)\n")
    assert _run(config)[0].output == 2


def test_what_preload_cannot_serve_falls_back_and_says_so_once(tmp_path: Path) -> None:
    assert plan_preload(["node", "agent.js"], tmp_path) is None
    assert "not found" in str(plan_preload([sys.executable, "missing.py"], tmp_path))
    assert "not supported" in str(plan_preload([sys.executable, "-X", "dev", "t.py"], tmp_path))
    (tmp_path / "t.py").write_text("print(1)\n")
    assert isinstance(plan_preload([sys.executable, "-u", "t.py"], tmp_path), PreloadPlan)

    config = _config(tmp_path, [sys.executable, "-X", "utf8", "t.py"])
    logs: list[str] = []

    async def go() -> list[object]:
        runner = make_runner(config)
        try:
            return [(await runner.run(RunRequest({}, f"r{i}", "", "s.json", "d"), logs.append)).output
                    for i in range(3)]
        finally:
            await runner.aclose()

    assert asyncio.run(go()) == [1, 1, 1]
    notes = [line for line in logs if "preload off" in line]
    assert len(notes) == 1 and "-X" in notes[0]


def test_preload_false_opts_out(tmp_path: Path) -> None:
    (tmp_path / "t.py").write_text("print(1)\n")
    runner = make_runner(_config(tmp_path, [sys.executable, "t.py"], preload=False))
    assert type(runner) is CommandRunner
