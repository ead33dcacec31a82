"""Re-scoring reuses a recorded run only when everything that went into it is proven unchanged (issue
20, cases 1-3 and 5-11): every test here changes one input of a run and checks that the verdict is the
one a fresh run gives, never the recorded one. A target that logs each run outside the project proves
how many rows ran."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from helpers.cli import cli_env, invoke_json, invoke_workbench
from helpers.project import evaluator, make_project, row

from workbench.config import load_config
from workbench.events import IterationReport, Trigger
from workbench.session import Session

SET_FILE = "evals/default/eval-sets/echo.json"

# Answers with the row's inputs, the MODE variable, the row's name and, when asked, a file's content;
# appends the row id to $RUNS_LOG (outside the project) so a test can count runs.
ECHO_TARGET = """\
import json, os, sys
inputs = json.load(sys.stdin)
with open(os.environ["RUNS_LOG"], "a") as log:
    log.write(os.environ["WORKBENCH_ROW_ID"] + "\\n")
if os.path.exists(os.environ.get("FAIL_FLAG", "/nonexistent")):
    sys.exit("asked to fail")
out = {"x": inputs.get("x"), "mode": os.environ.get("MODE", ""), "name": os.environ["WORKBENCH_ROW_NAME"]}
if "read" in inputs:
    with open(inputs["read"]) as handle:
        out["read"] = handle.read().strip()
print(json.dumps(out))
"""


def echo_project(tmp_path: Path, rows: list[dict[str, Any]], *, target: str = ECHO_TARGET,
                 command: list[str] | None = None, extra: str = "", files: dict[str, str] | None = None,
                 target_path: str = "agent.py") -> Path:
    command = command or ["{python}", target_path]
    toml = f"[runner]\nkind = \"command\"\ncommand = {json.dumps(command)}\ntimeout = 30\n{extra}"
    return make_project(tmp_path / "project", sets={"echo": rows}, evaluators={"exact-match-evaluator": evaluator("*")},
                        config=toml, files={target_path: target, **(files or {})})


def runs_log(tmp_path: Path) -> Path:
    return tmp_path / "runs.log"


def env_for(tmp_path: Path, **extra: str) -> dict[str, str]:
    return cli_env(RUNS_LOG=str(runs_log(tmp_path)), **extra)


def take_runs(tmp_path: Path) -> list[str]:
    """The row ids that ran since the last call."""
    log = runs_log(tmp_path)
    ran = log.read_text().split() if log.exists() else []
    log.unlink(missing_ok=True)
    return sorted(ran)


def verdicts(doc: dict[str, Any]) -> dict[str, tuple[str, bool]]:
    return {r["row_id"]: (r["verdict"], bool(r.get("reused"))) for r in doc["results"]}


def reasons(doc: dict[str, Any]) -> dict[str, str]:
    return {r["row_id"]: r["reason"] for r in doc.get("reuse", {}).get("rows", [])}


def foreseen(root: Path, env: dict[str, str], interpreter: str | None = None) -> dict[str, str]:
    """What `workbench check` says `run --reuse` would do with each row now (read before the run, asserted
    after its verdict: the verdict is what matters most); asked of another interpreter's workbench when
    `interpreter` is given, else of this one, in this process."""
    if interpreter is None:
        return reasons(json.loads(invoke_workbench("check", str(root), "--json", env=env).stdout))
    proc = subprocess.run([interpreter, "-m", "workbench", "check", str(root), "--json"], env=env,
                          capture_output=True, text=True, timeout=120)
    return reasons(json.loads(proc.stdout))


def edit_expectation(root: Path, index: int, expected: Any) -> None:
    path = root / SET_FILE
    doc = json.loads(path.read_text())
    doc["evaluations"][index]["evaluationCriterias"]["exact-match-evaluator"]["expectedOutput"] = expected
    path.write_text(json.dumps(doc, indent=2))


def expect(x: int, *, mode: str = "", name: str = "r", **more: Any) -> dict[str, Any]:
    return {"x": x, "mode": mode, "name": name, **more}


# -- 1. the environment ------------------------------------------------------------------------------

def test_1_a_changed_environment_variable_reruns_the_rows(tmp_path: Path) -> None:
    root = echo_project(tmp_path, [row("r", {"x": 1}, expect(1, mode="A"))])
    proc, doc = invoke_json("run", str(root), "--reuse", env=env_for(tmp_path, MODE="A"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert take_runs(tmp_path) == ["r"]
    proc, doc = invoke_json("run", str(root), "--reuse", env=env_for(tmp_path, MODE="A"))
    assert verdicts(doc) == {"r": ("PASS", True)} and take_runs(tmp_path) == []  # unchanged: re-scored
    why = foreseen(root, env_for(tmp_path, MODE="B"))
    proc, doc = invoke_json("run", str(root), "--reuse", env=env_for(tmp_path, MODE="B"))
    assert verdicts(doc) == {"r": ("FAIL", False)}, "a stale PASS was re-scored under MODE=B"
    assert take_runs(tmp_path) == ["r"]
    assert "environment variable MODE (changed)" in why["r"]
    assert "B" not in json.dumps(why)  # values are never shown or stored, only their digests


def test_1_runner_env_in_the_settings_is_part_of_the_environment(tmp_path: Path) -> None:
    root = echo_project(tmp_path, [row("r", {"x": 1}, expect(1, mode="A"))], extra='[runner.env]\nMODE = "A"\n')
    invoke_json("run", str(root), "--reuse", env=env_for(tmp_path))
    toml = root / "workbench.toml"
    toml.write_text(toml.read_text().replace('MODE = "A"', 'MODE = "B"'))
    _, doc = invoke_json("run", str(root), "--reuse", env=env_for(tmp_path))
    assert verdicts(doc) == {"r": ("FAIL", False)}


# -- 2. the program ----------------------------------------------------------------------------------

PREFIX_TARGET = """\
import json, sys
json.load(sys.stdin)
print(json.dumps({"in_venv": sys.prefix != sys.base_prefix, "prefix": sys.prefix}))
"""


@pytest.mark.process("a second virtualenv's workbench is another interpreter")
def test_2_another_interpreter_for_python_reruns_the_rows(tmp_path: Path) -> None:
    """`{python}` is the interpreter workbench runs on: a second virtualenv's workbench must not re-score
    the first one's outputs (the venv's python is a link to the same binary)."""
    here = sys.prefix != sys.base_prefix  # the suite itself may run in a virtualenv (the README's way)
    root = echo_project(tmp_path, [row("r", {}, {"in_venv": here, "prefix": sys.prefix})], target=PREFIX_TARGET)
    venv = tmp_path / "venv2"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    # The second virtualenv sees the same packages as this interpreter (workbench and what it needs, however
    # they were installed), so nothing but the interpreter differs between the two runs.
    import site

    import workbench

    (site_dir,) = (venv / "lib").glob("python*/site-packages")
    shared = [*site.getsitepackages(), str(Path(workbench.__file__).resolve().parent.parent)]
    (site_dir / "outer.pth").write_text("\n".join(shared) + "\n")
    proc, doc = invoke_json("run", str(root), "--reuse", env=env_for(tmp_path))
    assert verdicts(doc) == {"r": ("PASS", False)}, proc.stderr
    why = foreseen(root, env_for(tmp_path), str(venv / "bin" / "python"))
    other = subprocess.run([str(venv / "bin" / "python"), "-m", "workbench", "run", str(root), "--reuse", "--json"],
                           env=env_for(tmp_path), capture_output=True, text=True, timeout=120)
    doc = json.loads(other.stdout)
    assert verdicts(doc) == {"r": ("FAIL", False)}, "the first venv's PASS was re-scored"
    assert "program" in why["r"]


def tool_project_run_once(tmp_path: Path) -> tuple[Path, str, Path]:
    """An executable outside the project (tmp_path/bin/agent: the echo target behind a #! line) as the command,
    run once with --reuse; returns the tool, its text and the project root."""
    tool = tmp_path / "bin" / "agent"
    tool.parent.mkdir()
    script = f"#!{sys.executable}\n" + ECHO_TARGET
    tool.write_text(script)
    tool.chmod(0o755)
    root = echo_project(tmp_path, [row("r", {"x": 1}, expect(1))], command=[str(tool)])
    invoke_json("run", str(root), "--reuse", env=env_for(tmp_path))
    return tool, script, root


def test_2_an_edited_executable_outside_the_project_reruns_the_rows(tmp_path: Path) -> None:
    tool, script, root = tool_project_run_once(tmp_path)
    tool.write_text(script.replace('"x": inputs.get("x")', '"x": 2 * inputs.get("x")'))
    _, doc = invoke_json("run", str(root), "--reuse", env=env_for(tmp_path))
    assert verdicts(doc) == {"r": ("FAIL", False)}


def test_2_a_script_outside_the_project_named_by_the_command_is_fingerprinted(tmp_path: Path) -> None:
    script = tmp_path / "elsewhere" / "agent.py"
    script.parent.mkdir()
    script.write_text(ECHO_TARGET)
    root = echo_project(tmp_path, [row("r", {"x": 1}, expect(1))], command=["{python}", str(script)])
    invoke_json("run", str(root), "--reuse", env=env_for(tmp_path))
    script.write_text(ECHO_TARGET.replace('"x": inputs.get("x")', '"x": 0'))
    _, doc = invoke_json("run", str(root), "--reuse", env=env_for(tmp_path))
    assert verdicts(doc) == {"r": ("FAIL", False)}


# -- 3. every file of the project --------------------------------------------------------------------

@pytest.mark.parametrize("folder", ["dist", "build", ".vscode", "site-packages", ".tox"])
def test_3_an_edit_in_a_formerly_ignored_folder_reruns_the_rows(tmp_path: Path, folder: str) -> None:
    path = f"{folder}/agent.py"
    root = echo_project(tmp_path, [row("r", {"x": 1}, expect(1))], target_path=path)
    invoke_json("run", str(root), "--reuse", env=env_for(tmp_path))
    (root / path).write_text(ECHO_TARGET.replace('"x": inputs.get("x")', '"x": 0'))
    _, doc = invoke_json("run", str(root), "--reuse", env=env_for(tmp_path))
    assert verdicts(doc) == {"r": ("FAIL", False)}


def test_3_a_path_the_command_names_is_never_ignored(tmp_path: Path) -> None:
    root = echo_project(tmp_path, [row("r", {"x": 1}, expect(1))], target_path="dist/agent.py",
                        extra='[watch]\nignore = ["dist"]\n')
    invoke_json("run", str(root), "--reuse", env=env_for(tmp_path))
    (root / "dist" / "agent.py").write_text(ECHO_TARGET.replace('"x": inputs.get("x")', '"x": 0'))
    _, doc = invoke_json("run", str(root), "--reuse", env=env_for(tmp_path))
    assert verdicts(doc) == {"r": ("FAIL", False)}

    from workbench.watching import ChangeFilter

    watch_filter = ChangeFilter.of(load_config(root))
    assert watch_filter(None, str(root / "dist" / "agent.py"))  # type: ignore[arg-type]
    assert not watch_filter(None, str(root / "dist" / "other.js"))  # type: ignore[arg-type]


def test_3_check_lists_what_is_not_looked_at(tmp_path: Path) -> None:
    root = echo_project(tmp_path, [row("r", {"x": 1}, expect(1))], extra='[watch]\nignore = ["notes/*"]\n')
    text = invoke_workbench("check", str(root), "-v").stdout  # the files re-scoring skips: with -v (issue 38)
    line = next(line for line in text.splitlines() if line.startswith("not watched or fingerprinted"))
    assert ".workbench/" in line and ".git/" in line and "__pycache__/" in line and "notes/*" in line
    assert "dist" not in line and "build" not in line
    doc = json.loads(invoke_workbench("check", str(root), "--json").stdout)
    assert "notes/*" in doc["reuse"]["ignored"]


# -- 4. what the target reads: [cache] inputs for targets workbench can't see into -----------------------

def test_4_cache_inputs_name_files_outside_the_project(tmp_path: Path) -> None:
    data = tmp_path / "data" / "value.txt"
    data.parent.mkdir()
    data.write_text("one\n")
    old = data.stat().st_mtime_ns - 3600 * 10**9  # not just written: the first run can be recorded
    os.utime(data, ns=(old, old))
    root = echo_project(tmp_path, [row("r", {"x": 1, "read": str(data)}, expect(1, read="one"))],
                        extra='[cache]\ninputs = ["../data/*.txt"]\n')
    _, doc = invoke_json("run", str(root), "--reuse", env=env_for(tmp_path))
    assert verdicts(doc) == {"r": ("PASS", False)}
    data.write_text("two\n")
    why = foreseen(root, env_for(tmp_path))
    _, doc = invoke_json("run", str(root), "--reuse", env=env_for(tmp_path))
    assert verdicts(doc) == {"r": ("FAIL", False)}
    assert "[cache] inputs file" in why["r"] and "value.txt" in why["r"]


READING_CALLABLE = """\
def answer(inputs):
    with open(inputs["read"]) as handle:
        return {"read": handle.read().strip()}
"""


@pytest.mark.parametrize("shape", ["python kind", "preloaded script", "through a symlinked folder"])
def test_4_a_python_targets_reads_outside_the_project_are_fingerprinted(tmp_path: Path, shape: str) -> None:
    """Nothing names ../outside/value.txt; the audit hook in the Python child saw the target read it."""
    outside = tmp_path / "outside"
    outside.mkdir()
    data = outside / "value.txt"
    data.write_text("one\n")
    read = str(data)
    if shape == "python kind":
        root = make_project(tmp_path / "project", sets={"echo": [row("r", {"read": read}, {"read": "one"})]},
                            config={"kind": "python", "callable": "agent:answer", "timeout": 30},
                            files={"agent.py": READING_CALLABLE})
    else:
        root = echo_project(tmp_path, [row("r", {"x": 1, "read": read}, expect(1, read="one"))])
    if shape == "through a symlinked folder":
        (root / "data").symlink_to(outside, target_is_directory=True)
        path = root / SET_FILE
        path.write_text(path.read_text().replace(json.dumps(read), json.dumps(str(root / "data" / "value.txt"))))
    _, doc = invoke_json("run", str(root), "--reuse", env=env_for(tmp_path))
    assert [r["verdict"] for r in doc["results"]] == ["PASS"]
    data.write_text("two\n")
    why = foreseen(root, env_for(tmp_path))
    _, doc = invoke_json("run", str(root), "--reuse", env=env_for(tmp_path))
    assert [(r["verdict"], bool(r.get("reused"))) for r in doc["results"]] == [("FAIL", False)]
    assert "a file it read changed" in why["r"] and "value.txt" in why["r"]
    _, doc = invoke_json("run", str(root), "--reuse", env=env_for(tmp_path))  # nothing changed since: re-scored
    assert [(r["verdict"], bool(r.get("reused"))) for r in doc["results"]] == [("FAIL", True)]


LISTING_CALLABLE = """\
import os

def answer(inputs):
    return {"files": len(os.listdir(inputs["dir"]))}
"""


def test_4_a_listing_of_a_symlinked_folder_counts_as_a_read(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "a.txt").write_text("a")
    root = make_project(tmp_path / "project", sets={"echo": [row("r", {"dir": "data"}, {"files": 1})]},
                        config={"kind": "python", "callable": "agent:answer", "timeout": 30},
                        files={"agent.py": LISTING_CALLABLE})
    (root / "data").symlink_to(outside, target_is_directory=True)
    _, doc = invoke_json("run", str(root), "--reuse", env=env_for(tmp_path))
    assert [r["verdict"] for r in doc["results"]] == ["PASS"]
    (outside / "b.txt").write_text("b")
    _, doc = invoke_json("run", str(root), "--reuse", env=env_for(tmp_path))
    assert [(r["verdict"], bool(r.get("reused"))) for r in doc["results"]] == [("FAIL", False)]


# -- 5. everything the row hands the target ----------------------------------------------------------

def test_5_renaming_a_row_reruns_it(tmp_path: Path) -> None:
    """The target sees the row's name (WORKBENCH_ROW_NAME), so the name is part of what ran."""
    root = echo_project(tmp_path, [row("first", {"x": 1}, expect(1, name="first"), id="r1")])
    invoke_json("run", str(root), "--reuse", env=env_for(tmp_path))
    path = root / SET_FILE
    path.write_text(path.read_text().replace('"name": "first"', '"name": "second"', 1))
    why = foreseen(root, env_for(tmp_path))
    _, doc = invoke_json("run", str(root), "--reuse", env=env_for(tmp_path))
    assert verdicts(doc) == {"r1": ("FAIL", False)}
    assert "what it hands the target changed" in why["r1"]


# -- 6. racy timestamps ------------------------------------------------------------------------------

@pytest.mark.parametrize("age_s", [0, 3600], ids=["just-written", "an-hour-old"])
def test_6_a_same_size_edit_with_the_old_mtime_put_back_is_seen(tmp_path: Path, age_s: int) -> None:
    root = echo_project(tmp_path, [row("r", {"x": 1, "read": "data.txt"}, expect(1, read="AAAA"))],
                        files={"data.txt": "AAAA\n"})
    data = root / "data.txt"
    if age_s:
        old = data.stat().st_mtime_ns - age_s * 10**9
        os.utime(data, ns=(old, old))
    invoke_json("run", str(root), "--reuse", env=env_for(tmp_path))
    before = data.stat()
    data.write_text("BBBB\n")  # same size
    os.utime(data, ns=(before.st_atime_ns, before.st_mtime_ns))  # touch -r: the old mtime is back
    assert data.stat().st_size == before.st_size and data.stat().st_mtime_ns == before.st_mtime_ns
    _, doc = invoke_json("run", str(root), "--reuse", env=env_for(tmp_path))
    assert verdicts(doc) == {"r": ("FAIL", False)}, "the edit was hidden by size and mtime"


# -- 7. an edit during the run -------------------------------------------------------------------------

SYNC_TARGET = """\
import json, os, sys, time
inputs = json.load(sys.stdin)
sync = os.environ["SYNC_DIR"]

def wait_for(name):
    deadline = time.monotonic() + 60
    while not os.path.exists(os.path.join(sync, name)):
        if time.monotonic() > deadline:
            sys.exit("the test never answered")
        time.sleep(0.01)

open(os.path.join(sync, "started"), "w").close()
wait_for("go")
with open("mode.txt") as handle:
    mode = handle.read().strip()
open(os.path.join(sync, "read"), "w").close()
wait_for("done")
print(json.dumps({"mode": mode}))
"""


def _wait_for(path: Path, proc: subprocess.Popen[str]) -> None:
    """Wait until `path` exists (the target got there) or the run ended (then the test fails)."""
    event = threading.Event()
    while not path.exists():
        assert proc.poll() is None, f"workbench ended before {path.name}: {proc.communicate()}"
        event.wait(0.01)


@pytest.mark.process("the files change while a run is in flight: it runs beside the test, not inside it")
def test_7_an_edit_made_and_put_back_while_the_rows_ran_is_not_reused(tmp_path: Path) -> None:
    """mode.txt is A before and after the run, but the row read B in between: its output is not what
    the project as it is now gives, so it must not be re-scored."""
    sync = tmp_path / "sync"
    sync.mkdir()
    root = echo_project(tmp_path, [row("r", {}, {"mode": "A"})], target=SYNC_TARGET, files={"mode.txt": "A\n"})
    mode = root / "mode.txt"
    original = mode.stat()
    env = env_for(tmp_path, SYNC_DIR=str(sync))
    proc = subprocess.Popen([sys.executable, "-m", "workbench", "run", str(root), "--json"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _wait_for(sync / "started", proc)
        mode.write_text("B\n")
        (sync / "go").touch()
        _wait_for(sync / "read", proc)
        mode.write_text("A\n")
        os.utime(mode, ns=(original.st_atime_ns, original.st_mtime_ns))
        (sync / "done").touch()
        out, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert verdicts(json.loads(out)) == {"r": ("FAIL", False)}, err  # it read B
    for name in ("started", "go", "read", "done"):
        (sync / name).unlink()
    (sync / "go").touch()
    (sync / "done").touch()
    why = foreseen(root, env)
    _, doc = invoke_json("run", str(root), "--reuse", env=env)
    assert verdicts(doc) == {"r": ("PASS", False)}, "a run that saw a passing edit was re-scored"
    assert "changed while it ran" in why["r"] and "mode.txt" in why["r"]


# -- 8. history identity -----------------------------------------------------------------------------

def test_8_nothing_recorded_before_history_was_moved_aside_is_reused(tmp_path: Path) -> None:
    doubling = ECHO_TARGET
    tripling = ECHO_TARGET.replace('"x": inputs.get("x")', '"x": 3 * inputs.get("x")')
    root = echo_project(tmp_path, [row("r", {"x": 1}, expect(1))], target=doubling)
    _, doc = invoke_json("run", str(root), "--reuse", env=env_for(tmp_path))
    assert verdicts(doc) == {"r": ("PASS", False)}
    aside = tmp_path / "aside"
    aside.mkdir()
    for path in (root / ".workbench").glob("history.sqlite3*"):  # docs/history.md's recovery
        path.rename(aside / path.name)
    (root / "agent.py").write_text(tripling)
    _, doc = invoke_json("run", str(root), env=env_for(tmp_path))  # the new history's iteration 1: FAIL
    assert verdicts(doc) == {"r": ("FAIL", False)}
    (root / "agent.py").write_text(doubling)
    _, doc = invoke_json("run", str(root), "--reuse", env=env_for(tmp_path))
    assert verdicts(doc) == {"r": ("PASS", False)}, "a run recorded for the old history was re-scored"


def test_8_the_records_name_their_history_database(tmp_path: Path) -> None:
    root = echo_project(tmp_path, [row("r", {"x": 1}, expect(1))])
    invoke_json("run", str(root), "--reuse", env=env_for(tmp_path))
    from workbench.history import HistoryStore

    with HistoryStore.open(load_config(root)) as store:
        identity = store.identity
    record = json.loads((root / ".workbench" / "reuse.json").read_text())
    assert record["history"] == identity and len(identity) == 32


# -- 9. duplicate ids ---------------------------------------------------------------------------------

def test_9_deduplicated_row_keys_never_collide(tmp_path: Path) -> None:
    rows = [row("one", {"x": 1}, expect(1, name="one"), id="x"), row("two", {"x": 2}, expect(2, name="two"), id="x#2"),
            row("three", {"x": 3}, expect(3, name="three"), id="x")]
    root = echo_project(tmp_path, rows)
    _, doc = invoke_json("run", str(root), "--reuse", env=env_for(tmp_path))
    ids = [r["row_id"] for r in doc["results"]]
    assert len(set(ids)) == 3, ids
    assert {r["row_name"]: r["verdict"] for r in doc["results"]} == {"one": "PASS", "two": "PASS", "three": "PASS"}
    edit_expectation(root, 0, expect(1, name="one"))
    _, doc = invoke_json("run", str(root), "--reuse", env=env_for(tmp_path))
    assert {r["row_name"]: (r["verdict"], r.get("reused")) for r in doc["results"]} == {
        "one": ("PASS", True), "two": ("PASS", True), "three": ("PASS", True)}

    from workbench.model import unique_ids

    assert unique_ids(["x", "x#2", "x"]) == ["x", "x#2", "x#2#2"]
    assert unique_ids(["x", "x", "x#1"]) == ["x", "x#1#2", "x#1"]
    assert unique_ids(["a", None, "a", "a"]) == ["a", None, "a#2", "a#3"]


# -- 10. a scenarios folder that holds code --------------------------------------------------------------

SCENARIO_AGENT = """\
def act(request):
    return {"actions": [], "reply": "hello"}
"""


async def _iterate(session: Session, kind: str, *files: str) -> IterationReport:
    report = await session.request(Trigger(kind, files))
    assert report is not None
    return report


def test_10_a_code_edit_in_a_scenarios_folder_that_holds_code_reruns(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    (root / "agent.py").write_text(SCENARIO_AGENT)
    (root / "greets.json").write_text(json.dumps({"name": "greets", "when": "hi",
                                                  "expect": {"mode": "none", "replyMustContain": ["hello"]}}))
    (root / "workbench.toml").write_text('[runner]\nkind = "python"\ncallable = "agent:act"\ntimeout = 30\n'
                                         '[scenarios]\ndir = "."\n')

    async def go() -> None:
        session = Session(load_config(root), record=False)
        try:
            first = await _iterate(session, "start")
            assert [r.verdict.value for r in first.results] == ["PASS"]
            (root / "agent.py").write_text(SCENARIO_AGENT.replace("hello", "bye"))
            second = await _iterate(session, "change", "agent.py")
            assert second.reused_rows == 0
            assert [r.verdict.value for r in second.results] == ["FAIL"], "a code edit was taken for an eval edit"
        finally:
            await session.aclose()

    asyncio.run(go())


# -- 11. rows whose last run was an ERROR ------------------------------------------------------------------

def failing_flag(tmp_path: Path) -> Path:
    """While this file exists the echo target fails (FAIL_FLAG names it), so the row's run is an ERROR."""
    flag = tmp_path / "fail.flag"
    flag.touch()
    return flag


def test_11_a_row_whose_last_run_was_an_error_runs_again(tmp_path: Path) -> None:
    flag = failing_flag(tmp_path)
    root = echo_project(tmp_path, [row("r", {"x": 1}, expect(1))],
                        extra=f"[runner.env]\nRUNS_LOG = {json.dumps(str(runs_log(tmp_path)))}\n"
                              f"FAIL_FLAG = {json.dumps(str(flag))}\n")

    async def go() -> None:
        session = Session(load_config(root), record=False)
        try:
            first = await _iterate(session, "start")
            assert [r.verdict.value for r in first.results] == ["ERROR"]
            flag.unlink()  # the target would answer now (nothing workbench can see changed)
            edit_expectation(root, 0, expect(1))
            second = await _iterate(session, "change", SET_FILE)
            assert second.reused_rows == 0
            assert [r.verdict.value for r in second.results] == ["PASS"], "an ERROR was re-scored instead of run"
            assert "its last run can't be re-scored: it was an ERROR" in second.reuse[second.results[0].row_key].reason
        finally:
            await session.aclose()

    asyncio.run(go())


def test_11_run_reuse_reruns_an_error_too(tmp_path: Path) -> None:
    flag = failing_flag(tmp_path)
    root = echo_project(tmp_path, [row("r", {"x": 1}, expect(1))])
    env = env_for(tmp_path, FAIL_FLAG=str(flag))
    _, doc = invoke_json("run", str(root), "--reuse", env=env)
    assert verdicts(doc) == {"r": ("ERROR", False)}
    flag.unlink()
    _, doc = invoke_json("run", str(root), "--reuse", env=env)
    assert verdicts(doc) == {"r": ("PASS", False)}


# -- explaining ----------------------------------------------------------------------------------------

def test_check_and_explain_reuse_say_why_each_row_is_rescored_or_runs(tmp_path: Path) -> None:
    root = echo_project(tmp_path, [row("a", {"x": 1}, expect(1, name="a")), row("b", {"x": 2}, expect(2, name="b"))])
    env = env_for(tmp_path)
    text = invoke_workbench("check", str(root), "-v", env=env).stdout  # each row's reason: with -v (issue 38)
    assert "no earlier run of it is recorded" in text
    invoke_json("run", str(root), "--reuse", env=env)
    path = root / SET_FILE
    path.write_text(path.read_text().replace('"x": 2', '"x": 20'))
    text = invoke_workbench("check", str(root), "-v", env=env).stdout
    assert "a: re-scored from iteration 1: nothing it depends on changed" in text
    assert "b: runs: what it hands the target changed" in text
    proc = invoke_workbench("run", str(root), "--reuse", "--explain-reuse", env=env)
    assert "re-scoring:" in proc.stdout and "a: re-scored from iteration 1" in proc.stdout
    assert take_runs(tmp_path) == ["a", "b", "b"]  # the first run both, then only the edited one


# -- what the adversarial pass found beyond the numbered cases ----------------------------------------------

def test_another_pythons_identity_is_asked_of_it_and_an_unanswered_probe_never_matches(tmp_path: Path) -> None:
    """The command's interpreter is probed for its version and site-packages (a pyenv shim decides at run
    time); a probe that fails is 'unidentified', which equals nothing, so such rows always run."""
    from workbench.rescoring.world import program_identity

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = str(venv / "bin" / "python")
    config = load_config(make_project(tmp_path / "project", sets={"s": [row("r", {}, {})]}))
    env = dict(os.environ)
    first = program_identity(python, config, env)
    assert "unidentified" not in first and first == program_identity(python, config, env)
    (site_dir,) = (venv / "lib").glob("python*/site-packages")
    (site_dir / "newpkg-1.0.dist-info").mkdir()  # `pip install newpkg`
    assert program_identity(python, config, env) != first
    broken = tmp_path / "python3"
    broken.write_text("#!/bin/sh\nexit 3\n")
    broken.chmod(0o755)
    assert program_identity(str(broken), config, env) != program_identity(str(broken), config, env)


def test_a_copy_of_the_project_with_its_state_runs_its_rows(tmp_path: Path) -> None:
    """A copy (or a moved project) sees other `../` files and another working folder."""
    import shutil

    root = echo_project(tmp_path, [row("r", {"x": 1}, expect(1))])
    invoke_json("run", str(root), "--reuse", env=env_for(tmp_path))
    copy = tmp_path / "copy"
    shutil.copytree(root, copy, symlinks=True)
    why = foreseen(copy, env_for(tmp_path))
    _, doc = invoke_json("run", str(copy), "--reuse", env=env_for(tmp_path))
    assert verdicts(doc) == {"r": ("PASS", False)}
    assert "the project is in another folder now" in why["r"]


def test_a_same_size_edit_of_the_program_with_its_mtime_put_back_is_seen(tmp_path: Path) -> None:
    tool, script, root = tool_project_run_once(tmp_path)
    before = tool.stat()
    tool.write_text(script.replace('"x": inputs.get("x")', '"x": inputs.get("y")'))  # same size
    os.utime(tool, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert tool.stat().st_size == before.st_size
    _, doc = invoke_json("run", str(root), "--reuse", env=env_for(tmp_path))
    assert verdicts(doc) == {"r": ("FAIL", False)}


def test_cache_inputs_take_folders_dot_files_and_the_home_folder(tmp_path: Path) -> None:
    from workbench.file_digests import FileDigests
    from workbench.rescoring.world import cache_inputs

    data = tmp_path / "data"
    (data / "sub").mkdir(parents=True)
    (data / "sub" / ".hidden").write_text("1")
    root = make_project(tmp_path / "project", sets={"s": [row("r", {}, {})]},
                        config='[runner]\ncommand = ["true"]\n[cache]\ninputs = ["../data", "~/prefs.txt"]\n')
    (tmp_path / "prefs.txt").write_text("a")
    home = os.environ.get("HOME")
    os.environ["HOME"] = str(tmp_path)
    try:
        first = cache_inputs(load_config(root), FileDigests(None))
        assert str(tmp_path / "prefs.txt") in first and str(data / "sub" / ".hidden") in first
        (data / "sub" / ".hidden").write_text("2")
        assert cache_inputs(load_config(root), FileDigests(None)) != first
    finally:
        if home is None:
            del os.environ["HOME"]
        else:
            os.environ["HOME"] = home


def test_watch_paths_outside_the_project_are_fingerprinted(tmp_path: Path) -> None:
    from workbench.file_digests import FileDigests
    from workbench.rescoring.world import cache_inputs

    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "prompt.txt").write_text("be nice")
    root = make_project(tmp_path / "project", sets={"s": [row("r", {}, {})]},
                        config='[runner]\ncommand = ["true"]\n[watch]\npaths = [".", "../shared"]\n')
    first = cache_inputs(load_config(root), FileDigests(None))
    assert str(shared / "prompt.txt") in first
    (shared / "prompt.txt").write_text("be rude")
    assert cache_inputs(load_config(root), FileDigests(None)) != first


def test_a_scenarios_folder_holding_other_json_keeps_that_json_in_the_project(tmp_path: Path) -> None:
    from workbench.file_digests import FileDigests
    from workbench.project import load_project
    from workbench.rescoring.world import compute_world

    root = tmp_path / "project"
    root.mkdir()
    (root / "greets.json").write_text(json.dumps({"name": "greets", "when": "hi", "expect": {"mode": "none"}}))
    (root / "config.json").write_text(json.dumps({"temperature": 0}))
    (root / "workbench.toml").write_text('[runner]\ncommand = ["node", "agent.js"]\n[scenarios]\ndir = "."\n')
    config = load_config(root)
    world = compute_world(config, load_project(root, config).eval_files, FileDigests(None), b"k" * 32)
    assert "config.json" in world.files and "greets.json" not in world.files


LISTING_TARGET = """\
import json, os, sys
inputs = json.load(sys.stdin)
print(json.dumps({"files": sorted(os.listdir(inputs["dir"]))}))
"""


@pytest.mark.parametrize("where", ["notes", ".git/refs"], ids=["an ignored folder", "under .git"])
def test_a_python_targets_listing_of_an_ignored_folder_counts_as_a_read(tmp_path: Path, where: str) -> None:
    root = echo_project(tmp_path, [row("r", {"dir": where}, {"files": ["a"]})], target=LISTING_TARGET,
                        extra='[watch]\nignore = ["notes/"]\n')
    (root / where).mkdir(parents=True)
    (root / where / "a").write_text("a")
    _, doc = invoke_json("run", str(root), "--reuse", env=env_for(tmp_path))
    assert verdicts(doc) == {"r": ("PASS", False)}
    (root / where / "b").write_text("b")
    _, doc = invoke_json("run", str(root), "--reuse", env=env_for(tmp_path))
    assert verdicts(doc) == {"r": ("FAIL", False)}


def test_environment_digests_are_keyed_so_a_short_secret_cannot_be_guessed_back(tmp_path: Path) -> None:
    import hashlib

    root = echo_project(tmp_path, [row("r", {"x": 1}, expect(1))])
    pin = "pin-4711-q"  # not hex: a digest in the file can't hold it by chance (as it may hold "4711", 1 in ~50)
    invoke_json("run", str(root), "--reuse", env=env_for(tmp_path, BANK_PIN=pin))
    text = (root / ".workbench" / "reuse.json").read_text()
    for value in (pin, hashlib.sha256(json.dumps(["BANK_PIN", pin]).encode()).hexdigest(),
                  hashlib.sha256(f'["BANK_PIN","{pin}"]'.encode()).hexdigest()):
        assert value not in text
    key = root / ".workbench" / "fingerprint.key"
    assert key.stat().st_mode & 0o777 == 0o600 and len(key.read_bytes()) == 32


def test_a_history_whose_stored_output_differs_from_the_record_is_not_trusted(tmp_path: Path) -> None:
    """An older copy of history put back, or a hand edit: the recorded output's digest must match."""
    import sqlite3

    root = echo_project(tmp_path, [row("r", {"x": 1}, expect(1))])
    _, doc = invoke_json("run", str(root), "--reuse", env=env_for(tmp_path))
    assert verdicts(doc) == {"r": ("PASS", False)}
    db = sqlite3.connect(root / ".workbench" / "history.sqlite3")
    db.execute("UPDATE results SET actual = ?", (json.dumps({"x": 99, "mode": "", "name": "r"}),))
    db.commit()
    db.close()
    _, doc = invoke_json("run", str(root), "--reuse", env=env_for(tmp_path))
    assert verdicts(doc) == {"r": ("PASS", False)}, "a tampered output was re-scored"


PROGRAM_STARTING_CALLABLE = """\
import os
import subprocess

def answer(inputs):
    subprocess.run(["true"], check=True)
    return {"pid": os.getpid(), "x": inputs["x"]}
"""


def test_a_kept_worker_whose_row_started_a_program_is_not_kept_for_the_next_iteration(tmp_path: Path) -> None:
    """What a program the worker started read can't be known: its rows run again, on fresh processes."""
    rows = [row("r", {"x": 1}, {"x": 1})]
    root = make_project(tmp_path / "project", sets={"echo": rows}, evaluators={"exact-match-evaluator": evaluator("x")},
                        config={"kind": "python", "callable": "agent:answer", "concurrency": 1, "timeout": 30},
                        files={"agent.py": PROGRAM_STARTING_CALLABLE})

    async def go() -> None:
        session = Session(load_config(root), record=False)
        try:
            first = await _iterate(session, "start")
            edit_expectation(root, 0, {"x": 1})
            second = await _iterate(session, "change", SET_FILE)
            assert second.reused_rows == 0 and "another program" in second.reuse[second.results[0].row_key].reason
            assert second.results[0].actual["pid"] != first.results[0].actual["pid"]
        finally:
            await session.aclose()

    asyncio.run(go())
