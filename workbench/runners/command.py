"""`kind = "command"`: one process per row; inputs as JSON on stdin, the output JSON on stdout,
stderr as the row's log, an optional trace as JSON lines in the file named by WORKBENCH_TRACE.

A command that is a Python interpreter running a script or module starts through `audited_main.py`
(`python_command.PythonCommand.audited`), so the files its row reads are recorded as in a forked row; one
that is Python but can't be watched (`-c`, ...) runs as written and its reads are unseen (never re-scored).
Other commands' reads are not known: ()."""

from __future__ import annotations

import itertools
import shutil
import tempfile
from pathlib import Path

from .. import jsonio
from ..config import Config
from ..trace import read_trace
from .base import LogSink, Runner, RunOutcome, RunRequest, describe_failure, expand_argv
from .process import ProcessResult, run_process
from .python_command import PythonCommand, parse_python_command
from .read_audit import ReadsFile, unseen_reads


class CommandRunner(Runner):
    def __init__(self, config: Config) -> None:
        super().__init__(config)
        assert config.runner.command
        self.argv = expand_argv(config.runner.command)
        self._trace_dir = Path(tempfile.mkdtemp(prefix="workbench-trace-"))
        self._counter = itertools.count()
        self._fresh_reads_ids = itertools.count(1)
        self._python = parse_python_command(self.argv)  # how a fresh process records its reads, if it can

    async def run(self, request: RunRequest, on_log: LogSink | None = None) -> RunOutcome:
        trace_path = self._trace_dir / f"{next(self._counter)}.jsonl"
        timeout = request.time_limit(self.config.runner.timeout)
        result, reads, read_stats = await self.start_row(
            jsonio.dumps_bytes(request.inputs), self.child_env(request, {"WORKBENCH_TRACE": str(trace_path)}),
            timeout, on_log)
        trace, complaints = read_trace(trace_path)
        trace_path.unlink(missing_ok=True)
        log = result.log + "".join(f"\n[workbench] {c}" for c in complaints)
        outcome = RunOutcome(duration_ms=result.duration_ms, log=log, trace=trace, reads=reads, read_stats=read_stats)
        failure = result.failure(timeout, self.stdout_cap)
        if failure:
            outcome.error = describe_failure(f"the target {failure}", result.log, result.stdout)
            return outcome
        if not result.stdout.strip():
            outcome.error = describe_failure(
                "the target printed nothing on stdout; it must print the output as JSON", result.log, b"")
            return outcome
        try:
            outcome.output = jsonio.loads(result.stdout)
        except jsonio.JsonError as exc:
            hint = jsonio.python_literal_hint(result.stdout)  # print(dict) for print(json.dumps(dict)) (issue 38)
            outcome.error = describe_failure(f"the target's stdout is not JSON: {exc}" + (f" — {hint}" if hint else ""),
                                             result.log, result.stdout)
        return outcome

    async def start_row(self, stdin: bytes, env: dict[str, str], timeout: float,
                        on_log: LogSink | None) -> tuple[ProcessResult, tuple[str, ...], dict[str, tuple[int, ...]]]:
        """One fresh process for the row (the preload runner forks a warm parent instead), and the files it
        read with their stats when that is known (`RunOutcome.reads`)."""
        if not isinstance(self._python, PythonCommand):
            result = await run_process(self.argv, stdin=stdin, cwd=self.config.root, env=env, timeout=timeout,
                                       stdout_cap=self.stdout_cap, on_log=on_log)
            return result, unseen_reads(self._python) if isinstance(self._python, str) else (), {}
        reads = ReadsFile(str(self._trace_dir / f"fresh-{next(self._fresh_reads_ids)}.reads"))
        try:
            argv = self._python.audited(reads.path, trust_subprocesses=self.config.cache.trust_subprocesses)
            result = await run_process(argv, stdin=stdin, cwd=self.config.root, env=env, timeout=timeout,
                                       stdout_cap=self.stdout_cap, on_log=on_log)
            return result, reads.paths(), reads.stats()
        finally:
            reads.close()

    async def aclose(self) -> None:
        shutil.rmtree(self._trace_dir, ignore_errors=True)
