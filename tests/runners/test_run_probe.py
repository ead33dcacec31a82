"""`runners.process.run_probe`, the synchronous question the re-scoring proof asks an interpreter: whatever the
probed program starts in its process group dies with the answer (`subprocess.run(timeout=...)` would leave it)."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest
from helpers.checks import process_alive

from workbench.runners.process import run_probe

# Starts a grandchild that holds none of the pipes and would sleep for ten minutes, says its pid, exits.
LEAVES_A_DAEMON = """
import subprocess, sys
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"],
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(child.pid)
"""


def test_what_the_probed_program_left_running_dies_with_its_answer(tmp_path: Path) -> None:
    done = run_probe([sys.executable, "-c", LEAVES_A_DAEMON], cwd=tmp_path, env=dict(os.environ), timeout=60)
    assert done.returncode == 0, done.stderr
    grandchild = int(done.stdout.split()[-1])
    try:
        # SIGKILL was sent before run_probe returned; its delivery is the kernel's: wait for it (a hang guard)
        deadline = time.monotonic() + 30
        while process_alive(grandchild) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not process_alive(grandchild), "the probe's grandchild outlived the answer"
    finally:
        if process_alive(grandchild):
            os.kill(grandchild, 9)


def test_a_program_that_cant_start_is_an_oserror(tmp_path: Path) -> None:
    with pytest.raises(OSError):
        run_probe([str(tmp_path / "no-such-python"), "-c", "pass"], cwd=tmp_path, env=dict(os.environ), timeout=60)
