"""Issue 20, case 4 (the recording side): the Python children workbench controls record the files a row
read (`RunOutcome.reads`), so re-scoring can fingerprint what lies outside the project.

Every kind is driven through the runner API: `kind = "python"` (worker_main.py), `kind = "command"` forked
from the warm parent (zygote_main.py), and a Python `kind = "worker"` (started through script_main.py).
"""

from __future__ import annotations

import json
import os
import py_compile
import sys
import textwrap
from pathlib import Path

import pytest
from helpers.runners import rows_in_turn

import workbench
from workbench.config import Config
from workbench.runners.read_audit import UNBOUNDED
from workbench.runners.worker import WorkerRunner

KINDS = ("python", "preload", "worker")

# The row's work, the same for every kind: `run(inputs)` returns what it read.
BODY = '''
import json, os, sys

def run(inputs):
    base = inputs["outside"]
    with open(os.path.join(base, "data.txt")) as handle:
        data = handle.read()
    return {"data": data, "names": sorted(os.listdir(os.path.join(base, "folder")))}
'''

# How each kind calls `run`.
WRAPPERS = {
    "preload": "\nprint(json.dumps(run(json.load(sys.stdin))))\n",
    "worker": textwrap.dedent('''
        for line in sys.stdin:
            request = json.loads(line)
            os.environ["WORKBENCH_TRACE"] = request["trace"]
            print(json.dumps({"id": request["id"], "output": run(request["inputs"])}), flush=True)
    '''),
    "python": "",
}


def project(tmp_path: Path, kind: str, body: str = BODY, *, env: dict[str, str] | None = None) -> Config:
    """A project in tmp_path/proj whose target is `body` run the `kind` way; tmp_path/outside holds data."""
    root = tmp_path / "proj"
    root.mkdir(exist_ok=True)
    outside = tmp_path / "outside"
    (outside / "folder").mkdir(parents=True, exist_ok=True)
    (outside / "data.txt").write_text("outside data")
    (outside / "folder" / "a.txt").write_text("a")
    source = textwrap.dedent(body) + WRAPPERS[kind]
    config = Config(root=root)
    config.runner.timeout = 60.0
    config.runner.env = dict(env or {})
    if kind == "python":
        (root / "agent.py").write_text(source)
        config.runner.kind = "python"
        config.runner.callable = "agent:run"
    else:
        (root / "target.py").write_text(source)
        config.runner.kind = "command" if kind == "preload" else "worker"
        config.runner.command = [sys.executable, "target.py"]
    return config


@pytest.mark.parametrize("kind", KINDS)
def test_a_file_read_and_a_folder_listed_outside_the_project_are_recorded(tmp_path: Path, kind: str) -> None:
    config = project(tmp_path, kind)
    outside = tmp_path / "outside"
    [outcome] = rows_in_turn(config, [{"outside": str(outside)}])
    assert outcome.error is None, outcome.error
    assert outcome.output == {"data": "outside data", "names": ["a.txt"]}  # stdout untouched by the recording
    assert str(outside / "data.txt") in outcome.reads
    assert str(outside / "folder") in outcome.reads
    assert UNBOUNDED not in outcome.reads
    assert len(outcome.reads) == len(set(outcome.reads))


@pytest.mark.parametrize("kind", KINDS)
def test_a_read_through_a_symlinked_folder_keeps_the_path_through_the_link(tmp_path: Path, kind: str) -> None:
    config = project(tmp_path, kind)
    (config.root / "linked").symlink_to(tmp_path / "outside", target_is_directory=True)
    [outcome] = rows_in_turn(config, [{"outside": "linked"}])  # relative to the cwd, the project root
    assert outcome.error is None, outcome.error
    root = os.path.realpath(config.root)  # the cwd, as the target's os.getcwd() gives it
    assert f"{root}/linked/data.txt" in outcome.reads
    assert f"{root}/linked/folder" in outcome.reads
    assert str(tmp_path / "outside" / "data.txt") not in outcome.reads  # not resolved


@pytest.mark.parametrize("kind", KINDS)
def test_reads_at_start_up_belong_to_every_row(tmp_path: Path, kind: str) -> None:
    """A module outside the project (on PYTHONPATH, so the warm parent preloads it) reads a file when it
    is imported: every row's reads include the module's source and that file, on every row."""
    lib = tmp_path / "lib"
    lib.mkdir()
    settings = tmp_path / "outside" / "settings.txt"
    (lib / "extlib.py").write_text(f"SETTINGS = open({str(settings)!r}).read()\n")
    py_compile.compile(str(lib / "extlib.py"), doraise=True)  # imports then read the cached .pyc
    body = "import extlib\n" + BODY
    config = project(tmp_path, kind, body, env={"PYTHONPATH": str(lib), "PYTHONDONTWRITEBYTECODE": ""})
    settings.write_text("x")
    outcomes = rows_in_turn(config, [{"outside": str(tmp_path / "outside")}] * 2)
    for outcome in outcomes:
        assert outcome.error is None, outcome.error
        assert str(settings) in outcome.reads
        assert str(lib / "extlib.py") in outcome.reads  # the source, not its __pycache__ file
        assert not any(path.endswith(".pyc") for path in outcome.reads)


@pytest.mark.parametrize("kind", KINDS)
def test_reads_after_chdir_in_threads_and_in_a_fork_are_recorded(tmp_path: Path, kind: str) -> None:
    body = BODY + '''
import threading

def read(path):
    with open(path) as handle:
        return handle.read()

_run = run

def run(inputs):
    base = inputs["outside"]
    result = _run(inputs)
    home = os.getcwd()
    os.chdir(os.path.join(base, "folder"))
    try:
        result["relative"] = read("a.txt")  # recorded as an absolute path, against the cwd of the moment
    finally:
        os.chdir(home)
    thread = threading.Thread(target=lambda: result.setdefault("thread", read(os.path.join(base, "t.txt"))))
    thread.start()
    thread.join()
    pid = os.fork()
    if pid == 0:
        read(os.path.join(base, "f.txt"))
        os._exit(0)
    os.waitpid(pid, 0)
    return result
'''
    config = project(tmp_path, kind, body)
    outside = tmp_path / "outside"
    (outside / "t.txt").write_text("t")
    (outside / "f.txt").write_text("f")
    [outcome] = rows_in_turn(config, [{"outside": str(outside)}])
    assert outcome.error is None, outcome.error
    assert outcome.output["relative"] == "a" and outcome.output["thread"] == "t"
    for name in ("folder/a.txt", "t.txt", "f.txt"):
        assert str(outside / name) in outcome.reads, name


@pytest.mark.parametrize("kind", KINDS)
def test_workbench_files_and_writes_are_not_reads(tmp_path: Path, kind: str) -> None:
    """The trace file workbench hands the row (even read back), workbench's own files, files opened only
    for writing and the pseudo filesystems are left out; a file opened with '+' counts as read."""
    body = BODY + '''
_run = run

def run(inputs, trace=None):
    result = _run(inputs)
    trace = os.environ.get("WORKBENCH_TRACE")
    if trace:
        with open(trace, "a") as handle:
            handle.write("{}\\n")
        open(trace).read()
    with open(os.path.join(inputs["outside"], "written.txt"), "w") as handle:
        handle.write("w")
    with open(os.path.join(inputs["outside"], "updated.txt"), "r+") as handle:
        handle.write("u")
    open("/proc/self/status").read()
    return result
'''
    config = project(tmp_path, kind, body)
    outside = tmp_path / "outside"
    (outside / "updated.txt").write_text("old")
    [outcome] = rows_in_turn(config, [{"outside": str(outside)}])
    assert outcome.error is None, outcome.error
    package = str(Path(workbench.__file__).parent)
    assert not [path for path in outcome.reads if path.startswith(package)]
    assert not [path for path in outcome.reads if "workbench-trace-" in path]
    assert str(outside / "written.txt") not in outcome.reads
    assert str(outside / "updated.txt") in outcome.reads
    assert not [path for path in outcome.reads if path.startswith("/proc/")]


@pytest.mark.parametrize("kind", KINDS)
def test_more_paths_than_the_cap_end_with_the_unbounded_marker(tmp_path: Path, kind: str) -> None:
    body = BODY + '''
_run = run

def run(inputs):
    for number in range(20_001):
        try:
            open(os.path.join(inputs["outside"], "missing", str(number)))
        except OSError:
            pass
    return _run(inputs)
'''
    config = project(tmp_path, kind, body)
    [outcome] = rows_in_turn(config, [{"outside": str(tmp_path / "outside")}])
    assert outcome.error is None, outcome.error
    assert outcome.reads[-1] == UNBOUNDED
    assert outcome.reads.count(UNBOUNDED) == 1
    assert len(outcome.reads) <= 20_002


def test_a_target_that_closes_every_descriptor_never_gets_the_records_in_its_own_file(tmp_path: Path) -> None:
    """The recording's descriptor may be closed by the target and its number reused for the target's own
    file: the records go to workbench's file (reopened by name), never into the target's."""
    body = BODY + '''
_run = run

def run(inputs):
    os.closerange(3, 4096)
    mine = os.path.join(inputs["outside"], "mine.txt")
    fds = [os.open(mine, os.O_WRONLY | os.O_CREAT) for _ in range(64)]  # the lowest free numbers
    result = _run(inputs)
    for fd in fds:
        os.close(fd)
    with open(mine, "rb") as handle:
        result["mine"] = handle.read().decode()
    return result
'''
    config = project(tmp_path, "preload", body)
    outside = tmp_path / "outside"
    [outcome] = rows_in_turn(config, [{"outside": str(outside)}])
    assert outcome.error is None, outcome.error
    assert outcome.output["mine"] == ""
    assert str(outside / "data.txt") in outcome.reads


def test_a_command_that_is_not_python_reads_nothing_known(tmp_path: Path) -> None:
    config = project(tmp_path, "preload")
    data = tmp_path / "outside" / "data.txt"
    config.runner.command = ["/bin/sh", "-c", 'cat "$0" > /dev/null; echo 1', str(data)]
    [outcome] = rows_in_turn(config, [{}])
    assert outcome.output == 1
    assert outcome.reads == ()


def test_a_worker_that_is_not_python_reads_nothing_known(tmp_path: Path) -> None:
    config = project(tmp_path, "worker")
    reply = json.dumps({"id": 1, "output": 1})
    config.runner.command = ["/bin/sh", "-c", f"read line; echo '{reply}'; cat > /dev/null"]
    [outcome] = rows_in_turn(config, [{}])
    assert outcome.output == 1
    assert outcome.reads == ()


@pytest.mark.parametrize("command", [["target.py", "--flag"], ["-u", "target.py"], ["-m", "target"]])
def test_a_python_worker_started_through_the_bootstrap_sees_what_python_would_give_it(
        tmp_path: Path, command: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    body = '''
import json, os, sys

def run(inputs):
    main = sys.modules["__main__"]
    return {"file": __file__, "argv": sys.argv, "path0": sys.path[0], "orig_argv": sys.orig_argv,
            "main": sorted(k for k in vars(main) if not k.startswith("__") or k in ("__file__", "__spec__")),
            "name": __name__, "spec": [getattr(__spec__, "name", None), getattr(__spec__, "origin", None)],
            "loader": type(__loader__).__name__,
            "modules": [m for m in sys.modules if "workbench" in m or m in ("script_main", "read_audit")]}
'''
    config = project(tmp_path, "worker", body)
    config.runner.command = [sys.executable, *command]
    [audited] = rows_in_turn(config, [{}])
    monkeypatch.setattr(WorkerRunner, "audited_argv", lambda self, reads: None)
    [plain] = rows_in_turn(config, [{}])
    assert audited.error is None, audited.error
    assert audited.output == plain.output
    assert str(config.root / "target.py") in audited.reads and plain.reads == ()
