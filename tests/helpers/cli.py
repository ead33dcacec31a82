"""Run the real `workbench` CLI the way a user does, in a fresh interpreter, and read what it printed.

``run_workbench("run", str(root))`` never raises on exit codes; ``run_json`` adds ``--json`` and parses the
document; ``verdicts`` and ``result_for`` pick results out of it.

``closing_fixture`` makes a fixture that starts processes and closes every one of them when the test ends.

``invoke_workbench`` / ``invoke_json`` do the same in this process through click's CliRunner (no interpreter
to start: several times faster) and give back the same fields; what a fresh interpreter would not have (the
environment, the working folder, judge answers remembered in memory) is set as it would be. Tests use them;
the subprocess is for the tests where signals, process trees, the console script, stdin/tty behaviour, stdout's
bytes or state kept between processes (the reaper) matter, marked `@pytest.mark.process("why")` (conftest.py
fails a test that starts workbench without it).
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

import pytest
from click.testing import CliRunner

from helpers.project import EXACT


def cli_env(**extra: str) -> dict[str, str]:
    """The environment for a CLI subprocess: no colour, no progress line, nothing inherited that matters."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("WORKBENCH_", "FORCE_COLOR"))}
    env.update({"NO_COLOR": "1", "WORKBENCH_NO_PROGRESS": "1", "PYTHONIOENCODING": "utf-8"})
    env.update(extra)
    return env


def run_workbench(*args: str, cwd: Path | None = None, env: Mapping[str, str] | None = None,
                  timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """`workbench ARGS...` in a fresh interpreter, as a user would run it; never raises on exit codes."""
    return subprocess.run([sys.executable, "-m", "workbench", *args], cwd=cwd, env=dict(env or cli_env()),
                          capture_output=True, text=True, timeout=timeout, encoding="utf-8", errors="replace")


def run_json(*args: str, **kwargs: Any) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    """`workbench run ... --json`; returns the process and the parsed document."""
    return _parsed(run_workbench(*args, "--json", **kwargs))


@dataclass
class Invoked:
    """What `workbench ARGS...` run in this process printed, with the fields of a CompletedProcess."""

    args: list[str]
    returncode: int
    stdout: str
    stderr: str


@contextlib.contextmanager
def _cwd(path: Path | None) -> Iterator[None]:
    before = Path.cwd()
    if path is not None:
        os.chdir(path)
    try:
        yield
    finally:
        os.chdir(before)


def invoke_workbench(*args: str, cwd: Path | None = None, env: Mapping[str, str] | None = None,
                     input: str | None = None) -> Invoked:
    """`workbench ARGS...` through click's CliRunner, in the environment `env` (default `cli_env()`) as a
    subprocess would have it, and in `cwd`; never raises on exit codes, but a traceback fails the test."""
    from workbench.cli import main
    from workbench.runners.strays import MARK_ENV
    from workbench.scoring.judge_client import clear_cache

    clear_cache()  # a fresh interpreter starts with no judge answer in memory: the next must come from .workbench/

    wanted = dict(env or cli_env())
    # CliRunner lays its env over this process's: unset what the subprocess would not have had, but keep
    # this process's stray mark, which the targets it starts must carry for the end-of-run sweep.
    overlay: dict[str, str | None] = {key: None for key in os.environ if key not in wanted and key != MARK_ENV}
    overlay.update(wanted)
    overlay.pop(MARK_ENV, None)
    with _cwd(cwd):
        result = CliRunner(env=overlay).invoke(main, list(args), input=input, catch_exceptions=False)
    return Invoked(list(args), result.exit_code, result.stdout, result.stderr)


def invoke_json(*args: str, **kwargs: Any) -> tuple[Invoked, dict[str, Any]]:
    """`workbench run ... --json` in this process; returns what it printed and the parsed document."""
    return _parsed(invoke_workbench(*args, "--json", **kwargs))


def _parsed(proc: Any) -> tuple[Any, dict[str, Any]]:
    try:
        doc = json.loads(proc.stdout)
    except json.JSONDecodeError:
        pytest.fail(f"--json printed no JSON document (exit {proc.returncode})\nstdout:\n{proc.stdout}\n"
                    f"stderr:\n{proc.stderr}")
    return proc, doc


def verdicts(doc: Mapping[str, Any]) -> dict[str, str]:
    """{"row name [evaluator]": verdict} from a --json document."""
    return {f"{r['row_name']} [{r['evaluator']}]": r["verdict"] for r in doc["results"]}


def result_for(doc: Mapping[str, Any], row_name: str, evaluator_ref: str = EXACT) -> dict[str, Any]:
    matches = [r for r in doc["results"] if r["row_name"] == row_name and r["evaluator"] == evaluator_ref]
    assert len(matches) == 1, f"expected one result for {row_name!r} [{evaluator_ref}], got {doc['results']}"
    return matches[0]


class _Closes(Protocol):
    def close(self) -> None: ...


Closes = TypeVar("Closes", bound=_Closes)


def closing_fixture(make: Callable[..., Closes]) -> Any:
    """A pytest fixture giving a starter that calls `make`; when the test ends, everything it made is closed.
    In a test module: `watch = closing_fixture(WatchProcess)`, then `watch(root, "--until-green")` in a test."""

    @pytest.fixture
    def starter() -> Iterator[Callable[..., Closes]]:
        made: list[Closes] = []

        def start(*args: Any, **kwargs: Any) -> Closes:
            made.append(make(*args, **kwargs))
            return made[-1]

        yield start
        for item in made:
            item.close()

    return starter
