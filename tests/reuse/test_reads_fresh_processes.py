"""Issue 20, case 4 (attack #2): a Python target that runs as a fresh process records its reads as a forked
one does — `preload = false`, the warm parent's fallbacks, a command with interpreter options the warm parent
can't serve, a Python worker with interpreter options — by starting through `audited_main.py` with its
options kept (`python_command.py`). A Python command that can't be watched that way (`-c`) is marked
unseen (never re-scored); a command that is not Python (`uv run`, `sh`) stays unknown: ().
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from helpers.project import evaluator, make_project, row
from helpers.rescoring import run_reuse

from workbench.config import Config
from workbench.rescoring import reads
from workbench.runners import RunOutcome, RunRequest, make_runner
from workbench.runners.command import CommandRunner
from workbench.runners.preload import PreloadRunner
from workbench.runners.python_command import UNWATCHABLE, PythonCommand, parse_python_command
from workbench.runners.read_audit import UNSEEN

# The row's work: read a file outside the project, say which interpreter flags hold.
BODY = '''
import json, os, sys

def run(inputs):
    with open(os.path.join(inputs["outside"], "data.txt")) as handle:
        data = handle.read()
    return {"data": data, "dev_mode": sys.flags.dev_mode, "utf8": sys.flags.utf8_mode}
'''
SCRIPT = BODY + "\nprint(json.dumps(run(json.load(sys.stdin))))\n"
WORKER = BODY + textwrap.dedent('''
    for line in sys.stdin:
        request = json.loads(line)
        print(json.dumps({"id": request["id"], "output": run(request["inputs"])}), flush=True)
''')
# A module outside the project (on PYTHONPATH, so the warm parent preloads it) that ends the warm parent
# as it imports it, and does nothing in a row (a row's environment names the row).
KILLS_THE_PARENT = 'import os\nif "WORKBENCH_ROW_ID" not in os.environ:\n    os._exit(3)\n'


def project(tmp_path: Path, kind: str, argv: list[str], source: str) -> Config:
    root = tmp_path / "proj"
    root.mkdir(exist_ok=True)
    (root / "target.py").write_text(source)
    outside = tmp_path / "outside"
    outside.mkdir(exist_ok=True)
    (outside / "data.txt").write_text("outside data")
    config = Config(root=root)
    config.runner.kind = kind
    config.runner.command = argv
    config.runner.timeout = 60.0
    return config


def run_rows(config: Config, rows: list[dict[str, Any]], logs: list[str] | None = None,
             ) -> tuple[list[RunOutcome], object]:
    async def go() -> tuple[list[RunOutcome], object]:
        runner = make_runner(config)
        try:
            outcomes = [await runner.run(RunRequest(inputs, f"r{i}", f"row {i}", "set.json", "default"),
                                         logs.append if logs is not None else None)
                        for i, inputs in enumerate(rows)]
            return outcomes, runner
        finally:
            await runner.aclose()

    return asyncio.run(go())


# -- which commands are Python, and how they are split -----------------------------------------------------

@pytest.mark.parametrize(("argv", "split"), [
    (["python3", "t.py", "-x"], ((), ("t.py", "-x"))),
    (["python", "-u", "t.py"], (("-u",), ("t.py",))),
    (["python3.11", "-X", "dev", "-B", "t.py"], (("-X", "dev", "-B"), ("t.py",))),
    (["python", "-Xutf8", "-Wignore", "-OO", "-I", "t.py"], (("-Xutf8", "-Wignore", "-OO", "-I"), ("t.py",))),
    (["python", "-W", "error", "-uB", "t.py"], (("-W", "error", "-uB"), ("t.py",))),
    (["python", "-m", "pkg.mod", "a"], ((), ("-m", "pkg.mod", "a"))),
    (["python", "-um", "pkg"], (("-u",), ("-m", "pkg"))),
    (["python", "-mpkg", "a"], ((), ("-m", "pkg", "a"))),
    (["python", "-P", "--", "t.py"], (("-P", "--"), ("t.py",))),
    ([".venv/bin/python", "agent.py"], ((), ("agent.py",))),
])
def test_a_python_command_keeps_its_interpreter_options_in_front_of_the_bootstrap(
        argv: list[str], split: tuple[tuple[str, ...], tuple[str, ...]]) -> None:
    command = parse_python_command(argv)
    assert isinstance(command, PythonCommand)
    assert (command.options, command.target) == split
    audited = command.audited("/tmp/x.reads")
    assert audited[:1 + len(split[0])] == [argv[0], *split[0]]
    assert audited[len(split[0]) + 1].endswith("audited_main.py")
    assert audited[len(split[0]) + 2:] == ["/tmp/x.reads", *split[1]]
    assert command.audited("/tmp/x.reads", trust_subprocesses=True)[len(split[0]) + 2] == "-t"


@pytest.mark.parametrize(("argv", "named"), [
    (["python", "-c", "print(1)"], "(-c)"), (["python", "-i", "t.py"], "(-i)"), (["python", "-x", "t.py"], "(-x)"),
    (["python", "--check-hash-based-pycs", "always", "t.py"], "(--check-hash-based-pycs)"),
    (["python", "-X"], "(-X without its argument)"),
])
def test_options_that_change_what_runs_cant_be_watched(argv: list[str], named: str) -> None:
    assert parse_python_command(argv) == f"{UNWATCHABLE} {named}"


@pytest.mark.parametrize("argv", [["python"], ["python", "-u"], ["python", "-"]])
def test_a_program_on_stdin_cant_be_watched(argv: list[str]) -> None:
    reason = parse_python_command(argv)
    assert isinstance(reason, str) and "stdin" in reason


@pytest.mark.parametrize("argv", [["uv", "run", "python", "t.py"], ["poetry", "run", "python", "t.py"],
                                  ["/usr/bin/env", "python3", "t.py"], ["node", "bot.js"], ["sh", "-c", "x"], []])
def test_commands_that_start_python_themselves_are_not_python(argv: list[str]) -> None:
    assert parse_python_command(argv) is None


def test_the_unseen_marker_is_the_one_reuse_reads() -> None:
    assert UNSEEN == reads.UNSEEN_READS


# -- every fresh Python process records its reads ----------------------------------------------------------

@pytest.mark.parametrize("how", ["preload off", "warm parent died", "-X dev (preload can't serve it)",
                                 "worker with -X utf8"])
def test_a_fresh_python_process_records_what_it_reads(tmp_path: Path, how: str) -> None:
    outside = tmp_path / "outside"
    if how == "worker with -X utf8":
        config = project(tmp_path, "worker", [sys.executable, "-X", "utf8", "target.py"], WORKER)
    elif how.startswith("-X dev"):
        config = project(tmp_path, "command", [sys.executable, "-X", "dev", "target.py"], SCRIPT)
    else:
        source = "import killsparent\n" + SCRIPT if how == "warm parent died" else SCRIPT
        config = project(tmp_path, "command", [sys.executable, "target.py"], source)
        config.runner.preload = how != "preload off"
        lib = tmp_path / "lib"
        lib.mkdir()
        (lib / "killsparent.py").write_text(KILLS_THE_PARENT)
        config.runner.env = {"PYTHONPATH": str(lib)}
    logs: list[str] = []
    outcomes, runner = run_rows(config, [{"outside": str(outside)}] * 2, logs)
    if how == "preload off":
        assert type(runner) is CommandRunner
    elif how != "worker with -X utf8":
        assert isinstance(runner, PreloadRunner) and runner.fallback_reason is not None
        assert any("preload off, one process per row" in line for line in logs)
    for outcome in outcomes:
        assert outcome.error is None, outcome.error
        assert outcome.output["data"] == "outside data"
        assert outcome.output["dev_mode"] is how.startswith("-X dev")  # the option holds for the target
        assert outcome.output["utf8"] == (1 if "utf8" in how else 0)
        assert str(outside / "data.txt") in outcome.reads
        assert str(outside / "data.txt") in outcome.read_stats
        assert str(config.root / "target.py") in outcome.reads
        assert not [path for path in outcome.reads if path.startswith("\x00")]


PROBE = """
import json, sys
print(json.dumps({"file": __file__ if "__file__" in dir() else None, "argv": sys.argv, "path": sys.path,
                  "orig_argv": sys.orig_argv, "flags": list(sys.flags), "name": __name__,
                  "warnings": [str(f[0]) + str(f[2]) for f in __import__("warnings").filters[:3]],
                  "code": sys._getframe().f_code.co_filename}))
"""


@pytest.mark.parametrize("command", [["target.py", "--a", "b"], ["-X", "dev", "-B", "target.py"],
                                     ["-I", "target.py"], ["-P", "target.py"], ["-Wignore", "-O", "target.py"],
                                     ["-um", "target", "x"], ["-s", "-E", "target.py"]])
def test_the_bootstrap_shows_the_script_what_python_itself_would(tmp_path: Path, command: list[str]) -> None:
    config = project(tmp_path, "command", [sys.executable, *command], PROBE)
    config.runner.preload = False
    [audited], _ = run_rows(config, [{}])
    env = dict(os.environ)
    env.setdefault("PYTHONUNBUFFERED", "1")
    plain = subprocess.run([sys.executable, *command], cwd=config.root, env=env, input=b"{}", capture_output=True,
                           timeout=60)
    assert audited.error is None, audited.error
    expected = json.loads(plain.stdout)
    if "-um" in command:  # spelled apart in front of the bootstrap
        expected["orig_argv"] = [sys.executable, "-u", "-m", *command[1:]]
    assert audited.output == expected
    assert str(config.root / "target.py") in audited.reads


@pytest.mark.parametrize("source", ["import sys\ndef f():\n    raise ValueError('boom')\nf()\n", "x = (\n",
                                    "import sys\nsys.exit('bye')\n"])
def test_the_bootstrap_leaves_no_frame_in_a_traceback_and_exits_as_python_would(tmp_path: Path, source: str) -> None:
    config = project(tmp_path, "command", [sys.executable, "target.py"], source)
    config.runner.preload = False
    [audited], _ = run_rows(config, [{}])
    plain = subprocess.run([sys.executable, "target.py"], cwd=config.root, input=b"{}", capture_output=True,
                           timeout=60)
    assert plain.returncode == 1
    assert "exited with code 1" in (audited.error or "")
    assert audited.log.strip() == plain.stderr.decode().strip()


# -- what can't be watched is unseen, what isn't Python is unknown ---------------------------------------

def test_a_python_command_that_cant_be_watched_is_marked_unseen(tmp_path: Path) -> None:
    code = SCRIPT.replace('os.path.join(inputs["outside"], "data.txt")', 'inputs["path"]')
    config = project(tmp_path, "command", [sys.executable, "-c", code], "")
    [outcome], _ = run_rows(config, [{"outside": "", "path": str(tmp_path / "outside" / "data.txt")}])
    assert outcome.error is None, outcome.error
    assert outcome.reads == (f"{UNSEEN}{UNWATCHABLE} (-c)",)


def test_a_python_worker_that_cant_be_watched_is_marked_unseen(tmp_path: Path) -> None:
    config = project(tmp_path, "worker", [sys.executable, "-c", WORKER], "")
    outcomes, _ = run_rows(config, [{"outside": str(tmp_path / "outside")}] * 2)
    for outcome in outcomes:
        assert outcome.error is None, outcome.error
        assert outcome.reads == (f"{UNSEEN}{UNWATCHABLE} (-c)",)


def test_a_command_that_starts_python_itself_reads_nothing_known(tmp_path: Path) -> None:
    config = project(tmp_path, "command", ["/bin/sh", "-c", f'exec "{sys.executable}" target.py'], SCRIPT)
    [outcome], _ = run_rows(config, [{"outside": str(tmp_path / "outside")}])
    assert outcome.error is None, outcome.error
    assert outcome.reads == ()


# -- end to end: a fresh process's read of a changed file reruns the row ---------------------------------

READER = """\
import json, sys
inputs = json.load(sys.stdin)
print(json.dumps({"v": open(inputs["read"]).read().strip()}))
"""


@pytest.mark.parametrize(("command", "extra"), [(["{python}", "agent.py"], "preload = false\n"),
                                                (["{python}", "-B", "agent.py"], ""),
                                                (["{python}", "-c", READER], "")])
def test_run_reuse_reruns_a_fresh_process_whose_read_changed(tmp_path: Path, command: list[str], extra: str) -> None:
    data = tmp_path / "outside" / "value.txt"
    data.parent.mkdir()
    data.write_text("one\n")
    toml = f"[runner]\nkind = \"command\"\ncommand = {json.dumps(command)}\ntimeout = 30\n{extra}"
    root = make_project(tmp_path / "project", sets={"echo": [row("r", {"read": str(data)}, {"v": "one"})]},
                        evaluators={"exact-match-evaluator": evaluator("*")}, config=toml,
                        files={"agent.py": READER})
    assert run_reuse(root)[0] == [("PASS", False)]
    data.write_text("two\n")  # a fresh run now answers {"v": "two"}
    verdicts, why = run_reuse(root)
    assert verdicts == [("FAIL", False)]
    assert ("can't watch through (-c)" if "-c" in command else "a file it read changed") in why["r"]


def _old_pythons() -> list[str]:
    """Interpreters too old for audit hooks that this machine happens to have (none: the test skips)."""
    import glob

    found = [*glob.glob(os.path.expanduser("~/.pyenv/versions/2.7*/bin/python")),
             *glob.glob(os.path.expanduser("~/.pyenv/versions/3.[67].*/bin/python")),
             *glob.glob("/usr/bin/python2.7"), *glob.glob("/usr/bin/python3.[67]")]
    return sorted(set(found))[:3]


OLD_SCRIPT = """\
import json, sys
inputs = json.load(sys.stdin)
print(json.dumps({"v": open(inputs["path"]).read().strip(), "argv": sys.argv[1:], "path0": sys.path[0]}))
"""


@pytest.mark.parametrize("interpreter", _old_pythons() or [pytest.param("", marks=pytest.mark.skip("no old Python"))])
def test_a_python_too_old_for_audit_hooks_still_runs_and_is_never_rescored(tmp_path: Path, interpreter: str) -> None:
    config = project(tmp_path, "command", [interpreter, "target.py", "--x"], OLD_SCRIPT)
    config.runner.preload = False
    [outcome], _ = run_rows(config, [{"path": str(tmp_path / "outside" / "data.txt")}])
    assert outcome.error is None, outcome.error
    assert outcome.output == {"v": "outside data", "argv": ["--x"], "path0": os.path.realpath(config.root)}
    assert len(outcome.reads) == 1 and outcome.reads[0].startswith(f"{UNSEEN}python ")
    assert outcome.reads[0].endswith(" has no audit hooks")
