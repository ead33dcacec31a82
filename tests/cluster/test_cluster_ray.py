"""Rows on a real local Ray (`[cluster] engine = "ray"`, `address = "local"`, 2 CPUs): the same verdicts
as the local run for every runner kind, the project shipped without what must stay behind (secrets,
.gitignore'd files, FIFOs, links leading outside: issue 20, cases 15 and 20a), a file change cancelling
every row in flight on the cluster, a Ray worker dying mid-row, an unreachable address.

One local Ray serves every test here (it takes seconds to start); they are all in one xdist group, so
they run together on one worker (`--dist loadgroup` in pyproject.toml). Skipped where Ray is not
installed.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import socket
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from helpers import tui
from helpers.checks import process_alive, wait_until
from helpers.cli import run_workbench
from helpers.paths import EXAMPLES
from helpers.project import make_project, row
from helpers.watch import watching

from workbench.cluster import cluster_status
from workbench.cluster.connection import connect, disconnect
from workbench.config import Config, Overrides, load_config
from workbench.engine import Engine
from workbench.events import IterationReport, Trigger
from workbench.model import Verdict
from workbench.tui.app import make_app

ray = pytest.importorskip("ray")

pytestmark = pytest.mark.xdist_group("ray")

CPUS = 2
WAIT_S = 60.0


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    """One local Ray with 2 CPUs for every test here; stopped after the last one, so the other tests
    that run in this process afterwards find no cluster connected."""
    config = Config(root=Path.cwd())
    config.cluster.engine, config.cluster.address, config.cluster.max_in_flight = "ray", "local", CPUS
    status = connect(config)
    assert status.cpus == CPUS
    yield status
    disconnect()


def on_cluster(config: Config, **cluster: object) -> Config:
    """The same settings, with the rows run on the local Ray (as `--cluster local` does)."""
    config.overrides = Overrides(cluster="local")
    config.overrides.apply(config)
    for key, value in cluster.items():
        setattr(config.cluster, key, value)
    return config


def iterate(config: Config) -> IterationReport:
    return asyncio.run(Engine(config).run_iteration(Trigger("run")))


def verdicts(report: IterationReport) -> dict[tuple[object, str], tuple[str, object, float | None]]:
    """{(row, evaluator): (verdict, output, score)}; a conversation's response times are left out (they
    are measured on this machine around each turn, so on the cluster they include Ray's round trip)."""
    assert report.results, "nothing ran"
    return {(r.row_key, r.evaluator): (r.verdict.value, untimed(r.actual), r.score) for r in report.results}


def untimed(value: object) -> object:
    if isinstance(value, dict):
        return {k: untimed(v) for k, v in value.items() if k != "response_time_ms"}
    if isinstance(value, list):
        return [untimed(v) for v in value]
    return value


def cpus_free() -> float:
    return ray.available_resources().get("CPU", 0.0)


# -- the same verdicts for every runner kind -----------------------------------------------------------

UIP_STANDIN = '''\
"""Stands in for `uip api-workflow run`: the workflow is grade.py's grade(), its Response in the debug log."""
import json
import sys

from grade import grade

args = sys.argv[1:]
inputs = json.loads(args[args.index("--input-arguments") + 1])
with open(args[args.index("--log-file") + 1], "a") as log:
    log.write("Workflow started\\n")
    log.write('Response task evaluated successfully for "Response": ' + json.dumps({"response": grade(inputs)}) + "\\n")
print(json.dumps({"Result": "Success", "Message": None, "Data": {}}))
'''

GRADE_WORKER = '''\
"""grade.py as a JSON-lines worker: one request per line in, one reply per line out."""
import json
import sys

from grade import grade

for line in sys.stdin:
    request = json.loads(line)
    print(json.dumps({"id": request["id"], "output": grade(request["inputs"])}), flush=True)
'''

GRADING_AS = {
    "command": ({"kind": "command", "command": ["{python}", "grade.py"], "timeout": 20}, {}),
    "uip": ({"kind": "uip", "uip": ["{python}", "uip_standin.py"], "timeout": 20},
            {"uip_standin.py": UIP_STANDIN, "Workflow.json": '{"name": "grading"}\n'}),
    "worker": ({"kind": "worker", "command": ["{python}", "grade_worker.py"], "timeout": 20},
               {"grade_worker.py": GRADE_WORKER}),
    "python": ({"kind": "python", "callable": "grade:grade", "timeout": 20}, {}),
}


@pytest.mark.parametrize("kind", list(GRADING_AS))
def test_the_grading_example_gets_the_same_verdicts_on_the_cluster(tmp_path, kind):
    root = shutil.copytree(EXAMPLES / "grading", tmp_path / "grading")
    runner, files = GRADING_AS[kind]
    make_project(root, config=runner, files=files, evaluators={})
    local = iterate(load_config(root))
    remote = iterate(on_cluster(load_config(root)))
    assert verdicts(remote) == verdicts(local)
    assert Verdict.FAIL in {r.verdict for r in remote.results}  # the example's planted bug, found there too
    assert all(r.duration_ms > 0 for r in remote.results)


def without_timing_assertions(root: Path) -> None:
    """Drop the conversations' `timing` assertions (the support bot's first turn must answer within 5 s):
    a turn's time on the cluster includes Ray's round trip (an actor starting on a loaded machine), so
    it would compare the machine's load, not the verdicts. Every other assertion stays."""
    for path in root.rglob("*.eval.json"):
        doc = json.loads(path.read_text())
        for turn in doc.get("conversation", []):
            turn.get("assert", {}).pop("timing", None)
        path.write_text(json.dumps(doc, indent=2))


@pytest.mark.parametrize("example", ["support-bot", "form-agent"])
def test_python_examples_get_the_same_verdicts_on_the_cluster(tmp_path, example):
    """Conversations (several turns on one held target process) and scenarios, both `kind = "python"`."""
    root = shutil.copytree(EXAMPLES / example, tmp_path / example)
    without_timing_assertions(root)
    local = iterate(load_config(root))
    remote = iterate(on_cluster(load_config(root)))
    assert verdicts(remote) == verdicts(local)
    assert {r.verdict for r in remote.results} == {Verdict.PASS, Verdict.FAIL}


SEES_A_TERMINAL = """\
import json, os, sys
names = ("TERM", "TERM_PROGRAM", "TERM_PROGRAM_VERSION", "COLORTERM", "LC_TERMINAL", "LC_TERMINAL_VERSION")
try:
    os.close(os.open("/dev/tty", os.O_RDWR))
    tty = True
except OSError:
    tty = False
seen = {"env": {name: os.environ.get(name) for name in names}, "isatty": [os.isatty(fd) for fd in (0, 1, 2)],
        "tty": tty}
if sys.argv[1:] == ["worker"]:
    for line in sys.stdin:
        print(json.dumps({"id": json.loads(line)["id"], "output": seen}), flush=True)
else:
    json.load(sys.stdin)
    print(json.dumps(seen))
"""


@pytest.mark.parametrize("kind", ["command", "worker"])
def test_a_target_on_the_cluster_sees_no_terminal_as_it_does_here(tmp_path, kind):
    """What makes TERM and the terminal's variables safe to leave out of the world holds on a Ray worker too:
    the target there gets the fixed TERM=dumb and none of the terminal's variables, and no terminal."""
    command = ["{python}", "sees.py", *(["worker"] if kind == "worker" else [])]
    make_project(tmp_path, sets={"terminal": [row("what the target sees", {"x": 1}, {})]},
                 config={"runner": {"kind": kind, "command": command, "timeout": 20}},
                 files={"sees.py": SEES_A_TERMINAL})
    local = iterate(load_config(tmp_path)).results[0]
    remote = iterate(on_cluster(load_config(tmp_path))).results[0]
    assert remote.actual == local.actual, (remote.detail, local.detail)
    assert remote.actual["env"] == {"TERM": "dumb", "TERM_PROGRAM": None, "TERM_PROGRAM_VERSION": None,
                                    "COLORTERM": None, "LC_TERMINAL": None, "LC_TERMINAL_VERSION": None}
    assert remote.actual["isatty"] == [False, False, False] and remote.actual["tty"] is False


# -- shipping the project ------------------------------------------------------------------------------

LIST_FILES = '''\
import json
import os
import sys

json.load(sys.stdin)
found = sorted(os.path.relpath(os.path.join(folder, name)).replace(os.sep, "/")
               for folder, _, names in os.walk(".") for name in names)
print(json.dumps({"files": found}))
'''


def test_the_project_is_shipped_without_state_vcs_virtualenvs_and_watch_ignores(tmp_path):
    make_project(tmp_path, sets={"files": [row("what the worker sees", {"x": 1}, {})]},
                 config={"runner": {"kind": "command", "command": ["{python}", "list_files.py"], "timeout": 20},
                         "watch": {"ignore": ["scratch"]}},
                 files={"list_files.py": LIST_FILES, "data/prices.csv": "a,b\n", ".workbench/history.sqlite": "x",
                        ".git/HEAD": "ref", "node_modules/pkg/index.js": "x", "env/pyvenv.cfg": "home = /usr",
                        "env/lib/site.py": "x", "scratch/big.bin": "x"})
    report = iterate(on_cluster(load_config(tmp_path)))
    files = report.results[0].actual["files"]
    assert {"list_files.py", "data/prices.csv", "workbench.toml", "evals/default/eval-sets/files.json"} <= set(files)
    assert not [f for f in files if f.split("/")[0] in {".workbench", ".git", "node_modules", "env", "scratch"}]


def files_on_the_worker(root: Path) -> list[str]:
    """What the target finds in its working folder on the worker (the row must pass to say so)."""
    result = iterate(on_cluster(load_config(root))).results[0]
    assert result.actual is not None, result.detail
    return result.actual["files"]


def test_secrets_gitignored_and_ship_ignored_files_stay_on_this_machine(tmp_path):
    """Issue 20, case 15."""
    make_project(tmp_path, sets={"files": [row("what the worker sees", {"x": 1}, {})]},
                 config={"runner": {"kind": "command", "command": ["{python}", "list_files.py"], "timeout": 20},
                         "cluster": {"ship_ignore": ["datasets/"]}},
                 files={"list_files.py": LIST_FILES, ".appilotsrc": "{}", ".env": "KEY=1", ".env.production": "KEY=2",
                        "app/.env.local": "KEY=3", ".gitignore": "credentials.json\n*.pem\n", "credentials.json": "{}",
                        "app/server.pem": "x", "app/main.py": "", "datasets/big.csv": "x"})
    files = files_on_the_worker(tmp_path)
    assert {"list_files.py", "app/main.py", ".gitignore", "workbench.toml"} <= set(files)
    for secret in (".appilotsrc", ".env", ".env.production", "app/.env.local", "credentials.json", "app/server.pem",
                   "datasets/big.csv"):
        assert secret not in files


def test_fifos_sockets_devices_and_links_leading_outside_are_not_shipped(tmp_path):
    """Issue 20, case 20a: shipping neither blocks on a FIFO nor follows a link out of the project."""
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "private.txt").write_text("x")
    root = make_project(tmp_path / "p", sets={"files": [row("what the worker sees", {"x": 1}, {})]},
                        config={"runner": {"kind": "command", "command": ["{python}", "list_files.py"], "timeout": 20}},
                        files={"list_files.py": LIST_FILES, "data/prices.csv": "a,b\n"})
    os.mkfifo(root / "pipe")
    os.symlink("pipe", root / "link-to-pipe")
    os.symlink("/dev/null", root / "link-to-device")
    os.symlink(outside, root / "link-to-outside")
    os.symlink(outside / "private.txt", root / "private.txt")
    os.symlink("data", root / "data-link")
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(root / "sock"))
    found: list[object] = []

    def ship_and_list() -> None:
        try:
            found.append(files_on_the_worker(root))
        except BaseException as exc:  # re-raised below, in the test's thread
            found.append(exc)

    worker = threading.Thread(target=ship_and_list, daemon=True)
    worker.start()
    worker.join(WAIT_S * 2)
    try:
        if worker.is_alive():
            pytest.fail("shipping the project blocked (on the FIFO)")
    finally:
        with contextlib.suppress(OSError):  # a reader blocked on the FIFO gets end-of-file
            os.close(os.open(root / "pipe", os.O_WRONLY | os.O_NONBLOCK))
        server.close()
    files = found[0]
    if isinstance(files, BaseException):
        raise files
    assert isinstance(files, list)
    assert {"list_files.py", "data/prices.csv", "data-link/prices.csv"} <= set(files)
    assert not {"pipe", "link-to-pipe", "link-to-device", "sock", "private.txt"} & set(files)
    assert not [f for f in files if f.startswith("link-to-outside")]


# -- cancelling --------------------------------------------------------------------------------------

def target(answer: str) -> str:
    """A target file defining `answer`: a `kind = "python"` callable, or a command reading stdin."""
    return ("import json\nimport os\nimport signal\nimport subprocess\nimport sys\nimport time\n\n\n" + answer
            + '\n\nif __name__ == "__main__":\n    print(json.dumps(answer(json.load(sys.stdin))))\n')


def runs_as(module: str) -> dict[str, dict[str, Any]]:
    """The runner tables that run `module`'s `answer` as a command and as a Python callable."""
    return {"command": {"kind": "command", "command": ["{python}", f"{module}.py"]},
            "python": {"kind": "python", "callable": f"{module}:answer"}}


HANGS_WHILE_FLAGGED = target('''\
def answer(inputs):
    if os.path.exists("hang.flag"):
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        with open(os.path.join(os.environ["PIDS"], f"{inputs['n']}.pids"), "w") as pids:
            pids.write(f"{os.getpid()} {child.pid}")
        time.sleep(600)
    return {"n": inputs["n"]}
''')
HANGING_AS = runs_as("hangs")


@pytest.mark.parametrize("kind", list(HANGING_AS))
def test_a_file_change_cancels_every_row_running_on_the_cluster(tmp_path, kind):
    """Two rows hang on the cluster (a target and its child each); removing the file that makes them
    hang cancels that iteration: no target process and no Ray task is left, and the next one passes."""
    root, pids = tmp_path / "project", tmp_path / "pids"
    pids.mkdir()
    make_project(root, sets={"rows": [row(f"row {n}", {"n": n}, {"n": n}) for n in (1, 2)]},
                 config={"runner": {**HANGING_AS[kind], "timeout": 300, "env": {"PIDS": str(pids)}},
                         "cluster": {"engine": "ray", "address": "local"}},
                 files={"hangs.py": HANGS_WHILE_FLAGGED, "hang.flag": ""})

    async def scenario() -> IterationReport:
        async with watching(root, wait_first=False) as harness:
            await harness.until(lambda: len(list(pids.glob("*.pids"))) == 2, "both rows to hang on the cluster")
            assert cluster_status(harness.session.config).rows_running == 2
            (root / "hang.flag").unlink()
            report, _ = await harness.wait_for(1)
            return report

    report = asyncio.run(scenario())
    assert report.trigger.kind == "change"
    assert [r.verdict for r in report.results] == [Verdict.PASS, Verdict.PASS]
    started = [int(pid) for path in pids.glob("*.pids") for pid in path.read_text().split()]
    wait_until(lambda: not any(process_alive(pid) for pid in started), "the hanging targets and children to be killed",
               every=0.1)
    wait_until(lambda: cpus_free() == CPUS, "every CPU of the cluster to be free again", every=0.1)
    status = cluster_status(on_cluster(load_config(root)))
    assert status is not None and status.rows_running == 0 and status.cpus_in_use == 0


# -- a worker dying mid-row --------------------------------------------------------------------------

DIES_ONCE = target('''\
def answer(inputs):
    marker = os.path.join(os.environ["MARKS"], f"{inputs['n']}.died")
    if inputs.get("die") and not os.path.exists(marker):
        open(marker, "w").close()
        os.kill(os.getppid(), signal.SIGKILL)  # the Ray worker (task or actor) running this row
        time.sleep(60)
    return {"n": inputs["n"]}
''')
KILLER_AS = runs_as("dies_once")


def killer_project(root: Path, marks: Path, kind: str) -> Path:
    marks.mkdir()
    rows = [row("killed mid-row", {"n": 1, "die": True}, {"n": 1}), row("fine", {"n": 2}, {"n": 2})]
    runner = {**KILLER_AS[kind], "timeout": 60, "env": {"MARKS": str(marks)}}
    return make_project(root, sets={"rows": rows}, config={"runner": runner}, files={"dies_once.py": DIES_ONCE})


@pytest.mark.parametrize("kind", list(KILLER_AS))
def test_a_worker_killed_mid_row_makes_that_row_an_error(tmp_path, kind):
    root = killer_project(tmp_path / "project", tmp_path / "marks", kind)
    report = iterate(on_cluster(load_config(root)))
    by_row = {r.row_name: r for r in report.results}
    assert by_row["killed mid-row"].verdict == Verdict.ERROR
    assert "the Ray worker running this row died" in by_row["killed mid-row"].detail
    assert by_row["fine"].verdict == Verdict.PASS
    wait_until(lambda: cpus_free() == CPUS, "every CPU of the cluster to be free again", every=0.1)


@pytest.mark.parametrize("kind", list(KILLER_AS))
def test_with_one_retry_a_row_whose_worker_died_runs_again(tmp_path, kind):
    root = killer_project(tmp_path / "project", tmp_path / "marks", kind)
    report = iterate(on_cluster(load_config(root), retries=1))
    by_row = {r.row_name: r for r in report.results}
    assert by_row["killed mid-row"].verdict == Verdict.PASS
    assert "the Ray worker running this row died" in by_row["killed mid-row"].log
    assert "running the row again" in by_row["killed mid-row"].log
    assert by_row["fine"].verdict == Verdict.PASS


# -- connecting ----------------------------------------------------------------------------------------


@pytest.mark.process("a Ray connection that fails must not stay in the test process")
@pytest.mark.parametrize("address", ["127.0.0.1:1", "ray://127.0.0.1:1"])
def test_an_unreachable_address_fails_fast_naming_it(tmp_path, address):
    make_project(tmp_path, sets={"rows": [row("one", {"n": 1}, {"n": 1})]},
                 config={"kind": "command", "command": ["{python}", "-c", "print('{}')"]})
    started = time.monotonic()
    proc = run_workbench("run", str(tmp_path), "--cluster", address)
    assert proc.returncode == 2, proc.stderr
    assert f"cannot reach the Ray cluster at {address}" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert time.monotonic() - started < 30  # Ray alone retries for a minute or more


# -- the TUI ---------------------------------------------------------------------------------------------

WAITS_FOR_RELEASE = '''\
import json
import os
import sys
import time

inputs = json.load(sys.stdin)
while not os.path.exists(os.environ["RELEASE"]):
    time.sleep(0.05)
print(json.dumps({"n": inputs["n"]}))
'''


async def test_the_tui_status_line_shows_the_cluster_and_its_cpus_in_use(tmp_path):
    release = tmp_path / "release"
    root = make_project(tmp_path / "project", sets={"rows": [row(f"row {n}", {"n": n}, {"n": n}) for n in (1, 2)]},
                        config={"runner": {"kind": "command", "command": ["{python}", "waits.py"], "timeout": 60,
                                           "env": {"RELEASE": str(release)}},
                                "cluster": {"engine": "ray", "address": "local"}},
                        files={"waits.py": WAITS_FOR_RELEASE})
    app = make_app(load_config(root), watch=False, record=False)
    async with app.run_test(size=tui.SIZE) as pilot:
        await tui.wait_until(pilot, lambda: f"Ray local · {CPUS}/{CPUS} CPUs in use" in tui.status_text(app),
                             "the status line to show both rows holding the cluster's CPUs", timeout=WAIT_S)
        release.touch()
        await tui.wait_idle(app, pilot, timeout=WAIT_S)
        assert f"Ray local · 0/{CPUS} CPUs in use" in tui.status_text(app)
        assert "2/2 rows pass" in tui.status_text(app)
