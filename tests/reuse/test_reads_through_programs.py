"""Issue 20, case 4 (attack #3): what a Python target reads through another program or a native library.

A target that starts another program (`subprocess`, `os.system`, `os.exec*`, `multiprocessing`'s spawn)
ends its reads with the unseen marker naming the program, so it is never re-scored; with `[cache]
trust_subprocesses` the program's executable is a read instead (given to the child on its command line,
never in its environment). A library loaded with `ctypes` is a read. Every Python kind is driven through
the runner API (forked, fresh, `kind = "python"`, a Python worker), then the CLI shows the verdicts.
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import sys
import sysconfig
import textwrap
from pathlib import Path
from typing import Any

import pytest
from helpers.project import evaluator, make_project, row
from helpers.rescoring import run_reuse
from helpers.runners import rows_in_turn

from workbench.config import Config
from workbench.runners import RunOutcome
from workbench.runners.read_audit import UNSEEN

KINDS = ("preload", "fresh", "python", "worker")

# `run(inputs)` does what inputs["do"] says; every kind calls it.
BODY = '''
import ctypes, json, os, subprocess, sys

def _same(x):
    return x

def run(inputs):
    do, path = inputs["do"], inputs.get("path")
    out = {}
    if do == "subprocess":
        out["v"] = subprocess.run(["cat", path], capture_output=True, text=True).stdout.strip()
    elif do == "missing":
        try:
            subprocess.run(["workbench-no-such-program"])
        except FileNotFoundError:
            out["v"] = "missing"
    elif do == "system":
        out["v"] = os.system("true")
    elif do == "execvp":
        pid = os.fork()
        if pid == 0:
            os.execvp("true", ["true"])
        out["v"] = os.waitpid(pid, 0)[1]
    elif do == "spawn":
        import multiprocessing
        with multiprocessing.get_context("spawn").Pool(1) as pool:
            out["v"] = pool.map(_same, [1])
    elif do == "dlopen":
        ctypes.CDLL(path)
        out["v"] = "loaded"
    elif do == "environ":
        out["v"] = sorted(os.environ)
    return out
'''

WRAPPERS = {
    "preload": '\nif __name__ == "__main__":\n    print(json.dumps(run(json.load(sys.stdin))))\n',
    "fresh": '\nif __name__ == "__main__":\n    print(json.dumps(run(json.load(sys.stdin))))\n',
    "worker": textwrap.dedent('''
        if __name__ == "__main__":
            for line in sys.stdin:
                request = json.loads(line)
                print(json.dumps({"id": request["id"], "output": run(request["inputs"])}), flush=True)
    '''),
    "python": "",
}


def project(tmp_path: Path, kind: str, *, trust: bool = False) -> Config:
    root = tmp_path / "proj"
    root.mkdir(parents=True, exist_ok=True)
    outside = tmp_path / "outside"
    outside.mkdir(exist_ok=True)
    (outside / "flag").write_text("on\n")
    config = Config(root=root)
    config.runner.timeout = 60.0
    config.cache.trust_subprocesses = trust
    (root / "agent.py").write_text(BODY + WRAPPERS[kind])
    if kind == "python":
        config.runner.kind = "python"
        config.runner.callable = "agent:run"
    else:
        config.runner.kind = "worker" if kind == "worker" else "command"
        config.runner.command = [sys.executable, "agent.py"]
        config.runner.preload = kind == "preload"
    return config


def one(config: Config, inputs: dict[str, Any]) -> RunOutcome:
    [outcome] = rows_in_turn(config, [inputs])
    assert outcome.error is None, outcome.error
    return outcome


def unseen(outcome: RunOutcome) -> str | None:
    markers = [path for path in outcome.reads if path.startswith(UNSEEN)]
    assert len(markers) <= 1 and (not markers or outcome.reads[-1] == markers[0])  # one, and last
    return markers[0][len(UNSEEN):] if markers else None


CAT = os.path.normpath(shutil.which("cat") or "/bin/cat")


@pytest.mark.parametrize("kind", KINDS)
def test_a_target_that_starts_another_program_has_unseen_reads_naming_it(tmp_path: Path, kind: str) -> None:
    config = project(tmp_path, kind)
    outcome = one(config, {"do": "subprocess", "path": str(tmp_path / "outside" / "flag")})
    assert outcome.output == {"v": "on"}
    assert unseen(outcome) == f"it started another program ({CAT})"


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(("do", "program"), [("system", "/bin/sh"), ("execvp", None), ("spawn", None)])
def test_os_system_exec_and_multiprocessing_spawn_are_programs_too(tmp_path: Path, kind: str, do: str,
                                                                   program: str | None) -> None:
    config = project(tmp_path, kind)
    outcome = one(config, {"do": do})
    why = unseen(outcome)
    assert why is not None and why.startswith("it started another program (")
    if program is not None:
        assert why == f"it started another program ({program})"


@pytest.mark.parametrize("kind", KINDS)
def test_trusted_programs_are_reads_of_their_executable(tmp_path: Path, kind: str) -> None:
    config = project(tmp_path, kind, trust=True)
    outcome = one(config, {"do": "subprocess", "path": str(tmp_path / "outside" / "flag")})
    assert outcome.output == {"v": "on"}
    assert unseen(outcome) is None
    assert CAT in outcome.reads
    # the PATH folders before it were looked in too: a `cat` that appears there would run instead
    folders = os.environ["PATH"].split(os.pathsep)
    earlier = folders[:folders.index(os.path.dirname(CAT))] if os.path.dirname(CAT) in folders else []
    for folder in earlier:
        assert os.path.normpath(os.path.join(folder, "cat")) in outcome.reads


@pytest.mark.parametrize("trust", [False, True])
def test_a_program_that_is_not_found_starts_nothing_and_the_places_looked_in_are_reads(
        tmp_path: Path, trust: bool) -> None:
    config = project(tmp_path, "fresh", trust=trust)
    outcome = one(config, {"do": "missing"})
    assert outcome.output == {"v": "missing"}
    assert unseen(outcome) is None
    cwd = os.path.realpath(config.root)  # relative PATH entries are looked up in the cwd
    for folder in os.environ["PATH"].split(os.pathsep):
        assert os.path.normpath(os.path.join(cwd, folder, "workbench-no-such-program")) in outcome.reads


@pytest.mark.parametrize("kind", ["preload", "python", "worker"])
def test_trust_is_given_on_the_command_line_not_in_the_environment(tmp_path: Path, kind: str) -> None:
    untrusted = one(project(tmp_path / "a", kind), {"do": "environ"})
    trusted = one(project(tmp_path / "b", kind, trust=True), {"do": "environ"})
    assert untrusted.output == trusted.output


def _shared_libraries() -> list[str]:
    """Two shared objects of different sizes from the interpreter's own extension modules."""
    found = sorted(glob.glob(os.path.join(sysconfig.get_path("platstdlib"), "lib-dynload", "*.so")),
                   key=os.path.getsize)
    if len(found) < 2:
        pytest.skip("no extension modules as files to load with ctypes")
    return [found[0], found[-1]]


@pytest.mark.parametrize("kind", KINDS)
def test_a_library_loaded_with_ctypes_is_a_read(tmp_path: Path, kind: str) -> None:
    config = project(tmp_path, kind)
    library = tmp_path / "outside" / "libthing.so"
    shutil.copyfile(_shared_libraries()[0], library)
    outcome = one(config, {"do": "dlopen", "path": str(library)})
    assert outcome.output == {"v": "loaded"}
    assert str(library) in outcome.reads
    assert unseen(outcome) is None


# -- end to end --------------------------------------------------------------------------------------------

CAT_TARGET = """\
import json, subprocess, sys
inputs = json.load(sys.stdin)
print(json.dumps({"v": subprocess.run(["cat", inputs["path"]], capture_output=True, text=True).stdout.strip()}))
"""

DLOPEN_TARGET = """\
import ctypes, json, os, sys
inputs = json.load(sys.stdin)
ctypes.CDLL(inputs["path"])
print(json.dumps({"v": os.path.getsize(inputs["path"])}))
"""


def _project(tmp_path: Path, rows: list[dict[str, Any]], target: str, extra: str = "") -> Path:
    toml = f'[runner]\nkind = "command"\ncommand = ["{{python}}", "agent.py"]\ntimeout = 30\n{extra}'
    return make_project(tmp_path / "project", sets={"echo": rows}, evaluators={"exact-match-evaluator": evaluator("*")},
                        config=toml, files={"agent.py": target})


def _verdicts(root: Path) -> tuple[list[tuple[str, bool]], str]:
    verdicts, why = run_reuse(root)
    return verdicts, why.get("r", "")


def test_run_reuse_never_rescores_a_target_that_started_another_program(tmp_path: Path) -> None:
    flag = tmp_path / "outside" / "flag"
    flag.parent.mkdir()
    flag.write_text("on\n")
    root = _project(tmp_path, [row("r", {"path": str(flag)}, {"v": "on"})], CAT_TARGET)
    assert _verdicts(root)[0] == [("PASS", False)]
    flag.write_text("off\n")  # read by `cat`, not by the target: a fresh run FAILs
    verdicts, why = _verdicts(root)
    assert verdicts == [("FAIL", False)]
    assert f"it started another program ({CAT})" in why


def test_trusted_programs_let_the_row_be_rescored_and_inputs_name_what_they_read(tmp_path: Path) -> None:
    flag = tmp_path / "outside" / "flag"
    flag.parent.mkdir()
    flag.write_text("on\n")
    root = _project(tmp_path, [row("r", {"path": str(flag)}, {"v": "on"})], CAT_TARGET,
                    f"[cache]\ntrust_subprocesses = true\ninputs = [{json.dumps(str(flag))}]\n")
    assert _verdicts(root)[0] == [("PASS", False)]
    assert _verdicts(root)[0] == [("PASS", True)]  # nothing changed: re-scored
    flag.write_text("off\n")
    assert _verdicts(root)[0] == [("FAIL", False)]


def test_run_reuse_reruns_a_target_whose_ctypes_library_changed(tmp_path: Path) -> None:
    small, large = _shared_libraries()
    library = tmp_path / "outside" / "libanswer.so"
    library.parent.mkdir()
    shutil.copyfile(small, library)
    root = _project(tmp_path, [row("r", {"path": str(library)}, {"v": os.path.getsize(small)})], DLOPEN_TARGET)
    assert _verdicts(root)[0] == [("PASS", False)]
    shutil.copyfile(large, library.with_name("new.so"))
    library.with_name("new.so").replace(library)
    verdicts, why = _verdicts(root)
    assert verdicts == [("FAIL", False)]
    assert "libanswer.so" in why
