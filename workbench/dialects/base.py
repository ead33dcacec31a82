"""What a dialect is: one on-disk eval format turned into the engine's `Project` / sets / rows /
evaluators, plus how one of its rows runs.

A dialect reads files, reports what is wrong with them as `Problem`s through the `LoadContext` (the
same way for every format), and never writes. The engine, history, reports and TUI only ever see the
`Project` the dialects fill in, so a new format is one module here and a line in `dialects/__init__.py`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

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

    def problem(self, path: Path | str, message: str, severity: str = Severity.ERROR) -> None:
        where = path if isinstance(path, str) else relative(self.root, path)
        self.project.problems.append(Problem(where, message, Severity(severity)))

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
            self.problem(path, f"is not valid JSON{where}: {exc.message}")
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
    """A case file a recorded run becomes (`Dialect.case_from_run`), before anything is written: where it
    goes (`path`, shown as `display`), its text, and notes on what could not be carried over."""

    name: str
    path: Path
    display: str
    text: str
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Checked:
    """What `workbench check` adds for a format beyond loading (`Dialect.check`): problems with the files
    rows are checked against (said first), stricter findings about the rows (said last), the loading
    warnings those findings make errors (dropped), and the file they were checked against."""

    file_problems: list[Problem] = field(default_factory=list)
    findings: list[Problem] = field(default_factory=list)
    replaces: list[Problem] = field(default_factory=list)
    against: str | None = None


@dataclass(frozen=True, slots=True)
class GateAsk:
    """What `workbench run` asks a format's gate with (`Dialect.gate`): the `--baseline` given (None: not
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
    """A format's gate of its own beside the generic one (`Dialect.gate`), made before the run so that an
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


class Dialect:
    """One on-disk eval format, and everything about it the rest of workbench needs: the engine, reports,
    CLI and TUI reach a format only through this interface (never by its name). Subclasses set `name`,
    implement `present` and `load`, and override what is their own; the defaults are a format of rows
    that each call the target once on `row.inputs`."""

    name: ClassVar[str] = ""  # the registry key, and every set's `EvalSet.dialect`
    title: ClassVar[str] = ""  # what a person calls the format ("scripted replays")
    expects: ClassVar[str] = ""  # where its files go, for "no eval sets found: expected ..."
    markers: ClassVar[tuple[str, ...]] = ()  # names that make a folder a project of this format
    needs_target: ClassVar[bool] = True  # False: rows run without the project's target (replays)
    accept_refusal: ClassVar[str] = ""  # why `accept` can't bless this format's rows, when it can't
    init_name: ClassVar[str | None] = None  # `workbench init --format <init_name>`, when it has a scaffold
    init_help: ClassVar[str] = ""  # what that creates, in one line
    view: ClassVar[str] = ""  # "module:Class" of its TUI detail view, imported by the TUI only ("": the default)
    # "module:function" of its row detail for the HTML report (`dialects/detail.py`'s blocks; "": the default)
    html_detail: ClassVar[str] = ""
    # how a row says "score me with the evaluator's defaultEvaluationCriteria": its key left out (Studio Web),
    # or null under it (True: a format where a missing key means the evaluator skips the row); add-row writes it
    default_criterion_as_null: ClassVar[bool] = False
    makes_cases_from_runs: ClassVar[bool] = False  # `add-row --from-run --script`: a recorded run becomes a case
    folders: ClassVar[tuple[str, ...]] = ()  # folders of evals/<scope>/ holding its files (others don't look in)
    row_sets: ClassVar[str] = ""  # where the sets accept and add-row write are ("": workbench writes none of its)
    gate_help: ClassVar[str] = ""  # one sentence on its own gate, a paragraph of `workbench run --help`
    baseline_help: ClassVar[str] = ""  # what `run --baseline` names in a project of this format, and its default

    def scorers(self) -> tuple[Scorer, ...]:
        """The evaluator types this format brings (registered with the core ones by `scoring.scorer_for`)."""
        return ()

    def scaffold(self, root: Path) -> Scaffolded:
        """Create this format's starting files under `root` (`workbench init --format <init_name>`)."""
        raise NotImplementedError(f"{self.title or self.name} has no starter files")

    def evaluator_file(self, scope: str, ref: str) -> str:
        """Where evaluator `ref` of `scope` would be, in this format's words (for "no such evaluator")."""
        return f"{scope}/{ref}"

    def missing_evaluator(self, project: Project, scope: str, ref: str) -> str:
        """Why a set's evaluator ref finds nothing, and what is there instead."""
        available = sorted(r for (s, r) in [*project.evaluators, *project.broken_evaluators] if s == scope)
        hint = f"; evaluators here: {', '.join(available)}" if available else "; this scope has no evaluators"
        return f"no evaluator {self.evaluator_file(scope, ref)}{hint}"

    def is_row_set(self, root: Path, real: Path) -> bool:
        """Whether `real` (a resolved path) is one of this format's set files under `root` that accept and
        add-row may edit (only for a format with `row_sets`)."""
        return False

    def row_ids(self, entries: list[Any]) -> list[str | None]:
        """The ids a set document's entries are tracked by (None: not a row), by the rule loading uses:
        write-back finds a row in the file as it is at write time by the same ids."""
        raise NotImplementedError(f"{self.title or self.name} writes no sets")

    def case_from_run(self, project: Project, config: Config, result: Result, name: str, where: str) -> NewCase:
        """The case file named `name` that the run `result` recorded (`where`, in words) becomes, written
        by the caller (only for a format that `makes_cases_from_runs`). Raises WorkbenchError when it
        can't be one: the name is taken, the run ended in ERROR, ..."""
        raise NotImplementedError(f"{self.title or self.name} makes no cases from runs")

    def check(self, project: Project, config: Config) -> Checked:
        """What `workbench check` finds beyond loading (UiPath: rows against Workflow.json's schemas)."""
        return Checked()

    def gate(self, project: Project, config: Config, ask: GateAsk) -> DialectGate | None:
        """This format's own gate for a `workbench run` of `project` (None: its results are judged by the
        generic gate alone). Raises WorkbenchError when its baseline can't be used."""
        return None

    def unsupported_type(self, type_id: str) -> str | None:
        """Its own words for an evaluator type of its files that it knows but can't score (why, what to use
        instead), said after "unsupported evaluator type 'x': " and before the types it does score; None (the
        default): nothing to add."""
        return None

    def missing_criterion(self, row: Row, ref: str) -> str:
        """Why `row` can't be scored by evaluator `ref`: it says nothing for it (and no default applies)."""
        present = ", ".join(repr(k) for k in row.criteria) or "none"
        return f"this row has no criterion for evaluator {ref!r} (criteria present: {present})"

    def criterion_for(self, row: Row, ref: str, evaluator: EvaluatorDef, scorer: Scorer) -> dict[str, Any] | str | None:
        """The criterion evaluator `ref` scores `row` with; a str: why it can't (the result is that ERROR);
        None: this evaluator doesn't score this row (no result; a row no evaluator scores is not run). By
        default the row's own criterion, else the evaluator's `defaultEvaluationCriteria` when its scorer
        allows one (exact match doesn't: seed 003 rule 2), else the ERROR `missing_criterion` says."""
        criterion = row.criteria.get(ref)
        if criterion is None:
            default = evaluator.config.get("defaultEvaluationCriteria")
            if scorer.default_criterion_allowed and isinstance(default, dict) and default:
                return default
            return self.missing_criterion(row, ref)
        if not isinstance(criterion, dict):
            return self.malformed_criterion(ref)
        return criterion

    def refs_of(self, eval_set: EvalSet, row: Row) -> list[str]:
        """The evaluator refs that score `row` (what the TUI waits for and counts): by default all of its
        set's. A format whose `criterion_for` skips refs for a row says the same here."""
        return list(eval_set.evaluator_refs)

    def expected_sources(self, entry: Any, ref: str, evaluator: EvaluatorDef) -> list[Any]:
        """The expectations a row of this format whose criterion for `ref` holds no `expectedOutput` may have
        been scored against (`entry`: the row as its set file holds it now), for accept's check that the
        expectation did not change since the run: by default the evaluator's defaultEvaluationCriteria's."""
        default = evaluator.config.get("defaultEvaluationCriteria")
        return [default["expectedOutput"]] if isinstance(default, dict) and "expectedOutput" in default else []

    def malformed_criterion(self, ref: str) -> str:
        """Why the row's criterion for `ref` can't be used: it is not an object."""
        return f"the criterion for evaluator {ref!r} must be an object"

    def detail_blocks(self, detail: RowDetail) -> list[Block]:
        """One result of a row as the HTML report shows it: its own renderer's blocks (`html_detail`, imported
        when first asked), else `detail.default_blocks` (inputs, expected | actual)."""
        if not self.html_detail:
            return default_blocks(detail)
        module, _, function = self.html_detail.partition(":")
        render: Callable[[RowDetail], list[Block]] = getattr(importlib.import_module(module), function)
        return render(detail)

    def digest(self, result: Result) -> str:
        """A compact account of why a result did not pass (the text report, the agent interface): by
        default the scorer's detail."""
        return result.detail

    def row_line(self, eval_set: EvalSet, row: Row) -> int | None:
        """The 1-based line `row` starts on in `eval_set.source_of(row)` (CI annotations), or None: the report
        then finds it in the JSON file by the row's value (`report/row_lines.py`). A format whose files
        aren't JSON answers here."""
        return None

    def present(self, root: Path, config: Config | None) -> bool:
        """Whether `root` holds files of this format (decides whether `load` runs)."""
        raise NotImplementedError

    def load(self, ctx: LoadContext) -> None:
        """Add this format's sets, evaluators and problems to `ctx.project`."""
        raise NotImplementedError

    def needs_runner(self, root: Path, config: Config | None) -> bool:
        """Whether this format's rows under `root` run the project's target (asked only when present)."""
        return self.needs_target

    def run_fingerprint(self, row: Row) -> Any:
        """What decides a row's output besides the target and its settings: a recorded run is re-scored
        instead of run again only while this is unchanged. By default the row's inputs."""
        return row.inputs

    def run_error(self, outcome: RunOutcome) -> str | None:
        """Why this run of a row failed (a timeout, a crash, a target that could not start), or None.
        A failed run is never re-scored: the row runs again next time (the text says why, in `check`)."""
        if outcome.error is None:
            return None
        lines = outcome.error.strip().splitlines()
        return f"it was an ERROR ({lines[0] if lines else 'no detail'})"

    async def execute(self, run: RowRun) -> RunOutcome:
        """Run one row: by default, the target once on the row's inputs."""
        return await run.runner().run(run.request(run.row.inputs), run.on_log)
