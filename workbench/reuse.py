"""Pay once: re-score rows from what their last run recorded instead of running them again.

When nothing but files under `evals/` changed (an expectation, an evaluator, a new row), a row whose
inputs and runner settings are the same as when it last ran would produce the same output again —
for targets that call paid APIs or take seconds, that is money and minutes per keystroke. Such a
row is scored again from the recorded output, trace, log and duration; only new rows and rows whose
inputs changed run. Anything else that changed (the target's code, `workbench.toml`) re-runs
everything, and so does `R`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from pathlib import PurePosixPath
from typing import Any

from . import jsonio
from .config import Config
from .dialects import eval_folders
from .model import Result, RowKey, Verdict, results_by_row
from .project import EVALS_DIR
from .runners import RunOutcome


@dataclass(frozen=True, slots=True)
class RecordedRun:
    """What one row's run produced, and a fingerprint of what ran (its inputs, as its dialect sees them)."""

    fingerprint: str
    outcome: RunOutcome


def digest(value: Any) -> str:
    """A stable fingerprint of a JSON value (key order ignored)."""
    return hashlib.sha256(jsonio.dumps(value, sort_keys=True).encode("utf-8", "surrogatepass")).hexdigest()


def runner_fingerprint(config: Config) -> str:
    """The runner settings that can change what a row outputs (not how many run at once)."""
    settings = asdict(config.runner)
    for key in ("concurrency", "preload"):
        settings.pop(key, None)
    return digest(settings)


def only_evals_changed(files: Iterable[str], folders: Iterable[str] = (EVALS_DIR,)) -> bool:
    """True when every changed file (paths relative to the project root) is inside one of the eval
    `folders` (evals/, and the folders of formats kept elsewhere: see `dialects.eval_folders`)."""
    changed = list(files)
    prefixes = [PurePosixPath(folder).parts for folder in folders]
    return bool(changed) and all(any(PurePosixPath(name).parts[:len(p)] == p for p in prefixes) for name in changed)


def recorded_from_results(results: Iterable[Result], fingerprints: Mapping[RowKey, str]) -> dict[RowKey, RecordedRun]:
    """Rebuild recorded runs from stored results (for `run --reuse`): the output every evaluator saw,
    or the runner's error when the row did not produce one."""
    runs: dict[RowKey, RecordedRun] = {}
    for key, group in results_by_row(results).items():
        fingerprint = fingerprints.get(key)
        if fingerprint is None:
            continue
        first = group[0]
        produced = next((r for r in group if r.actual is not None), None)
        if produced is not None:
            outcome = RunOutcome(output=produced.actual, duration_ms=first.duration_ms, log=first.log,
                                 trace=first.trace)
        elif all(r.verdict is Verdict.ERROR for r in group) and first.detail:
            outcome = RunOutcome(error=first.detail, duration_ms=first.duration_ms, log=first.log, trace=first.trace)
        else:
            continue
        runs[key] = RecordedRun(fingerprint, outcome)
    return runs


class ReuseBook:
    """The session's memory of every row's last run, and whether it may be used for the next iteration."""

    def __init__(self) -> None:
        self.runner: str | None = None
        self.runs: dict[RowKey, RecordedRun] = {}
        # Something besides evals/ changed since the last complete iteration that ran every row: the
        # recorded runs may be stale until one such iteration completes (a cancelled one doesn't count).
        self.stale = False

    def note(self, config: Config, trigger_kind: str, files: Iterable[str]) -> None:
        """An iteration was asked for (call it at once, not when it starts: it may be cancelled before)."""
        if trigger_kind != "row" and (trigger_kind != "change" or not self._evals_only(config, files)):
            self.stale = True

    def offer(self, config: Config, trigger_kind: str, files: Iterable[str]) -> dict[RowKey, RecordedRun] | None:
        """The runs an iteration started by `trigger_kind` may re-score from, or None when it must run
        everything (an explicit re-run of a row always runs it)."""
        if trigger_kind != "change" or not self._evals_only(config, files):
            return None
        if self.stale or not config.cache.reuse or self.runner != runner_fingerprint(config) or not self.runs:
            return None
        return self.runs

    @staticmethod
    def _evals_only(config: Config, files: Iterable[str]) -> bool:
        return only_evals_changed(files, eval_folders(config.root, config))

    def remember(self, config: Config, runs: Mapping[RowKey, RecordedRun], *, partial: bool) -> None:
        """Keep what a completed iteration ran (or re-scored) for the next one."""
        if not partial:
            self.stale = False
        fingerprint = runner_fingerprint(config)
        if fingerprint != self.runner:
            self.runs = {}
            self.runner = fingerprint
        self.runs.update(runs)

    def forget(self) -> None:
        self.runner = None
        self.runs = {}
