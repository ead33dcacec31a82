"""What a dialect is: one on-disk eval format turned into the engine's `Project` / sets / rows /
evaluators, plus how one of its rows runs.

A dialect reads files, reports what is wrong with them as `Problem`s through the `LoadContext` (the
same way for every format), and never writes. The engine, history, reports and TUI only ever see the
`Project` the dialects fill in, so a new format is one package and a line in `dialects/__init__.py`.
What a format is: a small core (`Dialect`), its words (`Words`, data) and the capabilities it has
(`typing.Protocol`s the core checks with isinstance) — the design note is above `Words`.
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, cast, final, runtime_checkable

from .. import jsonio
from ..model import EvalSet, EvaluatorDef, Problem, Project, Result, Row, Severity
from ..regular_files import read_regular_file
from ..runners.base import LogSink, Runner, RunOutcome, RunRequest
from .detail import Block, RowDetail, default_blocks

if TYPE_CHECKING:
    from ..config import Config
    from ..events import IterationReport
    from ..scoring.base import Scorer

EVALS_DIR = "evals"
MAX_FILE_BYTES = 256 * 1024 * 1024

UNREADABLE: Any = object()  # read_json's answer for a file it could not load (JSON `null` is a document)


def relative(root: Path, path: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


@dataclass(slots=True)
class LoadContext:
    """What every dialect loads with: the project being filled in, the settings (None when a caller
    loads without them), and the shared ways to read a file and report a problem."""

    root: Path
    project: Project
    config: Config | None = None
    evals: Path = field(init=False)
    evals_real: Path = field(init=False)

    def __post_init__(self) -> None:
        self.evals = self.root / EVALS_DIR
        self.evals_real = self.evals.resolve()

    def problem(self, path: Path | str, message: str, severity: str = Severity.ERROR,
                excerpt: tuple[str, ...] = ()) -> None:
        where = path if isinstance(path, str) else relative(self.root, path)
        self.project.problems.append(Problem(where, message, Severity(severity), excerpt=excerpt))

    def refusal(self, path: Path, what: str, inside: Path | None = None) -> str | None:
        """Why `path` must not be read (it leads out of `inside`, evals/ by default, through a link), or
        None. Checked on the real path, so a link anywhere along the way counts."""
        inside_real = self.evals_real if inside is None else inside.resolve()
        try:
            real = path.resolve()
        except (OSError, RuntimeError):
            return "is a link that loops or cannot be followed; not read"
        if not real.is_relative_to(inside_real):
            where = "evals/" if inside is None else f"{relative(self.root, inside) or '.'}/"
            return f"is a link to a {what} outside {where}; not read"
        return None

    def json_files(self, folder: Path, refused: dict[str, str] | None = None, *, suffix: str = ".json",
                   inside: Path | None = None) -> Iterator[Path]:
        """The files of `folder` whose names end in `suffix`, minus those that lead out of `inside`
        (their stem and the reason go to `refused`)."""
        try:
            if not folder.is_dir():
                return
            entries = sorted(folder.iterdir())
        except OSError as exc:
            self.problem(folder, f"cannot be listed: {exc.strerror or exc}")
            return
        for path in entries:
            if not path.name.endswith(suffix) or path.name.startswith("."):
                continue
            refusal = self.refusal(path, "file", inside)
            if refusal:
                self.problem(path, refusal)
                if refused is not None:
                    refused[path.stem] = refusal
                continue
            if path.is_file():
                yield path

    def loaded(self, path: Path) -> None:
        """`path` is one of this format's eval files (read as rows, a set or evaluators, even when broken):
        the re-scoring fingerprint covers what it says row by row rather than as a file."""
        self.project.eval_files.add(relative(self.root, path))

    def read_json(self, path: Path) -> Any:
        """The parsed document, or UNREADABLE after recording a problem that names the file."""
        self.loaded(path)
        try:
            if not path.is_file():
                self.problem(path, "is not a regular file; not read")
                return UNREADABLE
            size = path.stat().st_size
            if size > MAX_FILE_BYTES:
                self.problem(path, f"is {size / 1e6:.0f} MB; files over {MAX_FILE_BYTES // 2**20} MiB are not read")
                return UNREADABLE
            data = read_regular_file(path, MAX_FILE_BYTES)
        except OSError as exc:
            self.problem(path, f"cannot be read: {exc.strerror or exc}")
            return UNREADABLE
        try:
            parsed = jsonio.parse(data)
        except jsonio.JsonError as exc:
            where = f" at line {exc.line}, column {exc.column}" if exc.line is not None else ""
            self.problem(path, f"is not valid JSON{where}: {exc.message}", excerpt=exc.excerpt)
            return UNREADABLE
        if parsed.had_bom:
            self.problem(path, "starts with a UTF-8 byte order mark (BOM); workbench reads it, but "
                               "JavaScript tools such as Studio Web may not", "warning")
        return parsed.value


RunnerSource = Callable[[], Runner]


@dataclass(slots=True)
class RowRun:
    """One row about to run: what a dialect's `execute` gets. `runner()` starts the iteration's runner
    on first use, so a dialect that needs no target (scripted replays) never asks for one."""

    eval_set: EvalSet
    row: Row
    config: Config
    on_log: LogSink
    runner_source: RunnerSource
    sample: int | None = None  # which of `[runner] repeat` runs this is (0-based): WORKBENCH_SAMPLE

    def runner(self) -> Runner:
        return self.runner_source()

    def request(self, inputs: dict[str, Any]) -> RunRequest:
        return RunRequest(inputs=inputs, row_id=self.row.id, row_name=self.row.name,
                          set_file=self.eval_set.file_name, scope=self.eval_set.scope, sample=self.sample)


@dataclass(frozen=True, slots=True)
class Scaffolded:
    """What `workbench init` did: files created, kept (already there) and skipped, and what to do next."""

    created: list[str]
    kept: list[str]
    skipped: list[str]
    next_steps: str


@dataclass(frozen=True, slots=True)
class NewCase:
    """A case file a recorded run becomes (`MakesCases.case_from_run`), before anything is written: where it
    goes (`path`, shown as `display`), its text, and notes on what could not be carried over."""

    name: str
    path: Path
    display: str
    text: str
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Checked:
    """What `workbench check` adds for a format beyond loading (`Checks.check`): problems with the files
    rows are checked against (said first), stricter findings about the rows (said last), the loading
    warnings those findings make errors (dropped), and the file they were checked against."""

    file_problems: list[Problem] = field(default_factory=list)
    findings: list[Problem] = field(default_factory=list)
    replaces: list[Problem] = field(default_factory=list)
    against: str | None = None


@dataclass(frozen=True, slots=True)
class GateAsk:
    """What `workbench run` asks a format's gate with (`Gates.gate`): the `--baseline` given (None: not
    given; a gate with a baseline of its own may take it), whether this run writes the baselines
    (--update-baseline), runs only part of the project (--set/--row/--tag/--type) and may be empty
    (--allow-empty)."""

    baseline: Path | None = None
    update: bool = False
    partial: bool = False
    allow_empty: bool = False


@dataclass(frozen=True, slots=True)
class GateUpdate:
    """What --update-baseline did to a format's own baseline: `written`, and the words for it (the front
    end shows them as a problem when not written, else as news unless quiet)."""

    written: bool
    message: str


class GateVerdict(Protocol):
    """What a format's gate decided about one run: the reasons it fails (none: it passes), the lines the
    text report prints, its part of `--json`'s "gate" object (under `key`), and what --update-baseline did."""

    @property
    def key(self) -> str: ...

    @property
    def reasons(self) -> list[str]: ...

    def lines(self) -> list[str]: ...

    def to_json(self) -> dict[str, Any]: ...

    def update(self) -> GateUpdate | None: ...


class DialectGate(Protocol):
    """A format's gate of its own beside the generic one (`Gates.gate`), made before the run so that an
    unusable baseline stops it early. The generic gate judges `others(report)`; this one the rest."""

    @property
    def takes_baseline(self) -> bool:
        """`--baseline` names this gate's baseline (the other results then keep `[baseline]`'s file)."""
        ...

    def others(self, report: IterationReport) -> IterationReport:
        """`report` without this format's results."""
        ...

    def judge(self, report: IterationReport) -> GateVerdict | None:
        """This format's results of `report` judged (with --update-baseline: its baseline written); None
        when there is nothing of it to judge (a partial run that selected none of its rows)."""
        ...


# -- the seam -------------------------------------------------------------------------------------------
#
# Design (issue 34). A format is a small required core plus the capabilities it has:
#
# - `Dialect`, the core every format is: who it is (`name`, `title`, `markers`, its `words`), whether a
#   project has its files (`present`), how they load (`load`), the evaluator types it brings (`scorers`), how
#   one row runs (`execute`) and which evaluators score a row with which criterion (`criterion_for`,
#   `refs_of`). Ten members; `CORE` lists them and tests/architecture/test_dialect_core.py holds the count.
# - `Words`, a frozen dataclass: everything a format only *says* (where its files go, its words for a row it
#   can't score, why accept refuses it, its line in `init --help` and `run --help`). Data, not hooks: a format
#   that says nothing of its own leaves a field out and the generic sentence stands.
# - capabilities, `typing.Protocol`s checked with `isinstance` (`@runtime_checkable`): writing expected values back
#   (`WritesRows`), turning a run into a case (`MakesCases`), starter files (`Scaffolds`), a gate of its own (`Gates`),
#   extra checks (`Checks`), a TUI view (`HasView`), an HTML detail (`HasHtmlDetail`), saying whether it needs the
#   target (`ChoosesRunner`), whether its rows can start (`ChecksStart`), what a run depends on (`FingerprintsRuns`),
#   when a run failed (`JudgesRuns`), a failure digest (`Digests`), a row's line in a non-JSON file (`LocatesRows`), its
#   own folders (`OwnsFolders`). The base class has none of their members, so the core never calls a hook a format
#   answers with a default: it asks "can this format do X" and, when not, does the one generic thing itself
#   (`run_fingerprint_of`, `run_error_of`, `detail_blocks`, ...). `CAPABILITIES` lists them all. A capability is
#   declared by the class (not set on an instance): `has` remembers the answer per class for per-row paths.
#
# A format is added by writing its core and the capabilities it has; tests/helpers/quiz_format/ is one written
# outside workbench, through `dialects.added_dialect` alone: copy it.


def _present(row: Row) -> str:
    return ", ".join(repr(k) for k in row.criteria) or "none"


@dataclass(frozen=True, slots=True)
class Words:
    """What a format says, as data. Templates are `str.format`ted with the names their comments give."""

    expects: str = ""  # where its files go, for "no eval sets found: expected ..."
    evaluator_file: str = "{scope}/{ref}"  # where evaluator `ref` of `scope` would be (for "no such evaluator")
    # a row with no criterion for evaluator {ref} (and no default applies); {present}: the criteria it has
    missing_criterion: str = "this row has no criterion for evaluator {ref!r} (criteria present: {present})"
    null_criterion: str = ""  # a criterion written as null ({ref}; "": said as missing_criterion)
    malformed_criterion: str = "the criterion for evaluator {ref!r} must be an object"  # not an object ({ref})
    accept_refusal: str = ""  # why `accept` can't bless its rows, when it can't (said after the set's name)
    init_help: str = ""  # what `workbench init --format <init_name>` creates, in one line
    gate_help: str = ""  # one sentence on its own gate, a paragraph of `workbench run --help`
    baseline_help: str = ""  # what `run --baseline` names in a project of it, and its default
    # words that depend on the project: why a set's ref finds no evaluator (None: the generic sentence)
    missing_evaluator: Callable[[Project, str, str], str] | None = None
    # its words for an evaluator type it knows but can't score, said after "unsupported evaluator type 'x': "
    unsupported_type: Callable[[str], str | None] | None = None

    def missing(self, row: Row, ref: str) -> str:
        if ref in row.criteria and self.null_criterion:
            return self.null_criterion.format(ref=ref)
        return self.missing_criterion.format(ref=ref, present=_present(row))

    def malformed(self, ref: str) -> str:
        return self.malformed_criterion.format(ref=ref)


class Dialect:
    """One on-disk eval format: the core every format has. The engine, reports, CLI and TUI reach a format
    only through this and the capability protocols below (never by its name). Subclasses set `name`, `title`,
    `words` and `markers`, implement `present` and `load`, and override `scorers`, `execute`, `criterion_for`
    and `refs_of` where their rows differ from rows that each call the target once and are scored by every
    evaluator of their set. Everything else a format can do is a capability it declares by having it."""

    name: ClassVar[str] = ""  # the registry key, and every set's `EvalSet.dialect`
    title: ClassVar[str] = ""  # what a person calls the format ("scripted replays")
    words: ClassVar[Words] = Words()  # everything it says (`Words`)
    markers: ClassVar[tuple[str, ...]] = ()  # names that make a folder a project of this format

    def present(self, root: Path, config: Config | None) -> bool:
        """Whether `root` holds files of this format (decides whether `load` runs)."""
        raise NotImplementedError

    def load(self, ctx: LoadContext) -> None:
        """Add this format's sets, evaluators and problems to `ctx.project`."""
        raise NotImplementedError

    def scorers(self) -> tuple[Scorer, ...]:
        """The evaluator types this format brings (registered with the core ones by `scoring.scorer_for`)."""
        return ()

    async def execute(self, run: RowRun) -> RunOutcome:
        """Run one row: the target once on the row's inputs, unless the format's rows run otherwise."""
        return await run.runner().run(run.request(run.row.inputs), run.on_log)

    def criterion_for(self, row: Row, ref: str, evaluator: EvaluatorDef, scorer: Scorer) -> dict[str, Any] | str | None:
        """The criterion evaluator `ref` scores `row` with; a str: why it can't (the result is that ERROR);
        None: this evaluator doesn't score this row (no result; a row no evaluator scores is not run). Unless
        the format decides otherwise: the row's own criterion, else the evaluator's `defaultEvaluationCriteria`
        when its scorer allows one (exact match doesn't: seed 003 rule 2), else an ERROR in the format's words."""
        criterion = row.criteria.get(ref)
        if criterion is None:
            default = evaluator.config.get("defaultEvaluationCriteria")
            if scorer.default_criterion_allowed and isinstance(default, dict) and default:
                return default
            return self.words.missing(row, ref)
        if not isinstance(criterion, dict):
            return self.words.malformed(ref)
        return criterion

    def refs_of(self, eval_set: EvalSet, row: Row) -> list[str]:
        """The evaluator refs that score `row` (what the TUI waits for and counts): all of its set's, unless
        the format's `criterion_for` skips refs for a row — then it says the same here."""
        return list(eval_set.evaluator_refs)

    # -- said from `words` (never overridden: a format changes its words, not these) --------------------------

    @final
    def evaluator_file(self, scope: str, ref: str) -> str:
        """Where evaluator `ref` of `scope` would be, in this format's words (`Words.evaluator_file`)."""
        return self.words.evaluator_file.format(scope=scope, ref=ref)

    @final
    def missing_evaluator(self, project: Project, scope: str, ref: str) -> str:
        """Why a set's evaluator ref finds nothing, and what is there instead (`Words.missing_evaluator`)."""
        if self.words.missing_evaluator is not None:
            return self.words.missing_evaluator(project, scope, ref)
        available = sorted(r for (s, r) in [*project.evaluators, *project.broken_evaluators] if s == scope)
        hint = f"; evaluators here: {', '.join(available)}" if available else "; this scope has no evaluators"
        close = difflib.get_close_matches(ref, available, n=1)
        if close:  # a typo of one that is there: say which (issue 38)
            hint = f" — did you mean \"{close[0]}\"? {hint[2:3].upper()}{hint[3:]}"
        return f"no evaluator {self.evaluator_file(scope, ref)}{hint}"


CORE: tuple[str, ...] = ("name", "title", "words", "markers", "present", "load", "scorers", "execute",
                         "criterion_for", "refs_of")
"""The members a format writes (`Dialect`'s required core); the two `@final` ones are said from `words`."""


# -- capabilities: what some formats can do (the core asks with isinstance, and has no default) ---------------


@runtime_checkable
class WritesRows(Protocol):
    """`accept` and `add-row` write this format's sets: where they are, which files they are, the rule their
    rows are found by, what a row was scored against, and how a row says "the evaluator's default"."""

    row_sets: str  # where the sets are, in words ("evals/<scope>/eval-sets/")
    # how a row says "score me with the evaluator's defaultEvaluationCriteria": its key left out (False), or null
    # under it (True: a format where a missing key means the evaluator skips the row); add-row writes it
    default_criterion_as_null: bool

    def is_row_set(self, root: Path, real: Path) -> bool:
        """Whether `real` (a resolved path) is one of this format's set files under `root` that accept and
        add-row may edit."""
        ...

    def row_ids(self, entries: list[Any]) -> list[str | None]:
        """The ids a set document's entries are tracked by (None: not a row), by the rule loading uses:
        write-back finds a row in the file as it is at write time by the same ids."""
        ...

    def expected_sources(self, entry: Any, ref: str, evaluator: EvaluatorDef) -> list[Any]:
        """The expectations a row whose criterion for `ref` holds no `expectedOutput` may have been scored
        against (`entry`: the row as its set file holds it now), for accept's check that the expectation did
        not change since the run (`default_expected_sources`: the evaluator's default's)."""
        ...


def default_expected_sources(evaluator: EvaluatorDef) -> list[Any]:
    """The `expectedOutput` of the evaluator's defaultEvaluationCriteria, when it has one."""
    default = evaluator.config.get("defaultEvaluationCriteria")
    return [default["expectedOutput"]] if isinstance(default, dict) and "expectedOutput" in default else []


@runtime_checkable
class MakesCases(Protocol):
    """`add-row --from-run --script`: a recorded run becomes a case file of this format."""

    def case_from_run(self, project: Project, config: Config, result: Result, name: str, where: str) -> NewCase:
        """The case file named `name` that the run `result` recorded (`where`, in words) becomes, written by
        the caller. Raises WorkbenchError when it can't be one: the name is taken, the run ended in ERROR, ..."""
        ...


@runtime_checkable
class Scaffolds(Protocol):
    """`workbench init --format <init_name>` makes this format's starter files (`Words.init_help` says what)."""

    init_name: str

    def scaffold(self, root: Path) -> Scaffolded:
        """Create this format's starting files under `root`."""
        ...


@runtime_checkable
class Gates(Protocol):
    """A gate of its own beside the generic one (`Words.gate_help`, `Words.baseline_help` its words)."""

    def gate(self, project: Project, config: Config, ask: GateAsk) -> DialectGate | None:
        """This format's own gate for a `workbench run` of `project` (None: nothing of it to gate here).
        Raises WorkbenchError when its baseline can't be used."""
        ...


@runtime_checkable
class Checks(Protocol):
    """What `workbench check` finds beyond loading (UiPath: rows against Workflow.json's schemas)."""

    def check(self, project: Project, config: Config) -> Checked: ...


@runtime_checkable
class HasView(Protocol):
    """Its rows' TUI detail view: "module:Class", imported by the TUI only (without: expected | actual)."""

    view: str


@runtime_checkable
class HasHtmlDetail(Protocol):
    """Its rows' detail in the HTML report: "module:function" (`RowDetail -> list[Block]`, imported when first
    asked; without: `detail.default_blocks`)."""

    html_detail: str


@runtime_checkable
class ChoosesRunner(Protocol):
    """Says whether its rows under `root` run the project's target (without: they do)."""

    def needs_runner(self, root: Path, config: Config | None) -> bool: ...


@runtime_checkable
class ChecksStart(Protocol):
    """Whether its rows can start at all with these settings, beyond the runner's own program and script
    (`runners/startable.py`): a problem, naming its file, that would make every row an ERROR (its entry point
    imports a package the rows' interpreter lacks), or None. `check` reports it as an error and `run`, `watch`
    and the TUI refuse to start on it, one message before any row (`actions.checks.check_runnable`)."""

    def start_problem(self, root: Path, config: Config) -> Problem | None: ...


@runtime_checkable
class FingerprintsRuns(Protocol):
    """What decides a row's output besides the target and its settings (without: the row's inputs): a
    recorded run is re-scored instead of run again only while this is unchanged."""

    def run_fingerprint(self, row: Row) -> Any: ...


@runtime_checkable
class JudgesRuns(Protocol):
    """Its own rule for why a run of a row failed (without: `run_error`, the outcome's error), or None. A
    failed run is never re-scored: the row runs again next time (the text says why, in `check`)."""

    def run_error(self, outcome: RunOutcome) -> str | None: ...


@runtime_checkable
class Digests(Protocol):
    """A compact account of why a result did not pass, in its words (the text report, the agent interface;
    without: the scorer's detail)."""

    def digest(self, result: Result) -> str: ...


@runtime_checkable
class LocatesRows(Protocol):
    """The 1-based line a row starts on in its file, for files that aren't JSON (CI annotations; without, or
    None: `report/row_lines.py` finds the row's value in the JSON file)."""

    def row_line(self, eval_set: EvalSet, row: Row) -> int | None: ...


@runtime_checkable
class OwnsFolders(Protocol):
    """Folders of evals/<scope>/ holding its files, which other formats don't walk into."""

    folders: tuple[str, ...]


CAPABILITIES: tuple[type, ...] = (WritesRows, MakesCases, Scaffolds, Gates, Checks, HasView, HasHtmlDetail,
                                  ChoosesRunner, ChecksStart, FingerprintsRuns, JudgesRuns, Digests, LocatesRows,
                                  OwnsFolders)


def members_of(capability: type) -> frozenset[str]:
    """The members a capability asks for (its declared attributes and its methods)."""
    own = vars(capability)
    return frozenset(name for name in (*own.get("__annotations__", {}), *own) if not name.startswith("_"))


# -- what the core does when a format lacks a capability (one place, not a default per hook) ----------------


_HAS: dict[tuple[type, type], bool] = {}


def has(dialect: object, capability: type) -> bool:
    """`isinstance(dialect, capability)`, remembered per class: a capability is declared by a format's class,
    and a runtime-checkable Protocol's isinstance costs tens of µs — too much to pay per row."""
    key = (type(dialect), capability)
    found = _HAS.get(key)
    if found is None:
        found = _HAS[key] = isinstance(dialect, capability)
    return found


def needs_runner(dialect: Dialect, root: Path, config: Config | None) -> bool:
    """Whether `dialect`'s rows under `root` run the project's target."""
    return cast(ChoosesRunner, dialect).needs_runner(root, config) if has(dialect, ChoosesRunner) else True


def run_fingerprint_of(dialect: Dialect, row: Row) -> Any:
    """What a row's recorded run depends on besides the target: the format's say, else the row's inputs."""
    return cast(FingerprintsRuns, dialect).run_fingerprint(row) if has(dialect, FingerprintsRuns) else row.inputs


def run_error(outcome: RunOutcome) -> str | None:
    """Why a run failed by the generic rule: its outcome's error (first line), or None."""
    if outcome.error is None:
        return None
    lines = outcome.error.strip().splitlines()
    return f"it was an ERROR ({lines[0] if lines else 'no detail'})"


def run_error_of(dialect: Dialect, outcome: RunOutcome) -> str | None:
    """Why this run of one of `dialect`'s rows failed: the format's rule, else the generic one."""
    return cast(JudgesRuns, dialect).run_error(outcome) if has(dialect, JudgesRuns) else run_error(outcome)


def digest_of(dialect: Dialect, result: Result) -> str:
    """A failure in the format's words, else the scorer's detail."""
    return cast(Digests, dialect).digest(result) if has(dialect, Digests) else result.detail


def row_line_of(dialect: Dialect, eval_set: EvalSet, row: Row) -> int | None:
    """The line a row starts on by its format's say (`LocatesRows`), else None."""
    return cast(LocatesRows, dialect).row_line(eval_set, row) if has(dialect, LocatesRows) else None


def detail_blocks(dialect: Dialect | None, detail: RowDetail) -> list[Block]:
    """One result of a row as the HTML report shows it: its format's renderer's blocks (`HasHtmlDetail`,
    imported when first asked), else `detail.default_blocks` (inputs, expected | actual)."""
    named = cast(HasHtmlDetail, dialect).html_detail if has(dialect, HasHtmlDetail) else ""
    if not named:
        return default_blocks(detail)
    module, _, function = named.partition(":")
    render: Callable[[RowDetail], list[Block]] = getattr(importlib.import_module(module), function)
    return render(detail)
