"""Issue 20, case 17: the warm parent can't stall an iteration, charges its imports to the rows' timeouts
as a fresh process would, and imports only what the script imports whenever it runs.

The hanging pieces are third-party modules (on PYTHONPATH, outside the project, so the parent preloads
them) that hang only in the parent: rows that fall back to fresh processes then pass, which shows the
fallback gave them the verdict a fresh run gives.
"""

from __future__ import annotations

import asyncio
import sys
import textwrap
import time
from pathlib import Path

import pytest
from helpers.checks import survivors

from workbench.config import Config
from workbench.runners import RunOutcome, RunRequest, make_runner, warm_parent
from workbench.runners.preload import PreloadRunner, forked_budget
from workbench.runners.zygote_main import top_level_imports

# Blocks forever, but only in the warm parent (a row's environment names the row).
IN_PARENT = 'import os, threading\nif "WORKBENCH_ROW_ID" not in os.environ:\n    {}\n'


def project(tmp_path: Path, script: str, modules: dict[str, str], *, timeout: float = 60.0) -> Config:
    root, lib = tmp_path / "proj", tmp_path / "lib"
    root.mkdir()
    lib.mkdir()
    for name, source in modules.items():
        (lib / f"{name}.py").write_text(textwrap.dedent(source))
    (root / "target.py").write_text(textwrap.dedent(script))
    config = Config(root=root)
    config.runner.kind = "command"
    config.runner.command = [sys.executable, "target.py"]
    config.runner.timeout = timeout
    config.runner.concurrency = 4
    config.runner.env = {"PYTHONPATH": str(lib)}
    return config


def run_rows(config: Config, rows: list[dict[str, object]], logs: list[str]) -> tuple[list[RunOutcome], PreloadRunner]:
    async def go() -> tuple[list[RunOutcome], PreloadRunner]:
        runner = make_runner(config)
        assert isinstance(runner, PreloadRunner)
        try:
            outcomes = await asyncio.gather(*[
                runner.run(RunRequest(row, f"r{i}", f"row {i}", "set.json", "default"), logs.append)
                for i, row in enumerate(rows)])
            return list(outcomes), runner
        finally:
            await runner.aclose()

    return asyncio.run(go())


# -- the import scan ------------------------------------------------------------------------------------

def test_the_import_scan_takes_only_imports_that_run_whenever_the_script_runs() -> None:
    source = textwrap.dedent('''
        import a, b.c
        from d import x
        from . import local
        try:
            import e
        except ImportError:
            import not_if_e_imports
        else:
            import not_else
        finally:
            import f
        with open(__file__):
            import g
        if TYPE_CHECKING:
            import not_type_checking
        if False:
            import not_false
        if sys.version_info >= (3, 12):
            import not_conditional
        else:
            import not_else_branch
        for _ in range(1):
            import not_loop
        while False:
            import not_while
        def function():
            import not_function
        class Klass:
            import not_class_body
        if __name__ == "__main__":
            import h
            if flag:
                import not_nested_if
        if "__main__" == __name__:
            import i
    ''')
    assert top_level_imports(source) == ["a", "b.c", "d", "e", "f", "g", "h", "i"]


def test_a_module_imported_only_under_a_false_condition_is_never_imported_in_the_parent(tmp_path: Path) -> None:
    marker = tmp_path / "imported"
    script = """
        import json, sys
        if False:
            import sideeffect
        def later():
            import sideeffect
        print(json.dumps(1))
    """
    config = project(tmp_path, script, {"sideeffect": f"open({str(marker)!r}, 'a').close()\n"})
    logs: list[str] = []
    [outcome], runner = run_rows(config, [{}], logs)
    assert outcome.output == 1, outcome.error
    assert runner.fallback_reason is None
    assert not marker.exists()


# -- deadlines -------------------------------------------------------------------------------------------

def test_an_import_that_hangs_in_the_parent_falls_back_to_fresh_processes_within_the_row_timeout(
        tmp_path: Path) -> None:
    script = "import json, hangs\nprint(json.dumps('fresh'))\n"
    config = project(tmp_path, script, {"hangs": IN_PARENT.format("threading.Event().wait()")}, timeout=3.0)
    logs: list[str] = []
    started = time.monotonic()
    outcomes, runner = run_rows(config, [{}, {}, {}], logs)
    assert [o.output for o in outcomes] == ["fresh"] * 3, [o.error for o in outcomes]
    assert time.monotonic() - started < 30  # the parent's wait was bounded by the row timeout, not longer
    assert "after 3s" in str(runner.fallback_reason)
    assert len([line for line in logs if "preload off" in line]) == 1


def test_a_fork_hook_that_blocks_in_the_parent_falls_back_to_fresh_processes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(warm_parent, "FORK_TIMEOUT_S", 1.0)
    hook = IN_PARENT.format("os.register_at_fork(before=lambda: threading.Event().wait())")
    script = "import json, forkhook\nprint(json.dumps('fresh'))\n"
    config = project(tmp_path, script, {"forkhook": hook})
    logs: list[str] = []
    outcomes, runner = run_rows(config, [{}, {}, {}], logs)
    assert [o.output for o in outcomes] == ["fresh"] * 3, [o.error for o in outcomes]
    assert "did not fork a row within 1s" in str(runner.fallback_reason)
    assert len([line for line in logs if "preload off" in line]) == 1


def test_a_fork_hook_that_blocks_in_the_child_is_killed_with_the_parent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(warm_parent, "FORK_TIMEOUT_S", 1.0)
    pids = tmp_path / "hung-children"
    hook = f"""
        import os, threading
        def hang():
            with open({str(pids)!r}, "a") as handle:
                handle.write(f"{{os.getpid()}}\\n")
            threading.Event().wait()
        if "WORKBENCH_ROW_ID" not in os.environ:
            os.register_at_fork(after_in_child=hang)
    """
    config = project(tmp_path, "import json, childhook\nprint(json.dumps('fresh'))\n", {"childhook": hook})
    logs: list[str] = []
    outcomes, _runner = run_rows(config, [{}], logs)
    assert [o.output for o in outcomes] == ["fresh"], [o.error for o in outcomes]
    hung = [int(pid) for pid in pids.read_text().split()]
    assert hung
    assert not survivors(hung, 10), "a child stuck in its at-fork hook outlived the run"


def test_rows_in_flight_when_the_parent_is_stopped_run_again_as_fresh_processes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The second fork blocks the parent (so it can't report the first row's exit): after the deadline the
    first row, whose exit status died with the parent, runs again fresh instead of becoming an ERROR."""
    monkeypatch.setattr(warm_parent, "FORK_TIMEOUT_S", 1.0)
    second = tmp_path / "second-fork"
    hook = f"""
        import os, threading
        forks = []
        def before():
            forks.append(1)
            if len(forks) == 2:
                open({str(second)!r}, "w").close()
                threading.Event().wait()
        if "WORKBENCH_ROW_ID" not in os.environ:
            os.register_at_fork(before=before)
    """
    script = f"""
        import json, os, sys, time, secondhook
        row = json.load(sys.stdin)["row"]
        while row == 1 and not os.path.exists({str(second)!r}):  # row 1 runs until the second fork began
            time.sleep(0.01)
        print(json.dumps(row))
    """
    config = project(tmp_path, script, {"secondhook": hook})
    logs: list[str] = []

    async def go() -> list[RunOutcome]:
        runner = make_runner(config)
        try:
            first = asyncio.ensure_future(runner.run(RunRequest({"row": 1}, "r1", "one", "s.json", "d"), logs.append))
            assert isinstance(runner, PreloadRunner)
            while runner.warm_parent is None or not runner.warm_parent.forked_pids():
                await asyncio.sleep(0.01)  # until row 1 is forked and running
            second_row = runner.run(RunRequest({"row": 2}, "r2", "two", "s.json", "d"), logs.append)
            return list(await asyncio.gather(first, second_row))
        finally:
            await runner.aclose()

    outcomes = asyncio.run(go())
    assert [o.output for o in outcomes] == [1, 2], [o.error for o in outcomes]
    assert any("runs again as a fresh process" in line for line in logs)


# -- import time counts toward the row's timeout ----------------------------------------------------------

def test_a_forked_rows_budget_is_charged_the_parents_start_once() -> None:
    # parent started at t=10, ready at t=12 (2 s of imports); timeout 5 s
    assert forked_budget(5.0, requested=11.0, parent_ready=12.0, parent_start=2.0, now=12.0) == 3.0  # waited
    assert forked_budget(5.0, requested=10.0, parent_ready=12.0, parent_start=2.0, now=13.0) == 2.0
    assert forked_budget(5.0, requested=20.0, parent_ready=12.0, parent_start=2.0, now=20.0) == 3.0  # later row
    assert forked_budget(5.0, requested=20.0, parent_ready=12.0, parent_start=2.0, now=24.0) == -1.0


def test_the_parents_import_time_counts_toward_each_forked_rows_timeout(tmp_path: Path) -> None:
    """Imports that take 1.5 s in the parent: a row that then works 2 s times out at 3 s as a fresh process
    would (1.5 + 2 > 3), both when it waited for the parent and when it was forked later; a row that
    works 0.1 s passes either way (charged once, not twice)."""
    script = """
        import json, sys, time, slow
        seconds = json.load(sys.stdin)["work"]
        time.sleep(seconds)
        print(json.dumps(seconds))
    """
    config = project(tmp_path, script, {"slow": IN_PARENT.format("import time; time.sleep(1.5)")}, timeout=3.0)

    async def go() -> tuple[list[RunOutcome], list[RunOutcome]]:
        runner = make_runner(config)
        assert isinstance(runner, PreloadRunner)
        try:
            def row(work: float) -> asyncio.Future[RunOutcome]:
                return asyncio.ensure_future(runner.run(RunRequest({"work": work}, "r", "row", "s.json", "d")))

            waited = list(await asyncio.gather(row(0.1), row(2.0)))
            later = list(await asyncio.gather(row(0.1), row(2.0)))
            assert runner.fallback_reason is None
            return waited, later
        finally:
            await runner.aclose()

    waited, later = asyncio.run(go())
    for quick, slow in (waited, later):
        assert quick.output == 0.1, quick.error
        assert slow.error is not None and "timed out after 3s" in slow.error
