"""`workbench watch --plain` and `workbench history` as a user runs them: a live watch is a real process (read
while it runs, stopped by signals), the rest run in this process; real files.

The watch process is read line by line. It prints nothing when its watcher goes live, so an edit
that is not answered within a few seconds is saved again (same content) before the test gives up;
the tests match lines by content, never by how many there were.
"""

from __future__ import annotations

import json
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers.checks import process_alive, tree_digest
from helpers.cli import Invoked, cli_env, closing_fixture, invoke_workbench
from helpers.project import make_project, row

WAIT_S = 60.0
RESAVE_S = 8.0

TARGET = """\
import json, os, subprocess, sys, time

ANSWERS = {answers!r}

inputs = json.load(sys.stdin)
if os.path.exists("slow.flag"):
    pids = open("slow.flag").read().strip()
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    with open(os.path.join(pids, inputs["q"] + ".tmp"), "w") as handle:
        handle.write(f"{{os.getpid()}} {{child.pid}}")
    os.replace(os.path.join(pids, inputs["q"] + ".tmp"), os.path.join(pids, inputs["q"] + ".pid"))
    time.sleep(120)
print(json.dumps({{"answer": ANSWERS.get(inputs["q"], "?")}}))
"""


def write_target(root: Path, answers: dict[str, str]) -> None:
    (root / "target.py").write_text(TARGET.format(answers=answers), encoding="utf-8")


def qa_project(tmp_path: Path, answers: dict[str, str], extra: dict[str, dict[str, Any]] | None = None) -> Path:
    config: dict[str, dict[str, Any]] = {
        "runner": {"kind": "command", "command": ["{python}", "target.py"], "timeout": 60}}
    config.update(extra or {})
    root = make_project(tmp_path / "project", config=config,
                        sets={"qa": [row(f"question {q}", {"q": q}, {"answer": q.upper()}) for q in "ab"]})
    write_target(root, answers)
    return root


class WatchProcess:
    """`workbench watch PATH --plain` in a fresh interpreter, its stdout read line by line."""

    def __init__(self, root: Path, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "workbench", "watch", str(root), "--plain", *args], env=cli_env(),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, encoding="utf-8", errors="replace")
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.seen: list[str] = []
        self.stderr: list[str] = []
        assert self.proc.stdout and self.proc.stderr
        threading.Thread(target=self._pump, args=(self.proc.stdout, self.lines.put), daemon=True).start()
        self._stderr_pump = threading.Thread(target=self._pump, args=(self.proc.stderr, self.stderr.append),
                                             daemon=True)
        self._stderr_pump.start()

    @staticmethod
    def _pump(stream: Any, sink: Callable[[str | None], None]) -> None:
        for line in stream:
            sink(line.rstrip("\n"))
        sink(None)

    def expect(self, pattern: str, timeout: float = WAIT_S, *, required: bool = True) -> str | None:
        """The next stdout line matching the regex `pattern`."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                if required:
                    pytest.fail(f"no line matching {pattern!r} within {timeout:g}s; stdout so far:\n"
                                + "\n".join(self.seen) + "\nstderr:\n" + "\n".join(self.stderr))
                return None
            if line is None:
                pytest.fail(f"watch exited ({self.proc.wait()}) before printing {pattern!r}; stdout:\n"
                            + "\n".join(self.seen) + "\nstderr:\n" + "\n".join(self.stderr))
            self.seen.append(line)
            if re.search(pattern, line):
                return line

    def save_until(self, save: Callable[[], None], pattern: str) -> str:
        """Save, and save again while the watcher may not have been live yet."""
        deadline = time.monotonic() + WAIT_S
        while True:
            save()
            line = self.expect(pattern, RESAVE_S, required=False)
            if line is not None:
                return line
            if time.monotonic() > deadline:
                return self.expect(pattern, 0.1) or ""

    def stop(self, sig: int = signal.SIGINT) -> tuple[int, str, str]:
        """Send `sig` and wait for the exit; returns (exit code, remaining stdout, stderr)."""
        self.proc.send_signal(sig)
        code = self.proc.wait(timeout=WAIT_S)
        rest = []
        while (line := self.lines.get(timeout=WAIT_S)) is not None:
            rest.append(line)
        self._stderr_pump.join(WAIT_S)  # stderr is read to its end (the process has exited)
        return code, "\n".join(rest), "\n".join(line for line in self.stderr if line is not None)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=WAIT_S)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


watch = closing_fixture(WatchProcess)


def history_json(root: Path, *args: str) -> Any:
    proc = invoke_workbench("history", str(root), *args, "--json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


# -- watch --plain ---------------------------------------------------------------------------------


@pytest.mark.process("a live watch loop, edited under it and stopped, read line by line")
def test_watch_plain_prints_one_line_per_iteration_and_reruns_on_save(tmp_path: Path, watch: Any) -> None:
    root = qa_project(tmp_path, {"a": "A", "b": "wrong"})
    loop = watch(root)
    assert loop.expect(r"^watching ") == f"watching {root} (Ctrl-C to stop)"
    first = loop.expect(r"^iteration ")
    assert re.match(r"iteration 1 \(start\): 1/2 rows pass in \d+\.\ds — still failing: 'question b' "
                    r"\(answer: expected \"B\", got \"wrong\"\)$", first), first

    line = loop.save_until(lambda: write_target(root, {"a": "A", "b": "B"}), r"changed target\.py")
    assert re.match(r"iteration \d+ \(changed target\.py\): 2/2 rows pass \(\+1\) in \d+\.\ds — "
                    r"fixed: 'question b' — all green$", line), line

    code, rest, stderr = loop.stop()
    assert code == 0 and stderr == ""
    assert re.match(r"stopped — final state after iteration \d+: 2/2 rows pass\n"
                    r"  PASS   qa\.json › question a\n  PASS   qa\.json › question b$", rest), rest
    listed = history_json(root)
    assert [(i["trigger"]["kind"], i["trigger"]["files"]) for i in listed][:2] == [("start", []),
                                                                                  ("change", ["target.py"])]


@pytest.mark.process("a live watch loop, edited under it and stopped, read line by line")
def test_watch_plain_reports_a_malformed_save_and_recovers_on_the_next(tmp_path: Path, watch: Any) -> None:
    root = qa_project(tmp_path, {"a": "A", "b": "B"})
    set_file = root / "evals" / "default" / "eval-sets" / "qa.json"
    good = set_file.read_text(encoding="utf-8")
    loop = watch(root)
    loop.expect(r"^iteration 1 \(start\): 2/2 rows pass .* all green$")

    problem = loop.save_until(lambda: set_file.write_text('{"version": "1.0", "evaluations": [',
                                                          encoding="utf-8"), r"^problem: ")
    assert problem.startswith("problem: evals/default/eval-sets/qa.json: "), problem
    assert "— problem: evals/default/eval-sets/qa.json: is not valid JSON" in loop.expect(r"^iteration ")

    set_file.write_text(good, encoding="utf-8")
    line = loop.expect(r"^iteration .*changed evals/default/eval-sets/qa\.json.* all green$")
    assert "2/2 rows pass" in line
    assert loop.stop()[0] == 0


@pytest.mark.process("a live watch loop, edited under it and stopped, read line by line")
def test_watch_plain_says_when_the_loop_is_stalled(tmp_path: Path, watch: Any) -> None:
    root = qa_project(tmp_path, {"a": "A", "b": "wrong"}, extra={"watch": {"stall_after": 1}})
    loop = watch(root)
    assert "stalled" not in (loop.expect(r"^iteration 1 ") or "")
    line = loop.save_until(lambda: write_target(root, {"a": "A", "b": "still wrong"}), r"changed target\.py")
    assert line.endswith("— stalled: no improvement in passes for 1 iteration"), line
    assert loop.stop()[0] == 0


def start_slow(tmp_path: Path, watch: Any) -> tuple[Path, WatchProcess, list[int]]:
    pids_dir = tmp_path / "pids"
    pids_dir.mkdir()
    root = qa_project(tmp_path, {"a": "A", "b": "B"})
    (root / "slow.flag").write_text(str(pids_dir), encoding="utf-8")
    loop = watch(root)
    loop.expect(r"^watching ")
    deadline = time.monotonic() + WAIT_S
    while len(files := list(pids_dir.glob("*.pid"))) < 2:
        assert time.monotonic() < deadline and loop.proc.poll() is None, "the slow rows never started"
        time.sleep(0.05)
    return root, loop, [int(pid) for path in files for pid in path.read_text().split()]


def assert_all_gone(pids: list[int]) -> None:
    deadline = time.monotonic() + WAIT_S  # a hang guard: it returns as soon as they are gone
    while (alive := [pid for pid in pids if process_alive(pid)]) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive, f"still running after workbench exited: {alive}"


@pytest.mark.process("a signal sent to a live watch process, and its exit code")
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP], ids=["ctrl-c", "term", "hup"])
def test_stopping_watch_mid_iteration_exits_cleanly_and_leaves_no_process(tmp_path: Path, watch: Any,
                                                                          sig: int) -> None:
    root, loop, pids = start_slow(tmp_path, watch)
    assert all(process_alive(pid) for pid in pids)
    code, rest, stderr = loop.stop(sig)
    assert code == 0
    assert rest == "stopped"
    assert stderr == ""  # no traceback, no "Unknown child process" from asyncio
    assert_all_gone(pids)
    assert history_json(root) == []  # the interrupted iteration was not recorded


@pytest.mark.process("a live watch loop, edited under it and stopped, read line by line")
def test_a_save_during_a_slow_iteration_cancels_it_and_runs_the_new_files(tmp_path: Path, watch: Any) -> None:
    root, loop, pids = start_slow(tmp_path, watch)
    line = loop.save_until(lambda: (root / "slow.flag").unlink(missing_ok=True), r"^iteration ")
    assert re.match(r"iteration 1 \(changed slow\.flag\): 2/2 rows pass in .* all green$", line), line
    assert_all_gone(pids)
    assert loop.stop()[0] == 0
    assert [i["trigger"]["kind"] for i in history_json(root)] == ["change"]


def test_watch_refuses_a_project_it_cannot_run(tmp_path: Path) -> None:
    root = make_project(tmp_path, sets={"qa": [row("question a", {"q": "a"}, {"answer": "A"})]})  # no config
    proc = invoke_workbench("watch", str(root), "--plain")
    assert proc.returncode == 2 and "no way to run the target" in proc.stderr
    runner = {"kind": "command", "command": ["{python}", "-c", "0"]}  # a target that starts
    bad_paths = make_project(tmp_path / "other", config={"runner": runner, "watch": {"paths": ["missing"]}})
    proc = invoke_workbench("watch", str(bad_paths), "--plain")
    assert proc.returncode == 2 and "[watch] paths lists 'missing', which does not exist" in proc.stderr


# -- history ----------------------------------------------------------------------------------------


def run(root: Path, *args: str) -> Invoked:
    return invoke_workbench("run", str(root), *args)


def test_history_lists_iterations_recorded_by_separate_runs(tmp_path: Path) -> None:
    root = qa_project(tmp_path, {"a": "A", "b": "wrong"})
    evals_before = tree_digest(root / "evals")
    assert run(root).returncode == 1
    write_target(root, {"a": "A", "b": "B"})
    assert run(root).returncode == 0

    text = invoke_workbench("history", str(root))
    assert text.returncode == 0, text.stderr
    header, first, second = text.stdout.splitlines()
    assert header.split()[:2] == ["#", "when"] and header.split()[-3:] == ["change", "time", "trigger"]
    assert re.match(r"\s+1  \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\s+1/2\s+\d+\.\ds  workbench run$", first), first
    assert re.match(r"\s+2  \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\s+2/2\s+\+1\s+\d+\.\ds  workbench run$", second), second

    listed = history_json(root)
    assert [(i["number"], i["passed"], i["total"], i["change"], i["partial"]) for i in listed] == [
        (1, 1, 2, None, False), (2, 2, 2, 1, False)]
    assert listed[0]["trigger"] == {"kind": "run", "files": []}
    assert tree_digest(root / "evals") == evals_before  # history lives in .workbench/, never in evals/
    assert (root / ".workbench").is_dir()


def test_history_n_shows_the_results_and_what_flipped(tmp_path: Path) -> None:
    root = qa_project(tmp_path, {"a": "A", "b": "wrong"})
    run(root)
    write_target(root, {"a": "wrong", "b": "B"})
    run(root)

    shown = invoke_workbench("history", str(root), "2")
    assert shown.returncode == 0, shown.stderr
    out = shown.stdout
    assert out.startswith("iteration 2 — ") and "workbench run" in out.splitlines()[0]
    assert "1 passed, 1 failed, 0 errors of 2" in out
    assert "FAIL  qa.json › question a [exact-match-evaluator]" in out
    assert 'answer: expected "A", got "wrong"' in out
    assert "since iteration 1:" in out
    assert "newly passing (1):\n  question b [exact-match-evaluator] (qa.json)" in out
    assert "newly failing (1):\n  question a [exact-match-evaluator] (qa.json)" in out

    doc = history_json(root, "2")
    assert doc["number"] == 2 and doc["previous"] == 1
    assert [r["row_name"] for r in doc["flips"]["newly_passing"]] == ["question b"]
    assert [r["row_name"] for r in doc["flips"]["newly_failing"]] == ["question a"]
    assert {r["row_name"]: r["verdict"] for r in doc["results"]} == {"question a": "FAIL", "question b": "PASS"}
    assert {r["row_name"]: r["actual"] for r in doc["results"]}["question a"] == {"answer": "wrong"}

    first = invoke_workbench("history", str(root), "1")
    assert "(no earlier iteration to compare with)" in first.stdout
    missing = invoke_workbench("history", str(root), "9")
    assert missing.returncode == 1 and "no iteration 9 in history (the newest is 2)" in missing.stderr


def test_history_from_inside_the_project_folder(tmp_path: Path) -> None:
    root = qa_project(tmp_path, {"a": "A", "b": "B"})
    run(root)
    proc = invoke_workbench("history", "1", "--json", cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["number"] == 1


def test_history_retention_keeps_the_newest_iterations(tmp_path: Path) -> None:
    root = qa_project(tmp_path, {"a": "A", "b": "B"}, extra={"history": {"retention": 3}})
    for _ in range(5):
        assert run(root).returncode == 0
    assert [i["number"] for i in history_json(root)] == [3, 4, 5]
    assert invoke_workbench("history", str(root), "2").returncode == 1


def test_a_partial_run_is_marked_partial(tmp_path: Path) -> None:
    root = qa_project(tmp_path, {"a": "A", "b": "wrong"})
    run(root)
    write_target(root, {"a": "A", "b": "B"})
    assert run(root, "--row", "question b").returncode == 0
    listed = history_json(root)
    assert [(i["partial"], i["total"]) for i in listed] == [(False, 2), (True, 1)]
    assert listed[1]["change"] is None
    assert "(partial)" in invoke_workbench("history", str(root)).stdout.splitlines()[2]
    doc = history_json(root, "2")
    assert [r["row_name"] for r in doc["flips"]["newly_passing"]] == ["question b"]
    assert doc["flips"]["removed"] == []  # question a did not run; it did not go away

    # A full run after the partial one compares with everything known by then: nothing is "new".
    assert run(root).returncode == 0
    doc = history_json(root, "3")
    assert doc["previous"] == 2
    assert {kind: len(items) for kind, items in doc["flips"].items()} == {
        "newly_passing": 0, "newly_failing": 0, "still_failing": 0, "added": 0, "removed": 0}
    assert invoke_workbench("history", str(root), "3").stdout.endswith("since iteration 2:\n  nothing flipped\n")


def test_no_history_flag_and_an_empty_history(tmp_path: Path) -> None:
    root = qa_project(tmp_path, {"a": "A", "b": "B"})
    empty = invoke_workbench("history", str(root))
    assert empty.returncode == 0 and "no history yet" in empty.stdout
    assert history_json(root) == []
    assert run(root, "--no-history").returncode == 0
    assert not (root / ".workbench").exists()
    assert invoke_workbench("history", str(root), "1").returncode == 1
