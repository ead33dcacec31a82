"""Targets that crash, hang, fork and leave, flood their pipes, print bytes that are not UTF-8 or close stdin:
for every runner kind, the row gets its own ERROR (or its output, when it gave one), the next row still runs,
and no process the target started outlives the iteration."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers.cli import cli_env
from helpers.hardening import faulty_project, kill_all, recorded_pids, run_iteration, survivors
from helpers.project import row

from workbench.model import Verdict
from workbench.runners.process import LOG_KEEP_BYTES

pytestmark = pytest.mark.hardening

ECHO = {"do": "echo"}
FLOOD_MB = 100
LOG_BOUND = 3 * LOG_KEEP_BYTES  # what a row may keep of a log, however much was printed

# (kind, fault) -> the verdict of the faulty row, and words its detail must hold (for an ERROR).
EXPECTED: dict[tuple[str, str], tuple[Verdict, str]] = {
    ("command", "crash"): (Verdict.ERROR, "the target was killed by SIGSEGV"),
    ("worker", "crash"): (Verdict.ERROR, "the worker was killed by SIGSEGV while running this row"),
    ("python", "crash"): (Verdict.ERROR, "the worker was killed by SIGSEGV while running this row"),
    ("uip", "crash"): (Verdict.ERROR, "uip was killed by SIGSEGV"),
    ("command", "exit"): (Verdict.ERROR, "the target exited with code 3"),
    ("worker", "exit"): (Verdict.ERROR, "the worker exited with code 3 while running this row"),
    ("python", "exit"): (Verdict.ERROR, "the worker exited with code 3 while running this row"),
    ("uip", "exit"): (Verdict.ERROR, "uip exited with code 3"),
    ("command", "hang"): (Verdict.ERROR, "timed out after 1.5s; the process group was killed"),
    ("worker", "hang"): (Verdict.ERROR, "timed out after 1.5s; the worker's process group was killed"),
    ("python", "hang"): (Verdict.ERROR, "timed out after 1.5s; the worker's process group was killed"),
    ("uip", "hang"): (Verdict.ERROR, "uip timed out after 1.5s"),
    ("command", "flood_stdout"): (Verdict.ERROR, "printed more than 16 MiB on stdout; stopped and killed"),
    ("worker", "flood_stdout"): (Verdict.ERROR, "printed a stdout line longer than 16 MiB"),
    ("uip", "flood_stdout"): (Verdict.ERROR, "uip printed more than 16 MiB on stdout"),
    ("command", "bad_utf8"): (Verdict.ERROR, "not valid UTF-8 (byte 0xff"),
    ("worker", "bad_utf8"): (Verdict.ERROR, "not valid UTF-8 (byte 0xff"),
    ("uip", "bad_utf8"): (Verdict.ERROR, "not valid UTF-8 (byte 0xff"),
}
KINDS = ("command", "worker", "python", "uip")


def check_no_survivors(root: Path) -> None:
    pids = recorded_pids(root)
    assert pids, "the target recorded no pids"
    left = survivors(pids)
    kill_all(left)
    assert not left, f"processes outlived the iteration: {left}"


def run_fault(tmp_path: Path, kind: str, inputs: dict[str, Any], expected: Any = None, *, name: str = "faulty",
              **table: Any) -> tuple[Any, Any]:
    """The faulty row, then a plain row that must still run; both results."""
    # only a hang waits for the timeout, so only a hang gets a short one: any other row (the fault's and the echo
    # after it) must finish on a loaded machine, and 1.5 s is not enough there for a target that starts python
    table.setdefault("timeout", 1.5 if inputs.get("do") == "hang" else 60)
    rows = [row(name, inputs, expected if expected is not None else {"never": "matches"}, id="faulty"),
            row("next", ECHO, {"echo": ECHO}, id="next")]
    root = tmp_path / "project"
    config = faulty_project(root, kind, rows, **table)
    try:
        report = run_iteration(config)
    finally:
        check_no_survivors(root)
    faulty, following = report.results
    assert following.verdict is Verdict.PASS, f"the row after the fault did not run: {following.detail}"
    return faulty, following


@pytest.mark.parametrize("kind, fault", [key for key in EXPECTED if key[1] != "flood_stdout"],
                         ids=[f"{k}-{f}" for k, f in EXPECTED if f != "flood_stdout"])
def test_a_fault_is_that_rows_error_and_the_iteration_goes_on(tmp_path, kind, fault):
    faulty, _ = run_fault(tmp_path, kind, {"do": fault})
    verdict, words = EXPECTED[(kind, fault)]
    assert faulty.verdict is verdict and words in faulty.detail, faulty.detail


@pytest.mark.parametrize("kind", ["command", "worker", "uip"])
def test_100_mb_on_stdout_is_stopped_at_the_cap_with_a_clear_error(tmp_path, kind):
    faulty, _ = run_fault(tmp_path, kind, {"do": "flood_stdout", "mb": FLOOD_MB}, timeout=20)
    verdict, words = EXPECTED[(kind, "flood_stdout")]
    assert faulty.verdict is verdict and words in faulty.detail, faulty.detail
    assert "raise [runner] max_output_mb" in faulty.detail
    assert len(faulty.detail) < 10_000 and len(faulty.log) < LOG_BOUND


def test_100_mb_printed_by_a_python_function_is_its_capped_log(tmp_path):
    faulty, _ = run_fault(tmp_path, "python", {"do": "flood_stdout", "mb": FLOOD_MB}, {"result": None}, timeout=20)
    assert faulty.verdict is Verdict.PASS, faulty.detail
    assert 0 < len(faulty.log) < LOG_BOUND


@pytest.mark.parametrize("kind", KINDS)
def test_100_mb_on_stderr_is_kept_as_a_capped_log_and_the_output_still_counts(tmp_path, kind):
    faulty, _ = run_fault(tmp_path, kind, {"do": "flood_stderr", "mb": FLOOD_MB}, {"flooded": True}, timeout=20)
    assert faulty.verdict is Verdict.PASS, faulty.detail
    assert 0 < len(faulty.log) < LOG_BOUND
    assert "log line yyyy" in faulty.log.splitlines()[-1]  # the newest lines are the ones kept


def test_100_mb_of_uip_debug_log_is_read_in_bounded_memory_and_its_response_still_counts(tmp_path):
    inputs = {"do": "flood_log", "mb": FLOOD_MB}
    faulty, _ = run_fault(tmp_path, "uip", inputs, {"echo": inputs}, timeout=20)
    assert faulty.verdict is Verdict.PASS, faulty.detail
    assert len(faulty.log) < LOG_BOUND


def test_invalid_utf8_from_a_python_function_is_logged_with_replacements(tmp_path):
    faulty, _ = run_fault(tmp_path, "python", {"do": "bad_utf8"}, {"v": "\udcff"})
    assert faulty.verdict is Verdict.PASS, faulty.detail  # a lone surrogate is a legal JSON string
    assert "log \ufffd" in faulty.log


@pytest.mark.parametrize("kind", ["command", "uip"])
def test_a_target_that_leaves_a_grandchild_holding_its_pipes_is_not_a_timeout(tmp_path, kind):
    """It answered and exited: its answer counts at once (not after the timeout), and the grandchild dies."""
    faulty, _ = run_fault(tmp_path, kind, {"do": "fork_exit"}, {"forked": True}, timeout=10)
    assert faulty.verdict is Verdict.PASS, faulty.detail


def test_a_worker_that_answers_and_exits_leaving_a_grandchild_is_replaced(tmp_path):
    faulty, _ = run_fault(tmp_path, "worker", {"do": "fork_exit"}, {"forked": True}, timeout=10)
    assert faulty.verdict is Verdict.PASS, faulty.detail


def test_a_python_function_that_forks_and_kills_its_worker_is_that_rows_error(tmp_path):
    faulty, _ = run_fault(tmp_path, "python", {"do": "fork_exit"})
    assert faulty.verdict is Verdict.ERROR and "the worker exited with code 0" in faulty.detail


def test_a_command_that_closes_stdin_before_reading_a_large_input_still_answers(tmp_path):
    inputs = {"do": "echo", "pad": "p" * (4 * 2**20)}  # far more than a pipe holds
    faulty, _ = run_fault(tmp_path, "command", inputs, {"echo": {"do": "echo", "closed": True}}, name="close_stdin")
    assert faulty.verdict is Verdict.PASS, faulty.detail


@pytest.mark.parametrize("kind", ["worker", "python"])
def test_a_worker_that_closes_stdin_answers_its_row_and_the_next_row_gets_a_fresh_worker(tmp_path, kind):
    faulty, following = run_fault(tmp_path, kind, {"do": "close_stdin"}, {"closed": True}, timeout=10)
    assert faulty.verdict is Verdict.PASS, faulty.detail
    assert following.verdict is Verdict.PASS


def test_huge_inputs_for_uip_are_an_error_that_says_why(tmp_path):
    faulty, _ = run_fault(tmp_path, "uip", {"do": "echo", "pad": "p" * (200 * 1024)})
    assert faulty.verdict is Verdict.ERROR
    assert "go on uip's command line" in faulty.detail and "is the UiPath CLI installed" not in faulty.detail


@pytest.mark.parametrize("kind", KINDS)
def test_many_misbehaving_rows_at_once_each_get_their_own_result(tmp_path, kind):
    faults = ["crash", "exit", "hang", "echo", "bad_utf8", "echo"]
    rows = [row(f"{fault}-{i}", {"do": fault, "i": i}, {"echo": {"do": fault, "i": i}}, id=f"r{i}")
            for i, fault in enumerate(faults)]
    root = tmp_path / "project"
    # The hanging row takes the whole timeout; the echo rows must start and answer within it on a loaded machine.
    config = faulty_project(root, kind, rows, timeout=5, concurrency=3)
    try:
        report = run_iteration(config)
    finally:
        check_no_survivors(root)
    verdicts = {r.row_id: r.verdict for r in report.results}
    assert len(verdicts) == len(faults)
    assert verdicts["r3"] is Verdict.PASS and verdicts["r5"] is Verdict.PASS
    assert all(verdicts[f"r{i}"] is Verdict.ERROR for i in (0, 1, 2))


def test_workbench_memory_stays_flat_while_a_target_floods_stderr(tmp_path):
    """Peak memory of `workbench run` with 100 MB of stderr, compared with the same run without it."""
    root = tmp_path / "project"
    inputs = {"do": "flood_stderr", "mb": FLOOD_MB}
    faulty_project(root, "command", [row("flood", inputs, {"flooded": True}), row("calm", ECHO, {"echo": ECHO})],
                   timeout=60)
    code = ("import resource, subprocess, sys; p = subprocess.run([sys.executable, '-m', 'workbench', 'run', "
            "sys.argv[1], '--json', '--no-history', *sys.argv[2:]], capture_output=True); "
            "sys.stdout.buffer.write(p.stdout); "
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)")

    def peak(*rows: str) -> tuple[int, dict[str, Any]]:
        proc = subprocess.run([sys.executable, "-c", code, str(root), *[a for r in rows for a in ("--row", r)]],
                              env=cli_env(), capture_output=True, timeout=120)
        return int(proc.stderr.split()[-1]), json.loads(proc.stdout)

    quiet_kib, quiet = peak("calm")
    flood_kib, flooded = peak("flood")
    check_no_survivors(root)
    assert quiet["summary"]["passed"] == 1 and flooded["summary"]["passed"] == 1
    # The largest child is workbench itself (the target streams its writes): 100 MB kept would show.
    assert flood_kib - quiet_kib < 40 * 1024, (quiet_kib, flood_kib)
