"""`kind = "python"`: call `package.module:function` (sync or async, inputs dict in, JSON-able out).

The function runs in worker subprocesses over the worker protocol (`workbench/worker_main.py` is
the child side), so the user writes no protocol code, a crash or a hang costs one row, and every
iteration imports the code afresh. The interpreter is the one running workbench, or `command`
when it is set (e.g. `command = [".venv/bin/python"]` for the project's own environment).
"""

from __future__ import annotations

import sys
from pathlib import Path

from ..config import Config, resolve_runner_kind
from .base import expand_argv
from .worker import WorkerRunner

WORKER_MAIN = Path(__file__).resolve().parent.parent / "worker_main.py"


def check_callable(config: Config) -> str:
    """`package.module:function` (or `module:Class.method`), else a ConfigError saying so."""
    resolve_runner_kind(config)
    return config.runner.callable or ""


def python_argv(config: Config) -> list[str]:
    spec = check_callable(config)
    interpreter = expand_argv(config.runner.command) if config.runner.command else [sys.executable]
    return [*interpreter, str(WORKER_MAIN), str(config.root), spec]


class PythonRunner(WorkerRunner):
    def __init__(self, config: Config) -> None:
        super().__init__(config, python_argv(config), announces=True)  # worker_main.py says when it has imported
        self.target = config.runner.callable or "the function"

    def audited_argv(self, reads: str) -> list[str]:
        """worker_main.py records the process's reads itself when given the file."""
        return [*self.argv, reads, *(["-t"] if self.config.cache.trust_subprocesses else [])]

    def fatal_reason(self) -> str:
        return f"could not load {self.target} (imported with {self.config.root} first on sys.path): {self.fatal}"

    def error_text(self, error: str) -> str:
        return f"{self.target} raised {error}"

    def startup_words(self) -> str:
        return f"starting the interpreter and importing {self.target}"
