"""The committed baseline (absorbed from seed 000): per result, did it pass, how long, how many tokens.

`workbench run --update-baseline` writes it only when the suite is good enough to bless (a partial run's
update replaces the entries of the results it ran and keeps every other one as it was read); a later
`workbench run` flags results that passed on the baseline and fail now (newly failing), and results
that still pass but got slower or costlier than the baseline by more than a set fraction. A result
with no baseline entry never regresses.

The file `[baseline] path` names is read and written only inside the project (`configured_baseline`):
a settings file could otherwise point workbench at any file the user can write. A `--baseline PATH`
on the command line is the user's own choice and may be anywhere.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from . import jsonio
from .config import Config, ConfigError
from .errors import WorkbenchError
from .model import Result, ResultKey
from .regular_files import read_regular_file
from .safe_paths import outside_reason
from .trace import trace_tokens
from .writeback.atomic import write_atomically

BASELINE_VERSION = 1
MAX_BASELINE_BYTES = 512 * 1024 * 1024  # ~100 bytes per result: millions of results
# What counts as a slowdown or a token increase when no gate is configured: report-only thresholds.
DEFAULT_SLOWDOWN = 1.0
DEFAULT_TOKEN_INCREASE = 0.25
# Durations this close are noise, whatever the ratio (a 30 ms row taking 120 ms on a busy machine is
# not a slowdown worth a line); a configured --max-slowdown still gates on the ratio beyond this.
SLOWDOWN_FLOOR_MS = 100.0


class BaselineError(WorkbenchError):
    """The baseline file exists but can't be used; the message names it and what is wrong."""


@dataclass(frozen=True, slots=True)
class BaselineEntry:
    scope: str
    set_file: str
    row_id: str
    row_name: str
    evaluator: str
    passed: bool
    duration_ms: float
    tokens: int | None = None

    @property
    def key(self) -> ResultKey:
        return ResultKey(self.scope, self.set_file, self.row_id, self.evaluator)

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"scope": self.scope, "set": self.set_file, "row_id": self.row_id,
                               "row_name": self.row_name, "evaluator": self.evaluator, "passed": self.passed,
                               "duration_ms": round(self.duration_ms, 1)}
        if self.tokens is not None:
            doc["tokens"] = self.tokens
        return doc


@dataclass(slots=True)
class Baseline:
    entries: dict[ResultKey, BaselineEntry]
    created_at: str = ""
    # The JSON object each entry was read from: written back as it was (its keys, their order, fields
    # workbench does not know), so a partial run's update leaves the entries it did not run untouched.
    read_as: dict[ResultKey, dict[str, Any]] = field(default_factory=dict)

    @classmethod
    def from_results(cls, results: list[Result], keep: Baseline | None = None) -> Baseline:
        """This run's results; with `keep` (a partial run's update), also every entry of `keep` that is
        not one of them, as it was read."""
        entries = dict(keep.entries) if keep is not None else {}
        read_as = dict(keep.read_as) if keep is not None else {}
        for r in results:
            entries[r.key] = BaselineEntry(r.scope, r.set_file, r.row_id, r.row_name, r.evaluator, r.passed,
                                           r.duration_ms, trace_tokens(r.trace))
            read_as.pop(r.key, None)
        return cls(entries, datetime.now(UTC).replace(microsecond=0).isoformat(), read_as)

    def to_json(self) -> dict[str, Any]:
        entries = sorted(self.entries.values(), key=lambda e: e.key)
        passed = sum(e.passed for e in entries)
        return {"version": BASELINE_VERSION, "created_at": self.created_at,
                "summary": {"total": len(entries), "passed": passed},
                "results": [self.read_as.get(e.key) or e.to_json() for e in entries]}


def configured_baseline(config: Config) -> Path:
    """The baseline file `[baseline] path` names, under the project root. ConfigError, naming the
    settings file and key, when it is absolute elsewhere, climbs out with `..` or goes through a link
    (the file itself included): reading or `--update-baseline` writing there would leave the project."""
    path = config.root / config.baseline.path
    reason = outside_reason(config.root, path)
    if reason:
        raise ConfigError(f"{config.describe_source()}: [baseline] path = {config.baseline.path!r} {reason}; "
                          "workbench reads and writes a baseline named in a settings file only inside the project. "
                          "To use that file anyway, name it on the command line: --baseline PATH")
    return path


def load_baseline(path: Path) -> Baseline | None:
    """The baseline at `path`, or None when there is none. Read only when it is a regular file of at most
    MAX_BASELINE_BYTES: a link to /dev/zero or a FIFO there is an error, not a hang."""
    try:
        data = read_regular_file(path, MAX_BASELINE_BYTES)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise BaselineError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        doc = jsonio.loads(data)
    except jsonio.JsonError as exc:
        raise BaselineError(f"{path}: not valid JSON: {exc}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("results"), list):
        raise BaselineError(f"{path}: not a workbench baseline (expected an object with \"results\": [...]); "
                            "regenerate it with `workbench run --update-baseline`")
    entries: dict[ResultKey, BaselineEntry] = {}
    read_as: dict[ResultKey, dict[str, Any]] = {}
    for index, item in enumerate(doc["results"]):
        try:
            entry = BaselineEntry(str(item["scope"]), str(item["set"]), str(item["row_id"]),
                                  str(item.get("row_name", "")), str(item["evaluator"]), bool(item["passed"]),
                                  float(item.get("duration_ms", 0.0)),
                                  int(item["tokens"]) if isinstance(item.get("tokens"), int) else None)
        except (KeyError, TypeError, ValueError):
            raise BaselineError(f"{path}: results[{index}] is missing scope/set/row_id/evaluator/passed; "
                                "regenerate it with `workbench run --update-baseline`") from None
        entries[entry.key] = entry
        read_as[entry.key] = item
    return Baseline(entries, str(doc.get("created_at", "")), read_as)


def write_baseline(path: Path, baseline: Baseline) -> None:
    """Atomically replace the baseline file (or create it); OSError when it can't be written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, jsonio.dumps(baseline.to_json(), indent=True).encode("utf-8") + b"\n")


@dataclass(frozen=True, slots=True)
class Regression:
    kind: str  # "newly_failing", "slowdown", "token_increase"
    result: Result
    entry: BaselineEntry
    ratio: float = 0.0

    def describe(self) -> str:
        name = f"{self.result.set_file} › {self.result.label} [{self.result.evaluator}]"
        if self.kind == "newly_failing":
            return f"newly failing: {name} passed on the baseline, now {self.result.verdict.value}"
        if self.kind == "slowdown":
            return (f"slowdown: {name} took {self.result.duration_ms:.0f}ms, baseline "
                    f"{self.entry.duration_ms:.0f}ms (+{self.ratio:.0%})")
        tokens = trace_tokens(self.result.trace)
        return f"token increase: {name} used {tokens} tokens, baseline {self.entry.tokens} (+{self.ratio:.0%})"

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "set": self.result.set_file, "scope": self.result.scope,
                "row_id": self.result.row_id, "row_name": self.result.row_name,
                "evaluator": self.result.evaluator, "ratio": round(self.ratio, 4),
                "baseline": self.entry.to_json(), "detail": self.describe()}


@dataclass(slots=True)
class BaselineCheck:
    newly_failing: list[Regression] = field(default_factory=list)
    slowdowns: list[Regression] = field(default_factory=list)
    token_increases: list[Regression] = field(default_factory=list)

    @property
    def regressions(self) -> list[Regression]:
        return [*self.newly_failing, *self.slowdowns, *self.token_increases]


def compare_with_baseline(results: list[Result], baseline: Baseline, *, slowdown: float,
                          token_increase: float) -> BaselineCheck:
    check = BaselineCheck()
    for result in results:
        entry = baseline.entries.get(result.key)
        if entry is None:
            continue
        if entry.passed and not result.passed:
            check.newly_failing.append(Regression("newly_failing", result, entry))
            continue
        if not (entry.passed and result.passed):
            continue
        extra_ms = result.duration_ms - entry.duration_ms
        if entry.duration_ms > 0 and extra_ms > SLOWDOWN_FLOOR_MS and extra_ms / entry.duration_ms > slowdown:
            check.slowdowns.append(Regression("slowdown", result, entry, extra_ms / entry.duration_ms))
        tokens = trace_tokens(result.trace)
        if entry.tokens and tokens is not None and (tokens - entry.tokens) / entry.tokens > token_increase:
            check.token_increases.append(Regression("token_increase", result, entry,
                                                    (tokens - entry.tokens) / entry.tokens))
    return check
