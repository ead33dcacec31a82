"""`kind = "uip"`: run a UiPath API workflow per row with `uip api-workflow run` (seed 003 §2).

The raw output is the `response` of the LAST `Response task evaluated successfully for "<key>": {...}`
line of the debug log. The CLI's `Data` is PascalCased and is never used for scoring.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import itertools
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

from .. import jsonio
from ..compare import type_name
from ..config import Config
from ..regular_files import open_regular
from .base import LogSink, Runner, RunOutcome, RunRequest, describe_failure, expand_argv
from .process import LOG_KEEP_BYTES, TailBuffer, run_process

# What follows the marker on a Response line: `for "<key>": <payload>` (either part may be missing).
_PAYLOAD = re.compile(r'Response task evaluated successfully(?: for "[^"]*")?:?[ \t]*(.*?)\s*$', re.DOTALL)
_MARKER = b"Response task evaluated successfully"
_TAIL_INTERVAL_S = 0.1
_LOG_CHUNK = 1024 * 1024
_LOG_LINE_SHOWN = 64 * 1024
_ERROR_LINE_SHOWN = 240  # characters of a bad Response line quoted in the row's error


class UipError(Exception):
    """The run produced no usable raw output; the message says why."""


def raw_output_from_log(log_text: str) -> Any:
    """The `response` of the last Response line in a uip debug log."""
    last: tuple[int, str] | None = None
    for number, line in enumerate(log_text.splitlines(), 1):
        if _MARKER.decode() in line:
            last = (number, line)
    return _response(last)


def _response(last: tuple[int, str] | None) -> Any:
    """The `response` of the last Response line (its number in the log, its text). That line is the
    output or nothing is: when it is cut off or carries something other than a JSON object, the row
    is an ERROR naming it — an earlier Response line's output is never scored in its place."""
    if last is None:
        raise UipError("the debug log has no 'Response task evaluated successfully' line "
                       "(did the workflow reach its Response?)")
    number, line = last
    where = f"the last 'Response task evaluated successfully' line (line {number} of the debug log)"
    why = ("; an earlier Response line is not the output, so the row is not scored. The line: "
           + _shown(line.strip()))
    match = _PAYLOAD.search(line)
    payload = match.group(1) if match else ""
    if not payload:
        raise UipError(f"{where} is followed by nothing, not a JSON object{why}")
    try:
        value = jsonio.loads(payload)
    except jsonio.JsonError as exc:
        raise UipError(f"{where} is not a JSON object: it is not JSON (cut off?): {exc}{why}") from None
    if not isinstance(value, dict):
        raise UipError(f"{where} is followed by {_a(type_name(value))}, not a JSON object{why}")
    if "response" not in value:
        raise UipError(f"{where} has no \"response\" field{why}")
    return value["response"]


def _a(kind: str) -> str:
    return kind if kind == "null" else ("an " if kind[0] in "aeiou" else "a ") + kind


def _shown(line: str) -> str:
    """A Response line as an error quotes it: whole when short, else its start and its end (where a cut
    shows)."""
    if len(line) <= _ERROR_LINE_SHOWN:
        return line
    half = _ERROR_LINE_SHOWN // 2
    return f"{line[:half]} … {line[-half:]}"


def read_envelope(stdout: bytes) -> dict[str, Any]:
    """The `--output json` envelope: {"Result": "Success" | ..., "Message": ..., "Data": ...}."""
    try:
        return jsonio.loads_object(stdout)
    except jsonio.NotAnObject:
        raise UipError("uip printed JSON that is not an object with \"Result\"") from None
    except jsonio.JsonError as exc:
        raise UipError(f"uip printed output that is not JSON ({exc})") from None


class _DebugLog:
    """Reads the debug log as uip appends to it, in bounded memory however much it writes: each line
    goes to the row's live log, the last Response line (up to `cap` bytes) is kept for the output, and
    the last LOG_KEEP_BYTES are kept as the row's log."""

    def __init__(self, path: Path, cap: int, on_log: LogSink | None) -> None:
        self.path = path
        self.cap = cap
        self.on_log = on_log
        self.offset = 0
        self.line = bytearray()
        self.skipping = False  # inside a line longer than `cap`: dropped up to its newline
        self.last: tuple[int, str] | None = None  # the last Response line: its number and text
        self.overlong = False  # the last Response line was longer than `cap`
        self.lines = 0  # lines seen so far (a Response line is named by its number)
        self.tail = TailBuffer(LOG_KEEP_BYTES)

    def poll(self, *, final: bool = False) -> None:
        """Take in what was appended since the last poll (everything, when `final`)."""
        with contextlib.suppress(OSError), open_regular(self.path) as handle:
            handle.seek(self.offset)
            reads = 0
            while final or reads < 4:  # a live poll takes a few MiB at most; the final one takes the rest
                chunk = handle.read(_LOG_CHUNK)
                if not chunk:
                    break
                reads += 1
                self.offset += len(chunk)
                self._feed(chunk)
        if final and self.line and not self.skipping:
            self._end_line(bytes(self.line))
            self.line.clear()

    def _feed(self, chunk: bytes) -> None:
        self.tail.add(chunk)
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            piece = chunk[start:] if end < 0 else chunk[start:end]
            if not self.skipping:
                self.line += piece
                if len(self.line) > self.cap:
                    if _MARKER in self.line[:4096]:
                        self.last, self.overlong = (self.lines + 1, ""), True
                    self._show(bytes(self.line[:_LOG_LINE_SHOWN]) + b" [workbench: line too long; rest not read]")
                    self.line.clear()
                    self.skipping = True
            if end < 0:
                return
            if not self.skipping:
                self._end_line(bytes(self.line))
            else:
                self.lines += 1
            self.line.clear()
            self.skipping = False
            start = end + 1

    def _end_line(self, raw: bytes) -> None:
        self.lines += 1
        self._show(raw[:_LOG_LINE_SHOWN] + (b"\xe2\x80\xa6" if len(raw) > _LOG_LINE_SHOWN else b""))
        if _MARKER in raw:  # every Response line counts, well-formed or not: the last one is the output
            self.last, self.overlong = (self.lines, raw.decode("utf-8", errors="replace")), False

    def _show(self, raw: bytes) -> None:
        if self.on_log is not None:
            self.on_log(raw.decode("utf-8", errors="replace").rstrip("\r"))

    def text(self) -> str:
        text = self.tail.text()
        return ("[workbench] the start of the debug log was dropped\n" + text) if self.tail.truncated else text

    def output(self) -> Any:
        if self.overlong:
            line = f" (line {self.last[0]})" if self.last else ""
            raise UipError(f"the last Response line of the debug log{line} is longer than {self.cap / 2**20:g} MiB "
                           "(raise [runner] max_output_mb if that is expected)")
        return _response(self.last)

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
        auth = [] if self.config.runner.auth else ["--no-auth"]  # [runner] auth = true: authenticated runs
        return [*self.uip, "api-workflow", "run", str(self.workflow),
                "--input-arguments", jsonio.dumps_bytes(inputs).decode("utf-8"),
                *auth, "--output", "json", "--log-level", "debug", "--log-file", str(log_path)]

    async def run(self, request: RunRequest, on_log: LogSink | None = None) -> RunOutcome:
        log_path = self._log_dir / f"{next(self._counter)}.log"
        timeout = request.time_limit(self.config.runner.timeout)
        debug_log = _DebugLog(log_path, self.stdout_cap, on_log)
        follower = asyncio.ensure_future(debug_log.follow()) if on_log else None
        argv = self.argv(request.inputs, log_path)
        try:
            result = await run_process(argv, stdin=b"", cwd=self.config.root,
                                       env=self.child_env(request), timeout=timeout,
                                       stdout_cap=self.stdout_cap, on_log=on_log)
        finally:
            if follower is not None:
                follower.cancel()
        debug_log.poll(final=True)
        log_text = debug_log.text()
        log_path.unlink(missing_ok=True)
        log = log_text + (f"\n[uip stderr]\n{result.log}" if result.log.strip() else "")
        outcome = RunOutcome(duration_ms=result.duration_ms, log=log)
        failure = result.failure(timeout, self.stdout_cap)
        # A uip that crashed or exited without printing anything: its exit is the story, not "no JSON".
        if result.start_error or result.timed_out or result.stdout_overflow or (failure and not result.stdout.strip()):
            reason = f"uip {failure}"
            if result.start_errno == errno.E2BIG:
                size = len(argv[argv.index("--input-arguments") + 1].encode("utf-8", "surrogatepass"))
                reason += (f": the row's inputs ({size / 1024:.0f} KiB as JSON) go on uip's command line "
                           "(--input-arguments), and Linux allows at most 128 KiB in one argument")
            elif result.start_error:
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
            outcome.output = debug_log.output()
        except UipError as exc:
            outcome.error = describe_failure(str(exc), log_text or result.log, result.stdout,
                                             log_name="debug log" if log_text else "stderr")
        return outcome

    async def aclose(self) -> None:
        shutil.rmtree(self._log_dir, ignore_errors=True)
