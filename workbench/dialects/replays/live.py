"""Run a tool's real handler for a `"live": true` step, in a child process.

The child is the same one `kind = "python"` targets use (`worker_main.py`: it imports
`package.module:function` with the project root first on sys.path and answers one JSON line), fed one
request and then end of input, so it exits after the one call, started through `handler_main.py`,
which holds the handler's relative-path writes in its folder (see there for what it can't hold). It
runs through `run_process`: its own process group, the runner's timeout, capped output, and the whole
group killed when it finishes, times out or the replay is cancelled. The handler gets the step's
`arguments` as its one argument; what it returns is the step's result. Its working directory is the
row's scratch folder under `.workbench/replays/`, checked (by device and inode) to be the folder the
replay opened without following a link. The files the handler reads are recorded (`read_audit.py`, into a
file in a temp folder of its own) and handed back with its answer, for the replay row's `RunOutcome.reads`.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ... import jsonio
from ...config import Config
from ...runners.base import LogSink, env_value, target_env
from ...runners.process import run_process
from ...runners.read_audit import ReadsFile

HANDLER_MAIN = Path(__file__).resolve().parent / "handler_main.py"


@dataclass(frozen=True, slots=True)
class HandlerAnswer:
    """The handler's return value, or why there is none (`error`), and what the handler read."""

    value: Any = None
    error: str | None = None
    log: str = ""
    reads: tuple[str, ...] = ()  # as `RunOutcome.reads`
    read_stats: dict[str, tuple[int, ...]] = field(default_factory=dict)


def _reply(stdout: bytes) -> dict[str, Any] | None:
    lines = [line for line in stdout.splitlines() if line.strip()]
    if not lines:
        return None
    try:
        reply = jsonio.loads(lines[-1])
    except jsonio.JsonError:
        return None
    return reply if isinstance(reply, dict) else None


async def call_handler(spec: str, arguments: dict[str, Any], *, config: Config, cwd: Path, cwd_id: str,
                       row_id: str, on_log: LogSink | None = None) -> HandlerAnswer:
    """Call `spec` on `arguments` in a child process whose working directory is `cwd`, the folder whose
    `DEVICE:INODE` is `cwd_id`; never raises for the handler's faults."""
    env = target_env(config)
    env.update({"WORKBENCH_ROW_ID": env_value(row_id), "PYTHONUNBUFFERED": "1"})
    request = jsonio.dumps({"id": 1, "inputs": arguments}).encode("utf-8") + b"\n"
    timeout = config.runner.timeout
    stdout_cap = int(config.runner.max_output_mb * 2**20)
    folder = tempfile.mkdtemp(prefix="workbench-handler-")  # the audit leaves out its reads file's folder
    reads = ReadsFile(str(Path(folder) / "handler.reads"))
    trust = ["-t"] if config.cache.trust_subprocesses else []
    try:
        done = await run_process([sys.executable, str(HANDLER_MAIN), cwd_id, str(config.root), spec, reads.path,
                                  *trust], stdin=request, cwd=cwd, env=env, timeout=timeout, stdout_cap=stdout_cap,
                                 on_log=on_log)
        seen = HandlerAnswer(log=done.log, reads=reads.paths(), read_stats=reads.stats())
    finally:
        reads.close()
        shutil.rmtree(folder, ignore_errors=True)
    failure = done.failure(timeout, stdout_cap)
    reply = _reply(done.stdout)
    if reply is not None and isinstance(reply.get("refused"), str):
        return replace(seen, error=reply["refused"])
    if reply is not None and "fatal" in reply:
        return replace(seen, error=f"could not load {spec} (imported with {config.root} first on sys.path): "
                                   f"{reply['fatal']}")
    if done.timed_out or reply is None:
        return replace(seen, error=f"the handler {spec} {failure or 'gave no answer'}")
    if "error" in reply:
        return replace(seen, error=f"the handler {spec} raised {reply['error']}")
    return replace(seen, value=reply.get("output"))


__all__ = ["HandlerAnswer", "call_handler"]
