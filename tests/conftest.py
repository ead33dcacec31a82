"""Fixtures and hooks only. Tests sit in one folder per feature (tests/tui/, tests/dialects/<name>/, ...);
the helpers live in the `tests/helpers/` package (`pythonpath = ["tests"]` in pyproject.toml puts this
folder on sys.path, so tests anywhere import them as `from helpers.project import make_project, row`):

* `helpers.project` — fixture projects (`make_project`, `row`, `evaluator`, `COMMAND_CONFIG`, ...)
* `helpers.cli` — run the real CLI in a fresh interpreter (`run_workbench`, `run_json`, `cli_env`, ...) or,
  where only its output and exit code matter, in this process (`invoke_workbench`, `invoke_json`)
* `helpers.paths` — where examples/, tests/fixtures/ and workbench/ are
* `helpers.checks` — `tree_digest` (nothing was written), `process_alive`
* `helpers.tui`, `helpers.watch`, `helpers.writeback`, `helpers.hardening` — per-area harnesses

The fixtures below hand out the same functions for tests that prefer fixtures to imports.

The hooks below sort tests into lanes (pyproject's markers): `browser` (takes the `chromium` fixture), `cluster`
(tests/cluster, or the Ray xdist group), `sdk` (takes `uipath_sdk`); `slow` is marked by hand. The quick lane is
`-m "not slow and not browser and not cluster and not sdk"`. And a test that starts `workbench` as a separate
process must say why with `@pytest.mark.process("why")`: the rest call it in this process (`invoke_workbench`).
"""

from __future__ import annotations

import signal
import subprocess
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from helpers.cli import run_workbench
from helpers.project import make_project

# A run started in the background (`cmd &` in a script, nohup, some CI and IDE runners) inherits SIGINT
# ignored, and so would every workbench the tests start: the Ctrl-C tests would wait for an exit that
# never comes. The tests stand in for a terminal's Ctrl-C, so they get Python's own handler back
# (xdist workers import this file too, and the children they start then get the default action).
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(name="make_project")
def _make_project_fixture():
    return make_project


@pytest.fixture(name="run_workbench")
def _run_workbench_fixture():
    return run_workbench


# -- lanes ---------------------------------------------------------------------------------------------------

_TESTS = Path(__file__).parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        fixtures = getattr(item, "fixturenames", ())
        if "chromium" in fixtures:
            item.add_marker(pytest.mark.browser)
        group = item.get_closest_marker("xdist_group")
        if _TESTS / "cluster" in item.path.parents or (group is not None and "ray" in group.args):
            item.add_marker(pytest.mark.cluster)
        if "uipath_sdk" in fixtures:
            item.add_marker(pytest.mark.sdk)
        process = item.get_closest_marker("process")
        if process is not None and not (process.args and isinstance(process.args[0], str) and process.args[0]):
            raise pytest.UsageError(f"{item.nodeid}: @pytest.mark.process needs its reason, e.g. "
                                    '@pytest.mark.process("a signal sent to the real process")')


# -- the process boundary, named -----------------------------------------------------------------------------

_running: list[pytest.Item] = []
_popen_init = subprocess.Popen.__init__


def _starts_workbench(args: Any) -> bool:
    """`python -m workbench ...` or the `workbench` console script."""
    argv = [str(a) for a in args] if isinstance(args, list | tuple) else str(args).split()
    if argv and Path(argv[0]).name == "workbench":
        return True
    return any(flag == "-m" and module == "workbench" for flag, module in pairwise(argv))


def _watched_init(self: subprocess.Popen[Any], args: Any, *rest: Any, **kwargs: Any) -> None:
    if _running and _starts_workbench(args) and _running[-1].get_closest_marker("process") is None:
        raise AssertionError(f"{_running[-1].nodeid} starts workbench as a separate process ({args!r}) without "
                             '@pytest.mark.process("why"): call helpers.cli.invoke_workbench, or name the reason')
    _popen_init(self, args, *rest, **kwargs)


subprocess.Popen.__init__ = _watched_init  # type: ignore[method-assign]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    _running.append(item)
    try:
        return (yield)
    finally:
        _running.pop()
