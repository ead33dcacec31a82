"""`kind = "uip"`: run a UiPath API workflow per row with `uip api-workflow run` (seed 003 §2).

The raw output is the `response` of the LAST `Response task evaluated successfully for "<key>": {...}`
line of the debug log. The CLI's `Data` is PascalCased and is never used for scoring.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

from .. import jsonio
from ..config import Config
from .base import LogSink, Runner, RunOutcome, RunRequest, describe_failure, expand_argv
from .process import run_process

RESPONSE_LINE = re.compile(r'Response task evaluated successfully for "[^"]*": (\{.*\})\s*$')
_TAIL_INTERVAL_S = 0.1


class UipError(Exception):
    """The run produced no usable raw output; the message says why."""


def raw_output_from_log(log_text: str) -> Any:
    """The `response` of the last Response line in a uip debug log."""
    last = None
    for line in log_text.splitlines():
        match = RESPONSE_LINE.search(line)
        if match:
            last = match.group(1)
    if last is None:
        raise UipError("the debug log has no 'Response task evaluated successfully' line "
                       "(did the workflow reach its Response?)")
    try:
        payload = jsonio.loads(last)
    except jsonio.JsonError as exc:
        raise UipError(f"the last Response line of the debug log is not JSON: {exc}") from None
    if not isinstance(payload, dict) or "response" not in payload:
        raise UipError("the last Response line of the debug log has no \"response\" field")
    return payload["response"]


def read_envelope(stdout: bytes) -> dict[str, Any]:
    """The `--output json` envelope: {"Result": "Success" | ..., "Message": ..., "Data": ...}."""
    try:
        envelope = jsonio.loads(stdout)
    except jsonio.JsonError as exc:
        raise UipError(f"uip printed output that is not JSON ({exc})") from None
    if not isinstance(envelope, dict):
        raise UipError("uip printed JSON that is not an object with \"Result\"")
    return envelope


class _LogTail:
    """Streams lines appended to the debug log while uip runs, and whatever is left once it exits
    (a run shorter than one polling interval must still show its log)."""

    def __init__(self, path: Path, on_log: LogSink) -> None:
        self.path = path
        self.on_log = on_log
        self.offset = 0
        self.pending = b""

    def poll(self, *, final: bool = False) -> None:
        with contextlib.suppress(OSError):
            with self.path.open("rb") as handle:
                handle.seek(self.offset)
                chunk = handle.read()
            self.offset += len(chunk)
            self.pending += chunk
        *lines, self.pending = self.pending.split(b"\n")
        if final and self.pending:
            lines.append(self.pending)
            self.pending = b""
        for line in lines:
            self.on_log(line.decode("utf-8", errors="replace").rstrip("\r"))

    async def follow(self) -> None:
        while True:
            self.poll()
            await asyncio.sleep(_TAIL_INTERVAL_S)


class UipRunner(Runner):
    def __init__(self, config: Config) -> None:
        super().__init__(config)
        self.workflow = (config.root / config.runner.workflow).resolve()
        self.uip = expand_argv(config.runner.uip)
        self._log_dir = Path(tempfile.mkdtemp(prefix="workbench-uip-"))
        self._counter = itertools.count()

    def argv(self, inputs: dict[str, Any], log_path: Path) -> list[str]:
        return [*self.uip, "api-workflow", "run", str(self.workflow),
                "--input-arguments", jsonio.dumps_bytes(inputs).decode("utf-8"),
                "--no-auth", "--output", "json", "--log-level", "debug", "--log-file", str(log_path)]

    async def run(self, request: RunRequest, on_log: LogSink | None = None) -> RunOutcome:
        log_path = self._log_dir / f"{next(self._counter)}.log"
        timeout = self.config.runner.timeout
        tail = _LogTail(log_path, on_log) if on_log else None
        follower = asyncio.ensure_future(tail.follow()) if tail else None
        try:
            result = await run_process(self.argv(request.inputs, log_path), stdin=b"", cwd=self.config.root,
                                       env=self.child_env(request), timeout=timeout,
                                       stdout_cap=self.stdout_cap, on_log=on_log)
        finally:
            if follower is not None:
                follower.cancel()
        if tail is not None:
            tail.poll(final=True)
        try:
            log_text = log_path.read_bytes().decode("utf-8", errors="replace")
        except OSError:
            log_text = ""
        finally:
            log_path.unlink(missing_ok=True)
        log = log_text + (f"\n[uip stderr]\n{result.log}" if result.log.strip() else "")
        outcome = RunOutcome(duration_ms=result.duration_ms, log=log)
        failure = result.failure(timeout, self.stdout_cap)
        if result.start_error or result.timed_out or result.stdout_overflow:
            reason = f"uip {failure}"
            if result.start_error:
                reason += ("; is the UiPath CLI installed and on PATH? To use another one, set "
                           "[runner] uip = [\"/path/to/uip\"] in workbench.toml")
            outcome.error = describe_failure(reason, result.log, result.stdout)
            return outcome
        try:
            envelope = read_envelope(result.stdout)
            if envelope.get("Result") != "Success":
                message = envelope.get("Message") or "(no Message)"
                raise UipError(f"the run's Result is {envelope.get('Result')!r}, not 'Success': {message}")
            if failure:
                raise UipError(f"uip reported Success but {failure}")
            outcome.output = raw_output_from_log(log_text)
        except UipError as exc:
            outcome.error = describe_failure(str(exc), log_text or result.log, result.stdout,
                                             log_name="debug log" if log_text else "stderr")
        return outcome

    async def aclose(self) -> None:
        shutil.rmtree(self._log_dir, ignore_errors=True)
