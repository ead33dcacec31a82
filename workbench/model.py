"""Plain data the engine passes around: what was loaded, what ran, what it scored."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any, NamedTuple

from .output_paths import SelectionError, normalize_target


class Verdict(StrEnum):
    PASS = "PASS"
    FAIL = "FAIL"
    ERROR = "ERROR"


class Severity(StrEnum):
    """How bad a `Problem` is: an error fails the run (it is never green); a warning is only shown."""

    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True, slots=True)
class Problem:
    """Something wrong with a file (not with a row's behaviour). Errors fail the run; warnings don't.
    `row` pins it to one row of the file (a row whose inputs or expectation don't fit the workflow's
    declared schema), so reports and the TUI can show it with that row. `excerpt`: lines shown under the
    message (a JSON syntax error's line and a caret under its column, `jsonio.excerpt_at`)."""

    file: str
    message: str
    severity: Severity = Severity.ERROR
    row: RowKey | None = None
    excerpt: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "severity", Severity(self.severity))  # "error" as written is Severity.ERROR

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"file": self.file, "message": self.message, "severity": self.severity.value}
        if self.row is not None:
            doc["row"] = {"scope": self.row.scope, "set": self.row.set_file, "row_id": self.row.row_id}
        if self.excerpt:
            doc["excerpt"] = list(self.excerpt)
        return doc


def error_problems(problems: Iterable[Problem]) -> list[Problem]:
    """The problems that fail a run."""
    return [problem for problem in problems if problem.is_error]


def is_green(passed: int, total: int, problems: Iterable[Problem]) -> bool:
    """The one definition of green: something was scored, all of it passed, and no file has an error.
    Counted in results or in rows it is the same answer (a row passes when every result of it does)."""
    return total > 0 and passed == total and not error_problems(problems)


# The keys below are NamedTuples: equal (and hashing equal) to the plain tuples they replace, so a key
# stored or built as a tuple still finds its entry. Read them by field name, never by position.


class SetKey(NamedTuple):
    """An eval set's identity: its scope (the folder under evals/) and its file name."""

    scope: str
    set_file: str

    def shown(self, with_scope: bool) -> str:
        """The set's one display name (reports, the loop's summary, JUnit): its file name, after its scope
        when the project has several. (`EvalSet.stem` is what `--set` selects it by, not a display name.)"""
        return f"{self.scope}/{self.set_file}" if with_scope else self.set_file


class EvaluatorKey(NamedTuple):
    """An evaluator's identity: its scope and the ref rows name it by."""

    scope: str
    ref: str


class RowKey(NamedTuple):
    """A row's identity across iterations."""

    scope: str
    set_file: str
    row_id: str

    @classmethod
    def of(cls, eval_set: EvalSet, row: Row) -> RowKey:
        return cls(eval_set.scope, eval_set.file_name, row.id)

    @property
    def set(self) -> SetKey:
        return SetKey(self.scope, self.set_file)


class ResultKey(NamedTuple):
    """A result's identity across iterations: its row, and the evaluator ref that scored it."""

    scope: str
    set_file: str
    row_id: str
    evaluator: str

    @property
    def row(self) -> RowKey:
        return RowKey(self.scope, self.set_file, self.row_id)

    @property
    def set(self) -> SetKey:
        return SetKey(self.scope, self.set_file)


def wrap_output(output: Any) -> Any:
    """A bare primitive or array is compared (and recorded) as {"result": <value>} (seed 003 rule 5)."""
    return output if isinstance(output, dict) else {"result": output}


def unique_ids(wanted: list[str | None]) -> list[str | None]:
    """Row ids as a file's rows are tracked: each as written, and a repeated one as `<id>#<index>` —
    or, when that is taken too (by a row whose own id is `x#2`, or an earlier repeat), with more `#`
    suffixes until no two rows share a key. None stays None (an entry that is not a row)."""
    taken = {w for w in wanted if w is not None}
    seen: set[str] = set()
    out: list[str | None] = []
    for index, want in enumerate(wanted):
        if want is None:
            out.append(None)
            continue
        row_id = want
        if row_id in seen:
            row_id = f"{want}#{index}"
            extra = 2
            while row_id in seen or row_id in taken:
                row_id = f"{want}#{index}#{extra}"
                extra += 1
        seen.add(row_id)
        out.append(row_id)
    return out


def display_name(name: str | None, row_id: str) -> str:
    """What a person calls a row: its name when it has one, else its id."""
    return name or row_id


@dataclass(slots=True)
class EvaluatorDef:
    """One evaluator (for the UiPath dialect, one `evals/<scope>/evaluators/<ref>.json` file). `ref` is
    the name rows refer to it by. `targetOutputKey` is parsed once here: `target_paths` holds the
    output paths it selects, or `target_error` says why it can't be used."""

    scope: str
    ref: str
    path: Path
    id: str | None
    name: str | None
    type_id: str
    config: dict[str, Any]
    raw: dict[str, Any]
    target_paths: list[str] = field(default_factory=list)
    target_error: str | None = None
    dialect: str = ""  # the format that loaded it, when its evaluator types are its own (`scoring.scorer_of`)

    def __post_init__(self) -> None:
        try:
            self.target_paths = normalize_target(self.target_output_key)
        except SelectionError as exc:
            self.target_paths, self.target_error = [], str(exc)

    @property
    def target_output_key(self) -> Any:
        return self.config.get("targetOutputKey", "*")


@dataclass(slots=True)
class Row:
    """One row of an eval set, whatever dialect wrote it: what to run (`inputs`) and what each
    evaluator ref expects of it (`criteria`).

    `problem`, when set, is why the row can't run at all (a scenario without `when`, a conversation
    turn that breaks a rule): every result of the row is an ERROR with that detail. `source` is the
    file the row lives in when that is not the set's own file (one scenario per file); `tags` and
    `kind` are what `--tag` / `--type` select on.
    """

    id: str
    name: str
    inputs: dict[str, Any]
    criteria: dict[str, Any]
    index: int
    raw: Any
    problem: str | None = None
    source: Path | None = None
    tags: tuple[str, ...] = ()
    kind: str | None = None

    @property
    def label(self) -> str:
        return display_name(self.name, self.id)

    def expected_for(self, ref: str | None) -> Any:
        """`evaluationCriterias[ref].expectedOutput` as written in the file, or None."""
        criterion = self.criteria.get(ref) if ref else None
        return criterion.get("expectedOutput") if isinstance(criterion, dict) else None


@dataclass(slots=True)
class EvalSet:
    """A set of rows scored by the same evaluator refs: for the UiPath dialect one
    `evals/<scope>/eval-sets/<file>.json` file; other dialects say what a set is (a conversations file,
    a scenarios folder). `dialect` names the dialect that loaded it, which also runs its rows.
    `short_name` replaces the file stem as the name `--set` selects it by, when the path's stem
    isn't a good one (`greeting.eval.json` → `greeting`). `own_name` replaces the path's name as the
    set's one name (its key, reports, JSON, history and `--set`) when its path is a folder other formats
    share (scripted replays: `evals/` is the set `scripts`)."""

    scope: str
    path: Path
    id: str | None
    name: str | None
    evaluator_refs: list[str]
    rows: list[Row]
    dialect: str  # the name of the format that loaded it (and runs its rows): `dialects.dialect_for(dialect)`
    short_name: str | None = None
    own_name: str | None = None

    @property
    def file_name(self) -> str:
        return self.own_name or self.path.name

    @property
    def stem(self) -> str:
        return self.short_name or self.path.stem

    @property
    def key(self) -> SetKey:
        return SetKey(self.scope, self.file_name)

    def key_of(self, row: Row) -> RowKey:
        return RowKey(self.scope, self.file_name, row.id)

    def answers_to(self, name: str) -> bool:
        """Whether `--set NAME` means this set: its name or file name, optionally as `scope/name`."""
        scope, _, base = name.rpartition("/")
        return (base == self.stem or base == self.file_name) and (not scope or scope == self.scope)

    def source_of(self, row: Row) -> Path:
        """The file to open to edit `row`."""
        return row.source or self.path


@dataclass(slots=True)
class Project:
    """Everything discovered under a project's `evals/` folder, re-read for every iteration."""

    root: Path
    sets: list[EvalSet] = field(default_factory=list)
    evaluators: dict[EvaluatorKey, EvaluatorDef] = field(default_factory=dict)
    broken_evaluators: dict[EvaluatorKey, str] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)

    extras: dict[str, Any] = field(default_factory=dict)  # per-dialect settings found while loading
    # The files the dialects read as rows, sets and evaluators (project-relative, posix), broken ones too:
    # the re-scoring fingerprint covers them row by row instead of as files (see rescoring/world.py).
    eval_files: set[str] = field(default_factory=set)

    @property
    def scopes(self) -> list[str]:
        found = {s.scope for s in self.sets} | {scope for scope, _ in self.evaluators}
        return sorted(found)

    def evaluators_of(self, scope: str) -> dict[str, EvaluatorDef]:
        """The evaluators a set in `scope` may refer to, by ref."""
        return {ref: ev for (where, ref), ev in self.evaluators.items() if where == scope}

    def find_set(self, scope: str, file_name: str) -> EvalSet | None:
        return next((s for s in self.sets if s.scope == scope and s.file_name == file_name), None)


@dataclass(slots=True)
class Sample:
    """One of a repeated row's independent runs (`[runner] repeat`), scored by one evaluator: what that run
    produced and how it scored. A row run once has none (its `Result` is its one run)."""

    index: int
    verdict: Verdict
    score: float
    detail: str
    actual: Any = None
    duration_ms: float = 0.0
    log: str = ""
    trace: list[dict[str, Any]] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return self.verdict is Verdict.PASS

    def to_json(self) -> dict[str, Any]:
        return {"index": self.index, "verdict": self.verdict.value, "score": self.score, "detail": self.detail,
                "actual": self.actual, "duration_ms": round(self.duration_ms, 3), "trace": self.trace}


def sample_rate_met(passed: int, count: int, rate: float) -> bool:
    """k of N samples reach `[gate] row_pass_rate` (3/5 at 0.6 does: compared without float rounding)."""
    return count > 0 and passed * 1_000_000 >= round(rate * 1_000_000) * count


def samples_detail(passed: int, count: int, rate: float, shown: Sample) -> str:
    """A repeated result's detail: how many samples passed against the rate, then the shown sample's detail."""
    head = f"{passed}/{count} samples passed" + (f" (row_pass_rate {rate:g})" if rate < 1 else "")
    if 0 < passed < count:
        head += ", flaky"
    tail = f"sample {shown.index + 1}: {shown.detail}" if shown.detail else ""
    return f"{head}\n{tail}" if tail else head


@dataclass(slots=True)
class Result:
    """The verdict of one row under one evaluator. With `[runner] repeat = N` it stands for N runs: `samples`
    holds each, its verdict is PASS when `[gate] row_pass_rate` of them pass, and its actual, log and duration
    are those of its first sample with that verdict (every sample's are in `samples`). `flaky_since` names
    an earlier iteration whose run of the row, in the same world, got the other verdict (history sets it)."""

    scope: str
    set_file: str
    row_id: str
    row_name: str
    evaluator: str
    verdict: Verdict
    score: float
    detail: str
    actual: Any = None
    expected: Any = None
    duration_ms: float = 0.0
    evaluator_type: str | None = None
    trace: list[dict[str, Any]] = field(default_factory=list)
    log: str = ""
    inputs: dict[str, Any] = field(default_factory=dict)

    reused: bool = False
    samples: list[Sample] = field(default_factory=list)
    flaky_since: int | None = None

    @property
    def passed_samples(self) -> int:
        """k of "k/N samples passed" (N: `len(samples)`)."""
        return sum(sample.passed for sample in self.samples)

    @property
    def sample_flaky(self) -> bool:
        """Some of its samples passed and some did not: the same row, run the same way, both ways."""
        return 0 < self.passed_samples < len(self.samples)

    @property
    def flaky(self) -> bool:
        """Flaky by its samples (0 < k < N) or over time (another verdict, same world, `flaky_since`)."""
        return self.sample_flaky or self.flaky_since is not None

    @property
    def samples_text(self) -> str:
        """`3/5` for a repeated result, else ''."""
        return f"{self.passed_samples}/{len(self.samples)}" if self.samples else ""

    @property
    def key(self) -> ResultKey:
        return ResultKey(self.scope, self.set_file, self.row_id, self.evaluator)

    @property
    def row_key(self) -> RowKey:
        return RowKey(self.scope, self.set_file, self.row_id)

    @property
    def set_key(self) -> SetKey:
        return SetKey(self.scope, self.set_file)

    @property
    def label(self) -> str:
        return display_name(self.row_name, self.row_id)

    @property
    def passed(self) -> bool:
        return self.verdict is Verdict.PASS

    def to_json(self) -> dict[str, Any]:
        return {
            "set": self.set_file,
            "scope": self.scope,
            "row_id": self.row_id,
            "row_name": self.row_name,
            "evaluator": self.evaluator,
            "evaluator_type": self.evaluator_type,
            "verdict": self.verdict.value,
            "score": self.score,
            "inputs": self.inputs,
            "actual": self.actual,
            "expected": self.expected,
            "detail": self.detail,
            "duration_ms": round(self.duration_ms, 3),
            "trace": self.trace,
            **({"reused": True} if self.reused else {}),
            **({"samples": [sample.to_json() for sample in self.samples], "passed_samples": self.passed_samples,
                "sample_count": len(self.samples)} if self.samples else {}),
            **({"flaky": True} if self.flaky else {}),
            **({"flaky_since": self.flaky_since} if self.flaky_since is not None else {}),
        }


def results_by_row(results: Iterable[Result]) -> dict[RowKey, list[Result]]:
    """Results grouped by row, rows in the order they first appear."""
    rows: dict[RowKey, list[Result]] = {}
    for result in results:
        rows.setdefault(result.row_key, []).append(result)
    return rows


def row_passes(results: Iterable[Result]) -> bool:
    """A row passes when it has results and every one of them passes."""
    seen = False
    for result in results:
        if not result.passed:
            return False
        seen = True
    return seen


def row_verdict(verdicts: Iterable[Verdict]) -> Verdict | None:
    """A row's one verdict: ERROR if any result errored, else FAIL if any failed, PASS if all passed."""
    found = set(verdicts)
    if not found:
        return None
    if Verdict.ERROR in found:
        return Verdict.ERROR
    return Verdict.FAIL if Verdict.FAIL in found else Verdict.PASS


@dataclass(slots=True)
class Summary:
    total: int = 0
    passed: int = 0
    failed: int = 0
    errors: int = 0

    def add(self, verdict: Verdict) -> None:
        self.total += 1
        if verdict is Verdict.PASS:
            self.passed += 1
        elif verdict is Verdict.FAIL:
            self.failed += 1
        else:
            self.errors += 1

    @classmethod
    def of(cls, results: list[Result]) -> Summary:
        summary = cls()
        for result in results:
            summary.add(result.verdict)
        return summary

    def to_json(self) -> dict[str, int]:
        return {"total": self.total, "passed": self.passed, "failed": self.failed, "errors": self.errors}
