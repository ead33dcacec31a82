"""Issue 12, point 14: workbench reads a file only when it is a regular file, up to a size limit — a
baseline (or a trace file) that is a link to /dev/zero or a FIFO is a clear error, not 11 GB or a hang."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from helpers.cli import cli_env, invoke_workbench
from helpers.project import COMMAND_CONFIG, make_project, row

from workbench.config import load_config
from workbench.regular_files import UnreadableFile, read_regular_file
from workbench.runners import RunRequest, make_runner

GUARD_S = 60  # a hang fails here instead of forever (pytest-timeout, the run being in this process)


def test_only_a_regular_file_is_read_and_only_up_to_the_limit(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(UnreadableFile, match="named pipe"):
        read_regular_file(fifo, 1024)
    zero = tmp_path / "zero"
    zero.symlink_to("/dev/zero")
    with pytest.raises(UnreadableFile, match="a device"):
        read_regular_file(zero, 1024)
    with pytest.raises(UnreadableFile, match="a folder"):
        read_regular_file(tmp_path, 1024)
    big = tmp_path / "big"
    big.write_bytes(b"x" * 2048)
    with pytest.raises(UnreadableFile, match="larger than"):
        read_regular_file(big, 1024)
    assert read_regular_file(big, 2048) == b"x" * 2048
    with pytest.raises(FileNotFoundError):
        read_regular_file(tmp_path / "missing", 1024)


def test_a_link_is_refused_when_links_are_not_followed(tmp_path: Path) -> None:
    """`follow_links=False` (the redactor's `.env` reads): a link is refused on open (O_NOFOLLOW), never read."""
    target = tmp_path / "target"
    target.write_bytes(b"SECRET_TOKEN=elsewhere")
    link = tmp_path / "link"
    link.symlink_to(target)
    assert read_regular_file(link, 1024) == b"SECRET_TOKEN=elsewhere"
    with pytest.raises(UnreadableFile, match="symbolic link"):
        read_regular_file(link, 1024, follow_links=False)
    assert read_regular_file(target, 1024, follow_links=False) == b"SECRET_TOKEN=elsewhere"


def _project(root: Path) -> Path:
    return make_project(root, sets={"s": [row("a", {"output": {"x": 1}}, {"x": 1})]}, config=COMMAND_CONFIG)


@pytest.mark.timeout(GUARD_S)
@pytest.mark.parametrize("kind", ["link to /dev/zero", "fifo"])
def test_a_baseline_that_is_not_a_regular_file_is_a_clear_error(tmp_path: Path, kind: str) -> None:
    root = _project(tmp_path)
    baseline = root / "workbench-baseline.json"
    if kind == "fifo":
        os.mkfifo(baseline)
    else:
        baseline.symlink_to("/dev/zero")
    proc = invoke_workbench("run", str(root), env=cli_env())
    assert proc.returncode != 0
    assert "workbench-baseline.json" in proc.stderr and "Traceback" not in proc.stderr
    # A link is refused before it is opened (it leads out of the project); a FIFO is opened without blocking
    # and refused as not a regular file.
    assert ("--baseline PATH" if kind != "fifo" else "not a regular file") in proc.stderr
    # Named on the command line, the link is the user's explicit choice: still never read as a baseline.
    proc = invoke_workbench("run", str(root), "--baseline", str(baseline), env=cli_env())
    assert proc.returncode != 0 and "not a regular file" in proc.stderr and "Traceback" not in proc.stderr


FIFO_TRACE_TARGET = """
import json, os, sys
json.load(sys.stdin)
trace = os.environ["WORKBENCH_TRACE"]
if os.path.lexists(trace):
    os.remove(trace)
os.mkfifo(trace)  # nobody will ever write to it
print(json.dumps({"x": 1}))
"""


async def test_a_trace_file_turned_into_a_fifo_is_a_complaint_not_a_hang(tmp_path: Path) -> None:
    root = make_project(tmp_path, sets={}, files={"target.py": FIFO_TRACE_TARGET},
                        config={"kind": "command", "command": ["{python}", "target.py"], "timeout": 20})
    runner = make_runner(load_config(root))
    try:
        outcome = await asyncio.wait_for(runner.run(RunRequest({}, "a", "a", "s.json", "default")), GUARD_S)
    finally:
        await runner.aclose()
    assert outcome.output == {"x": 1}
    assert "trace file unreadable" in outcome.log and "not a regular file" in outcome.log
