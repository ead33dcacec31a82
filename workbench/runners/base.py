"""The runner interface: run a row's target on its inputs and hand back the raw output."""

from __future__ import annotations

import os
import sys
from abc import ABC, abstractmethod
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..config import Config


LogSink = Callable[[str], None]
PYTHON_TOKEN = "{python}"
WORKBENCH_TOKEN = "{workbench}"  # `{workbench}/x/y.py`: that file of the installed workbench package
PACKAGE_DIR = Path(__file__).resolve().parent.parent
# What a target is told of the terminal: it has none (every process workbench starts for the project's code has
# pipes or /dev/null for stdin, stdout and stderr, and a session of its own without a controlling terminal, on a
# Ray worker too, where the same runners start it), so TERM is "dumb" and the terminal's name and colour
# depth are not passed on. Else a row's answer (a library colouring or sizing its output by TERM) and the
# re-scoring proof would differ between the TUI in tmux and `run` in another terminal. `[runner] env` may
# still set any of them (then that value, fingerprinted like every variable the target gets).
TERMINAL_TERM = "dumb"
TERMINAL_ENV_LEFT_OUT = ("TERM_PROGRAM", "TERM_PROGRAM_VERSION", "COLORTERM", "LC_TERMINAL", "LC_TERMINAL_VERSION")


@dataclass(slots=True)
class RunRequest:
    inputs: dict[str, Any]
    row_id: str
    row_name: str
    set_file: str
    scope: str
    timeout: float | None = None  # seconds for this request, instead of [runner] timeout (a conversation turn)
    sample: int | None = None  # which of a row's `[runner] repeat` runs (0-based), seen as WORKBENCH_SAMPLE

    def time_limit(self, default: float) -> float:
        return self.timeout if self.timeout is not None else default


@dataclass(slots=True)
class RunOutcome:
    """What a target produced. Exactly one of `output` (any JSON, unwrapped) or `error` matters."""

    output: Any = None
    error: str | None = None
    duration_ms: float = 0.0
    log: str = ""
    trace: list[dict[str, Any]] = field(default_factory=list)
    # Files (and folders listed) the target read while producing this outcome, as absolute paths, for the
    # targets workbench can watch from inside (Python children: an audit hook on `open`/`os.listdir`); the
    # re-scoring fingerprint covers them. Empty when unknown: then only the project's files count.
    reads: tuple[str, ...] = ()
    # For reads recorded by the audit hook: each file's (size, mtime_ns, ctime_ns, inode, device) when the
    # target first opened it. A file whose stat differs at the end of the iteration changed after it was read.
    read_stats: dict[str, tuple[int, ...]] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.error is None


RUNNER_FAULTS = (OSError, ValueError, RuntimeError)
"""What a runner may raise for one row; the row becomes an ERROR, the iteration goes on."""


def outcome_from_exception(exc: BaseException) -> RunOutcome:
    """A runner's exception as the row's ERROR outcome."""
    return RunOutcome(error=f"the runner failed: {type(exc).__name__}: {exc}")


class Runner(ABC):
    """Runs targets. One runner serves a whole iteration; `aclose` releases what it holds."""

    def __init__(self, config: Config) -> None:
        self.config = config

    @abstractmethod
    async def run(self, request: RunRequest, on_log: LogSink | None = None) -> RunOutcome: ...

    async def aclose(self) -> None:  # noqa: B027 - most runners hold nothing
        """Release processes or files held across rows."""

    def expect_rows(self, rows: int) -> None:  # noqa: B027 - a hint most runners have no use for
        """Told once, before the first row, by an iteration whose runner is not kept for the next one: how many
        rows (times `[runner] repeat`) it will run at most. Only a cost hint: a runner must serve any number."""

    def hold(self) -> AbstractAsyncContextManager[Runner]:
        """A runner that sends every request to the same target process until the block ends, for a row
        that asks the target several times (a conversation's turns) of a target keeping state in memory.
        Runners without long-lived processes have nothing to pin and hand back themselves."""
        return nullcontext(self)

    @property
    def stdout_cap(self) -> int:
        return int(self.config.runner.max_output_mb * 2**20)

    def child_env(self, request: RunRequest, extra: dict[str, str] | None = None) -> dict[str, str]:
        env = target_env(self.config)
        env.update({
            "WORKBENCH_ROW_ID": env_value(request.row_id),
            "WORKBENCH_ROW_NAME": env_value(request.row_name),
            "WORKBENCH_SET": env_value(request.set_file),
            "WORKBENCH_SCOPE": env_value(request.scope),
        })
        if request.sample is not None:
            env["WORKBENCH_SAMPLE"] = str(request.sample)
        if extra:
            env.update(extra)
        return env


def target_env(config: Config) -> dict[str, str]:
    """What every process workbench starts for the project's code sees: workbench's environment,
    `[runner] env` over it, and unbuffered Python output unless the user said otherwise. PWD is the
    project folder the target runs in, as a shell there would say — not the folder workbench was started
    from, which the target can't see and which would make a `run` started elsewhere than the TUI re-run
    every row (the environment is part of the re-scoring proof). Likewise the terminal: a target has none, so
    it sees TERM=dumb and none of the terminal's own variables (`TERMINAL_ENV_LEFT_OUT`), whatever terminal
    workbench runs in."""
    env = dict(os.environ)
    for name in TERMINAL_ENV_LEFT_OUT:
        env.pop(name, None)
    env["TERM"] = TERMINAL_TERM
    env["PWD"] = os.fspath(config.root)
    env.update(config.runner.env)
    env.setdefault("PYTHONUNBUFFERED", "1")
    return env


def env_value(text: str) -> str:
    """`text` as an environment variable can hold it. A NUL byte or a lone surrogate (both legal in a
    JSON string) would stop the target from starting at all; they are passed as visible escapes."""
    text = text.replace("\x00", "\\x00")
    try:
        text.encode("utf-8", "surrogateescape")  # how os.environ encodes (keeps undecodable file names)
    except UnicodeEncodeError:
        text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


def expand_argv(argv: list[str]) -> list[str]:
    """`{python}` stands for the interpreter running workbench, so targets share its environment, and
    a word starting `{workbench}/` for a file of workbench's own package wherever it is installed (a
    format's child bootstrap, on a Ray worker as on this machine)."""
    return [sys.executable if part == PYTHON_TOKEN else _in_package(part) for part in argv]


def _in_package(part: str) -> str:
    if not part.startswith(WORKBENCH_TOKEN + "/"):
        return part
    return str(PACKAGE_DIR.joinpath(*part[len(WORKBENCH_TOKEN) + 1:].split("/")))


def tail_lines(text: str, count: int = 12) -> str:
    lines = [line for line in text.rstrip().splitlines() if line.strip()]
    return "\n".join(lines[-count:])


def describe_failure(reason: str, log: str, stdout: bytes, *, log_name: str = "stderr") -> str:
    """An ERROR detail: why, then the tail of the log and the start of stdout, when there are any."""
    parts = [reason]
    tail = tail_lines(log)
    if tail:
        parts.append(f"{log_name} (last lines):\n{tail}")
    if stdout.strip():
        parts.append("stdout began: " + repr(stdout[:200].decode("utf-8", errors="replace")))
    return "\n".join(parts)
