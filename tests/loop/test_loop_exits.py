"""The loop's exits (issue 12 points 9 and 10; seed 003 §3): `watch --plain --until-green` stops green
with 0, `--max-iterations` and `--stop-on-stall` stop not green with 1, every ending — Ctrl-C too —
prints each row of the final state with its verdict and one-line reason, and an iteration that
improves is never called stalled. The CLI tests run the real command in a fresh interpreter."""

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
from helpers.cli import cli_env, closing_fixture, invoke_workbench
from helpers.project import make_project, row

from workbench.events import IterationReport, Trigger
from workbench.model import Result, Verdict
from workbench.progress import LoopTracker, StopRules, final_summary, progress_line

WAIT_S = 60.0
RESAVE_S = 6.0

TARGET = """\
import json, sys
inputs = json.load(sys.stdin)
answers = json.load(open("answers.json"))
if inputs["q"] == "crash":
    sys.stderr.write("Traceback: boom\\n")
    sys.exit(3)
print(json.dumps({"answer": answers.get(inputs["q"], "?")}))
"""


def loop_project(tmp_path: Path, answers: dict[str, str], *, crash: bool = False, stall_after: int = 3) -> Path:
    rows = [row(f"question {q}", {"q": q}, {"answer": q.upper()}) for q in "ab"]
    if crash:
        rows.append(row("crashes", {"q": "crash"}, {"answer": "C"}))
    root = make_project(tmp_path / "project", sets={"qa": rows}, files={"target.py": TARGET},
                        config={"runner": {"kind": "command", "command": ["{python}", "target.py"], "timeout": 60},
                                "watch": {"stall_after": stall_after}})
    write_answers(root, answers)
    return root


def write_answers(root: Path, answers: dict[str, str]) -> None:
    (root / "answers.json").write_text(json.dumps(answers), encoding="utf-8")


class Loop:
    """`workbench watch PATH --plain ARGS` in a fresh interpreter; stdout read line by line."""

    def __init__(self, root: Path, *args: str) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "workbench", "watch", str(root), "--plain", *args],
                                     env=cli_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     encoding="utf-8", errors="replace")
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def expect(self, pattern: str, timeout: float = WAIT_S) -> str | None:
        """The next line matching `pattern`; None when the process ended or `timeout` passed first."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                return None
            if line is None:
                self.lines.put(None)
                return None
            self.seen.append(line)
            if re.search(pattern, line):
                return line

    def save_until(self, save: Callable[[], None], pattern: str) -> str:
        """Save, and save again while the watcher may not have been live yet."""
        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline:
            save()
            line = self.expect(pattern, RESAVE_S)
            if line is not None:
                return line
        pytest.fail(f"no line matching {pattern!r}; stdout:\n" + "\n".join(self.seen))

    def finish(self) -> tuple[int, list[str]]:
        """Wait for the exit; the exit code and every line printed (all of stdout)."""
        code = self.proc.wait(timeout=WAIT_S)
        while (line := self.lines.get(timeout=WAIT_S)) is not None:
            self.seen.append(line)
        return code, self.seen

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


watch = closing_fixture(Loop)


def after(lines: list[str], prefix: str) -> list[str]:
    """The lines from the first one starting with `prefix` to the end."""
    index = next((i for i, line in enumerate(lines) if line.startswith(prefix)), None)
    assert index is not None, f"no line starting with {prefix!r} in:\n" + "\n".join(lines)
    return lines[index:]


# -- the command line ---------------------------------------------------------------------------------


def test_until_green_exits_0_at_once_when_the_first_iteration_is_green(tmp_path: Path) -> None:
    root = loop_project(tmp_path, {"a": "A", "b": "B"})
    proc = invoke_workbench("watch", str(root), "--plain", "--until-green")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert re.match(r"iteration 1 \(start\): 2/2 rows pass in .* — all green$", lines[1]), lines
    assert lines[2:] == ["stopped (all green) — final state after iteration 1: 2/2 rows pass",
                         "  PASS   qa.json › question a", "  PASS   qa.json › question b"]


@pytest.mark.process("a live watch loop, edited under it and read line by line, and its exit code")
def test_until_green_keeps_looping_until_a_fix_turns_every_row_green(tmp_path: Path, watch: Any) -> None:
    root = loop_project(tmp_path, {"a": "A", "b": "wrong"})
    loop = watch(root, "--until-green")
    assert loop.expect(r"^iteration 1 \(start\): 1/2 rows pass") is not None, loop.seen
    loop.save_until(lambda: write_answers(root, {"a": "A", "b": "B"}), r"all green$")
    code, lines = loop.finish()
    assert code == 0
    assert after(lines, "stopped")[0].startswith("stopped (all green) — final state after iteration ")


def test_max_iterations_not_green_exits_1_with_every_row_and_its_reason(tmp_path: Path) -> None:
    root = loop_project(tmp_path, {"a": "A", "b": "wrong"}, crash=True)
    proc = invoke_workbench("watch", str(root), "--plain", "--max-iterations", "1")
    assert proc.returncode == 1, proc.stderr
    summary = after(proc.stdout.splitlines(), "stopped")
    assert summary[0] == "stopped (reached --max-iterations 1 (not green)) — final state after iteration 1: " \
                         "1/3 rows pass"
    assert summary[1] == "  PASS   qa.json › question a"
    assert summary[2] == '  FAIL   qa.json › question b — answer: expected "B", got "wrong"'
    assert summary[3].startswith("  ERROR  qa.json › crashes — the target exited with code 3")
    assert len(summary) == 4  # one line per row: the crash's reason is one line


def test_max_iterations_ending_green_exits_0(tmp_path: Path) -> None:
    root = loop_project(tmp_path, {"a": "A", "b": "B"})
    proc = invoke_workbench("watch", str(root), "--plain", "--max-iterations", "1")
    assert proc.returncode == 0, proc.stderr
    assert "stopped (reached --max-iterations 1 (all green)) — final state after iteration 1: 2/2 rows pass" \
        in proc.stdout


@pytest.mark.process("a live watch loop, edited under it and read line by line, and its exit code")
def test_stop_on_stall_exits_1_once_the_loop_is_stalled(tmp_path: Path, watch: Any) -> None:
    root = loop_project(tmp_path, {"a": "A", "b": "wrong"}, stall_after=1)
    loop = watch(root, "--stop-on-stall")
    assert loop.expect(r"^iteration 1 \(start\)") is not None, loop.seen
    loop.save_until(lambda: write_answers(root, {"a": "A", "b": "still wrong"}), r"— stalled: ")
    code, lines = loop.finish()
    assert code == 1
    summary = after(lines, "stopped")
    assert re.match(r"stopped \(stalled: no improvement in passes for 1 iteration\) — final state after "
                    r"iteration \d+: 1/2 rows pass$", summary[0]), summary
    assert summary[2] == '  FAIL   qa.json › question b — answer: expected "B", got "still wrong"'


@pytest.mark.process("Ctrl-C (SIGINT) sent to a live watch process, and its exit code")
def test_ctrl_c_prints_the_final_state_and_a_goal_not_reached_is_not_success(tmp_path: Path, watch: Any) -> None:
    root = loop_project(tmp_path, {"a": "A", "b": "wrong"})
    loop = watch(root, "--until-green")
    assert loop.expect(r"^iteration 1 \(start\)") is not None, loop.seen
    loop.proc.send_signal(signal.SIGINT)
    code, lines = loop.finish()
    assert code == 130
    assert after(lines, "stopped") == ["stopped — final state after iteration 1: 1/2 rows pass",
                                       "  PASS   qa.json › question a",
                                       '  FAIL   qa.json › question b — answer: expected "B", got "wrong"']


def test_the_progress_line_names_the_broken_file_and_its_error(tmp_path: Path) -> None:
    root = loop_project(tmp_path, {"a": "A", "b": "B"})
    (root / "evals/default/eval-sets/broken.json").write_text('{"evaluations": [', encoding="utf-8")
    proc = invoke_workbench("watch", str(root), "--plain", "--max-iterations", "1")
    assert proc.returncode == 1
    line = next(line for line in proc.stdout.splitlines() if line.startswith("iteration 1"))
    assert "file problem" not in line.split("— problem:")[0]
    assert re.search(r" — problem: evals/default/eval-sets/broken\.json: is not valid JSON at line 1, column \d+",
                     line), line
    assert "  problem: evals/default/eval-sets/broken.json: is not valid JSON" in proc.stdout  # in the summary


def test_stop_rules_need_plain(tmp_path: Path) -> None:
    root = loop_project(tmp_path, {"a": "A", "b": "B"})
    proc = invoke_workbench("watch", str(root), "--until-green")
    assert proc.returncode == 2 and "need --plain" in proc.stderr


# -- the rules themselves ---------------------------------------------------------------------------


def result(name: str, verdict: str = "PASS", detail: str = "") -> Result:
    return Result(scope="default", set_file="qa.json", row_id=name, row_name=name, evaluator="exact",
                  verdict=Verdict(verdict), score=1.0 if verdict == "PASS" else 0.0, detail=detail)


def iteration(tracker: LoopTracker, number: int, *results: Result) -> Any:
    return tracker.update(IterationReport(trigger=Trigger("manual"), results=list(results), complete=True,
                                          number=number))


def test_an_iteration_that_improves_is_never_stalled() -> None:
    """30 rows: all pass, then 24, then 28 (+4): the +4 is progress, even below the best count."""
    tracker = LoopTracker(stall_after=1)
    names = [f"row {i}" for i in range(30)]

    def passing(count: int) -> list[Result]:
        return [result(n) if i < count else result(n, "FAIL", "d") for i, n in enumerate(names)]

    iteration(tracker, 1, *passing(29))
    assert iteration(tracker, 2, *passing(24)).stalled_for == 1
    improved = iteration(tracker, 3, *passing(28))
    assert improved.change == 4 and improved.stalled_for == 0
    assert "stalled" not in progress_line(improved)
    assert iteration(tracker, 4, *passing(28)).stalled_for == 1


def test_stop_rules() -> None:
    tracker = LoopTracker(stall_after=1)
    red = iteration(tracker, 1, result("a"), result("b", "FAIL", "d"))
    assert StopRules(until_green=True).check(red, 1) is None
    assert StopRules(max_iterations=2).check(red, 1) is None
    assert StopRules(max_iterations=1).check(red, 1).exit_code == 1  # type: ignore[union-attr]
    stalled = iteration(tracker, 2, result("a"), result("b", "FAIL", "d"))
    assert StopRules().check(stalled, 2) is None  # no rule, no end
    end = StopRules(stop_on_stall=True).check(stalled, 2)
    assert end is not None and end.exit_code == 1 and end.reason.startswith("stalled")
    green = iteration(tracker, 3, result("a"), result("b"))
    until = StopRules(until_green=True, max_iterations=3).check(green, 3)
    assert until is not None and (until.reason, until.exit_code) == ("all green", 0)


def test_the_final_summary_lists_every_failing_row_and_caps_passing_ones() -> None:
    tracker = LoopTracker()
    assert final_summary(tracker) == ["stopped"]
    rows = [result(f"pass {i}") for i in range(60)] + [result(f"fail {i}", "FAIL", f"why {i}\nmore") for i in range(5)]
    iteration(tracker, 7, *rows)
    lines = final_summary(tracker, "all green")
    assert lines[0] == "stopped (all green) — final state after iteration 7: 60/65 rows pass"
    assert sum(line.startswith("  PASS") for line in lines) == 50
    assert "  … and 10 more passing rows" in lines
    assert [line for line in lines if line.startswith("  FAIL")] == [
        f"  FAIL   qa.json › fail {i} — why {i}" for i in range(5)]
