"""Issue 20, case 18: a row forked from the warm parent looks like `python script.py` to the script.

Each test runs the same script once forked from the warm parent and once as a fresh process, and
compares what it observed. What can't be the same is listed in docs/running.md's preload section (`hash()`
of str is randomised per warm parent, not per row, unless PYTHONHASHSEED is set).
"""

from __future__ import annotations

import asyncio
import sys
import textwrap
from pathlib import Path

import pytest

from workbench.config import Config
from workbench.runners import RunOutcome, RunRequest, make_runner
from workbench.runners.command import CommandRunner
from workbench.runners.preload import PreloadRunner


def _config(root: Path, argv: list[str], *, preload: bool, env: dict[str, str] | None = None) -> Config:
    config = Config(root=root)
    config.runner.kind = "command"
    config.runner.command = argv
    config.runner.preload = preload
    config.runner.timeout = 60.0
    config.runner.env = dict(env or {})
    return config


def _run(config: Config) -> tuple[RunOutcome, object]:
    async def go() -> tuple[RunOutcome, object]:
        runner = make_runner(config)
        try:
            return await runner.run(RunRequest({"q": 1}, "r1", "row", "set.json", "default")), runner
        finally:
            await runner.aclose()

    return asyncio.run(go())


def warm_and_fresh(root: Path, script: str | None, argv: list[str],
                   env: dict[str, str] | None = None) -> tuple[RunOutcome, RunOutcome]:
    if script is not None:
        (root / "target.py").write_text(textwrap.dedent(script))
    warm, runner = _run(_config(root, argv, preload=True, env=env))
    assert isinstance(runner, PreloadRunner) and runner.fallback_reason is None, "the warm parent was not used"
    fresh, plain = _run(_config(root, argv, preload=False, env=env))
    assert type(plain) is CommandRunner
    return warm, fresh


@pytest.mark.parametrize("closing", ["sys.stdout.close()", "os.close(1)", "sys.stdout = None"])
def test_a_script_that_closes_stdout_after_its_output_is_not_an_error(tmp_path: Path, closing: str) -> None:
    script = f"""
        import json, os, sys
        print(json.dumps({{"done": True}}), flush=True)
        {closing}
    """
    warm, fresh = warm_and_fresh(tmp_path, script, [sys.executable, "target.py"])
    assert fresh.error is None, fresh.error
    assert warm.error is None, warm.error
    assert warm.output == fresh.output == {"done": True}


PROBE = """
    import json, sys
    print(json.dumps({"file": __file__, "argv": sys.argv, "code": sys._getframe().f_code.co_filename,
                      "path0": sys.path[0], "orig_argv": sys.orig_argv, "flags": list(sys.flags)}))
"""


@pytest.mark.parametrize("command", [["link.py"], ["linkdir/real.py"], ["./linkdir/../link.py", "--x", "y"]])
def test_a_script_reached_through_a_symlink_keeps_the_path_it_was_given(tmp_path: Path, command: list[str]) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "real.py").write_text(textwrap.dedent(PROBE))
    (tmp_path / "link.py").symlink_to(tmp_path / "real" / "real.py")
    (tmp_path / "linkdir").symlink_to(tmp_path / "real", target_is_directory=True)
    warm, fresh = warm_and_fresh(tmp_path, None, [sys.executable, *command])
    assert warm.error is None, warm.error
    assert warm.output == fresh.output
    assert warm.output["file"].endswith(command[0].lstrip("."))  # not resolved to real/real.py
    assert warm.output["argv"][0] == command[0]


@pytest.mark.parametrize("options", [[], ["-u"]])
def test_orig_argv_and_flags_look_like_the_command_line(tmp_path: Path, options: list[str]) -> None:
    warm, fresh = warm_and_fresh(tmp_path, PROBE, [sys.executable, *options, "target.py", "a", "b c"])
    assert warm.error is None, warm.error
    assert warm.output == fresh.output
    assert warm.output["orig_argv"] == [sys.executable, *options, "target.py", "a", "b c"]


STDIO = """
    import json, sys
    def describe(stream):
        return {"name": stream.name, "mode": stream.mode, "encoding": stream.encoding, "errors": stream.errors,
                "line_buffering": stream.line_buffering, "write_through": stream.write_through,
                "buffer": type(stream.buffer).__name__,
                "raw": type(getattr(stream.buffer, "raw", stream.buffer)).__name__}
    print(json.dumps({name: describe(getattr(sys, name)) for name in ("stdin", "stdout", "stderr")}), flush=True)
    sys.stderr.write("a last line without a newline")
    import os
    os._exit(0)  # what is buffered now is lost; a write-through stderr has written it already
"""


@pytest.mark.parametrize("unbuffered", ["1", ""])
def test_stdio_is_buffered_as_in_a_fresh_interpreter(tmp_path: Path, unbuffered: str) -> None:
    warm, fresh = warm_and_fresh(tmp_path, STDIO, [sys.executable, "target.py"], {"PYTHONUNBUFFERED": unbuffered})
    assert fresh.error is None and warm.error is None, (fresh.error, warm.error)
    assert warm.output == fresh.output
    assert warm.output["stderr"]["write_through"] is bool(unbuffered)
    assert warm.log == fresh.log
    assert ("a last line without a newline" in warm.log) is bool(unbuffered)


def test_an_uncaught_keyboard_interrupt_ends_the_row_as_sigint_after_atexit(tmp_path: Path) -> None:
    script = """
        import atexit, sys
        atexit.register(lambda: print("atexit ran", file=sys.stderr))
        print("partial", flush=True)
        raise KeyboardInterrupt
    """
    warm, fresh = warm_and_fresh(tmp_path, script, [sys.executable, "target.py"])
    assert fresh.error is not None and "killed by SIGINT" in fresh.error
    assert warm.error is not None and "killed by SIGINT" in warm.error
    assert warm.log == fresh.log
    assert warm.log.index("KeyboardInterrupt") < warm.log.index("atexit ran")


def test_a_syntax_error_in_the_script_shows_no_workbench_frames(tmp_path: Path) -> None:
    warm, fresh = warm_and_fresh(tmp_path, "x = (\n", [sys.executable, "target.py"])
    assert warm.error is not None and fresh.error is not None
    assert warm.log == fresh.log
    assert "Traceback" not in warm.log and "SyntaxError" in warm.log


def test_an_uncaught_exception_shows_the_scripts_frames_only_and_a_custom_excepthook_gets_them(
        tmp_path: Path) -> None:
    script = """
        import sys
        def hook(kind, value, tb):
            frames = []
            while tb is not None:
                frames.append(tb.tb_frame.f_code.co_filename)
                tb = tb.tb_next
            print("frames:", frames, file=sys.stderr)
        sys.excepthook = hook
        def fail():
            raise ValueError("boom")
        fail()
    """
    warm, fresh = warm_and_fresh(tmp_path, script, [sys.executable, "target.py"])
    assert "exited with code 1" in (warm.error or "") and "exited with code 1" in (fresh.error or "")
    assert warm.log == fresh.log
    assert "zygote" not in warm.log and "script_main" not in warm.log


def test_the_recursion_headroom_is_a_fresh_interpreters(tmp_path: Path) -> None:
    script = """
        import json
        def down(depth):
            try:
                return down(depth + 1)
            except RecursionError:
                return depth
        print(json.dumps(down(0)))
    """
    warm, fresh = warm_and_fresh(tmp_path, script, [sys.executable, "target.py"])
    assert warm.error is None, warm.error
    assert warm.output == fresh.output


def test_str_hashes_match_a_fresh_interpreter_when_pythonhashseed_is_set(tmp_path: Path) -> None:
    script = """
        import json
        print(json.dumps([hash("abc"), hash(b"abc")]))
    """
    warm, fresh = warm_and_fresh(tmp_path, script, [sys.executable, "target.py"], {"PYTHONHASHSEED": "123"})
    assert warm.error is None, warm.error
    assert warm.output == fresh.output


def test_dash_m_tracebacks_match_python_dash_m(tmp_path: Path) -> None:
    package = tmp_path / "agent"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "__main__.py").write_text("import sys\nprint(sys.argv[0] == __file__)\nraise ValueError('boom')\n")
    warm, fresh = warm_and_fresh(tmp_path, None, [sys.executable, "-m", "agent"])
    assert warm.log == fresh.log
    assert "zygote" not in warm.log and "script_main" not in warm.log


def test_exit_flushes_as_a_fresh_interpreter(tmp_path: Path) -> None:
    """A file the script never closed is flushed at exit; a stdout that can't be flushed then exits 120."""
    (tmp_path / "target.py").write_text(textwrap.dedent("""
        import json, os
        out = open("written.txt", "w")
        out.write("kept")
        print(json.dumps(1))
        os.close(1)
    """))
    outcomes = []
    for preload in (True, False):
        outcome, _ = _run(_config(tmp_path, [sys.executable, "target.py"], preload=preload,
                                  env={"PYTHONUNBUFFERED": ""}))
        outcomes.append(outcome)
        assert (tmp_path / "written.txt").read_text() == "kept"
        (tmp_path / "written.txt").unlink()
    warm, fresh = outcomes
    assert fresh.error is not None and "exited with code 120" in fresh.error
    assert warm.error == fresh.error
    assert warm.log == fresh.log
