"""UiPath coded agent evals (issue 26): a project whose `uipath.json` names Python entry points and whose
`evaluations/eval-sets/*.json` rows are scored by `evaluations/evaluators/*.json`, as `uipath eval` (the `uipath`
SDK, 2.14) scores them.

The files look like Studio Web's (`dialects/uipath/`) but the rules differ, which is why this is a format of its
own: refs and criteria keys are evaluator ids, a null criterion means the evaluator's default, a row's own
`expectedOutput` reaches the output evaluators (`criteria.py`), and the evaluator types follow the SDK's scoring
(`scorers.py`). Rows run the entry point in the project's own Python, kept warm (`settings.RUNNER_DEFAULTS`,
`child_main.py`), and the spans `uipath.tracing.traced` records become the row's trace.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...model import EvalSet, EvaluatorDef, Problem, Project, Result, Row, Severity, Verdict
from ..base import Checked, Dialect, LoadContext, Scaffolded, Words, default_expected_sources
from . import criteria
from .layout import (
    DIALECT,
    EVALUATIONS_DIR,
    EVALUATORS_DIR,
    PROJECT_FILE,
    SCOPE,
    SDK_TYPES,
    SECTION,
    SETS_DIR,
)

if TYPE_CHECKING:
    from ...config import Config
    from ...scoring.base import Scorer

# The loader, the settings (pydantic) and the checks of uipath.json, the entry point and the SDK are imported by
# the methods that use them: a project that is not a coded agent's never loads them.

__all__ = ["UiPathCodedDialect"]


def _missing_evaluator(project: Project, scope: str, ref: str) -> str:
    """Refs are evaluator ids: a ref that is a file's name says whose id it should have been."""
    found = project.evaluators_of(scope).values()
    for evaluator in found:
        if evaluator.path.stem == ref:
            return (f"{ref!r} is the file name of {EVALUATORS_DIR}/{evaluator.path.name}, whose id is "
                    f"{evaluator.id!r}: refs are evaluator ids")
    ids = sorted(evaluator.ref for evaluator in found)
    hint = f"; evaluator ids here: {', '.join(ids)}" if ids else f"; {EVALUATIONS_DIR}/{EVALUATORS_DIR}/ has none"
    unread = sorted(key.ref for key in project.broken_evaluators
                    if key.scope == scope and key.ref.endswith(".json"))
    if unread:
        hint += f" (not loaded, see problems: {', '.join(unread)})"
    return f"no evaluator in {EVALUATIONS_DIR}/{EVALUATORS_DIR}/ has the id {ref!r}{hint}"


def _unsupported_type(type_id: str) -> str | None:
    from .scorers import hosted_only

    return hosted_only(type_id)


# Its words for a missing or malformed criterion are `criteria.py`'s, said by its own `criterion_for`.
WORDS = Words(
    expects=f"{EVALUATIONS_DIR}/{SETS_DIR}/*.json beside {PROJECT_FILE}",
    evaluator_file=f"{EVALUATIONS_DIR}/{EVALUATORS_DIR}/ (id {{ref!r}})",
    init_help=(f"a UiPath coded agent: {PROJECT_FILE}, a main.py and one eval set scored by two evaluators "
               f"({EVALUATIONS_DIR}/), run as `uipath eval` runs it"),
    missing_evaluator=_missing_evaluator,
    unsupported_type=_unsupported_type,
)


class UiPathCodedDialect(Dialect):
    """Core (its own criteria rules, scorers and refs); writes its sets, scaffolds, checks uipath.json and the
    entry point, says when its rows can't start (an entry importing uipath where the rows' Python lacks it), has
    a TUI view and an HTML detail, owns its folders and digests graded failures."""

    name = DIALECT
    title = "UiPath coded agent evals"
    words = WORDS
    markers = (PROJECT_FILE,)
    default_criterion_as_null = True  # a missing key skips the evaluator; null is its default
    init_name = "uipath-coded"
    view = "workbench.tui.detail_views.uipath_coded:CodedAgentView"
    html_detail = "workbench.dialects.uipath_coded.html:detail_blocks"
    row_sets = f"{EVALUATIONS_DIR}/{SETS_DIR}/"
    folders = (SETS_DIR, EVALUATORS_DIR)

    def present(self, root: Path, config: Config | None) -> bool:
        from .settings import is_coded_project

        return is_coded_project(root)

    def load(self, ctx: LoadContext) -> None:
        from .loader import load_coded

        load_coded(ctx)

    def scorers(self) -> tuple[Scorer, ...]:
        try:
            from .scorers import coded_scorers  # type: ignore[import-untyped, unused-ignore]  # until it lands
        except ModuleNotFoundError as exc:  # scorers.py not written yet: the core's types of the same ids
            if exc.name != f"{__name__}.scorers":
                raise
            return ()
        return tuple(coded_scorers())

    def scaffold(self, root: Path) -> Scaffolded:
        from .scaffold import init_project

        return init_project(root)

    def criterion_for(self, row: Row, ref: str, evaluator: EvaluatorDef, scorer: Scorer) -> dict[str, Any] | str | None:
        return criteria.coded_criterion(row, ref, evaluator, scorer)

    def is_row_set(self, root: Path, real: Path) -> bool:
        """`<root>/evaluations/eval-sets/*.json`, nothing else (the real path: no link leads out)."""
        evaluations = (root / EVALUATIONS_DIR).resolve()
        return real.suffix == ".json" and real.parent.name == SETS_DIR and real.parent.parent == evaluations

    def row_ids(self, entries: list[Any]) -> list[str | None]:
        from .loader import row_ids

        return row_ids(entries)

    def check(self, project: Project, config: Config) -> Checked:
        from .settings import is_coded_project

        if not is_coded_project(project.root):  # `check` asks every format: a project without one has none
            return Checked()
        return Checked(_entry_problems(project.root, config), [*_unknown_types(project),
                                                               *_unknown_thresholds(project, config)],
                       against=PROJECT_FILE)

    def start_problem(self, root: Path, config: Config) -> Problem | None:
        from .sdk_check import start_problem

        return start_problem(root, config)

    def refs_of(self, eval_set: EvalSet, row: Row) -> list[str]:
        """The SDK scores a row only by the evaluators its evaluationCriterias names (criterion_for skips the rest)."""
        return [ref for ref in eval_set.evaluator_refs if ref in row.criteria]

    def expected_sources(self, entry: Any, ref: str, evaluator: EvaluatorDef) -> list[Any]:
        """A criterion without `expectedOutput` was scored against the row's own one when it has one (the
        SDK injects it), else against the evaluator's default."""
        own = entry.get("expectedOutput") if isinstance(entry, dict) else None
        return [own] if own is not None else default_expected_sources(evaluator)

    def digest(self, result: Result) -> str:
        """A graded score that fell short says its score and the threshold it missed before the detail."""
        if result.verdict is Verdict.FAIL and 0 < result.score < 1 and "score" not in result.detail:
            return f"score {result.score:.4g}: {result.detail}" if result.detail else f"score {result.score:.4g}"
        return result.detail


def _entry_problems(root: Path, config: Config) -> list[Problem]:
    """What stops rows from running at all: uipath.json itself, and the entry point's file."""
    from .project_file import entry_file_problem, entry_name_problem
    from .sdk_check import sdk_problem
    from .settings import CHILD_ARG, CodedConfig, ProjectFileError, choose_entry, read_project_file

    try:
        project_file = read_project_file(root)
        entry = choose_entry(project_file, config.section(CodedConfig).entrypoint)
    except ProjectFileError as exc:
        return [Problem(PROJECT_FILE, str(exc).removeprefix(f"{PROJECT_FILE} ").removeprefix(f"{PROJECT_FILE}: "))]
    problems = []
    if project_file.agents:
        names = ", ".join(repr(name) for name in project_file.agents)
        problems.append(Problem(PROJECT_FILE, f"its \"agents\" entries ({names}) are not run by workbench, which runs "
                                              f"\"functions\" only; rows run {entry.spec} (functions[{entry.name!r}])",
                                Severity.WARNING))
    problem = entry_file_problem(root, entry)
    if problem:
        problems.append(Problem(PROJECT_FILE, problem.removeprefix(f"{PROJECT_FILE}: ")))
    else:
        unbound = entry_name_problem(root, entry)
        if unbound is not None:
            problems.append(Problem(unbound.file, unbound.message, unbound.severity))
    if CHILD_ARG not in (config.runner.command or []):
        kind = config.runner.kind or ("python" if config.runner.callable else "command")
        problems.append(Problem(PROJECT_FILE, f"[runner] says how rows run (kind = {kind!r}), so they don't run "
                                              f"{entry.spec} as `uipath eval` does", Severity.WARNING))
    sdk = sdk_problem(root, config)
    if sdk is not None:
        problems.append(sdk)
    return problems


def _unknown_thresholds(project: Project, config: Config) -> list[Problem]:
    """`[uipath-coded] thresholds` keys that are no evaluator's id: a typo there leaves that evaluator at
    pass_threshold without a word, so each is a warning naming the ids there are (an evaluator's id, else
    its ref, as scorer_base.evaluator_id keys them)."""
    from ...settings.fields import did_you_mean
    from .settings import CodedConfig

    wanted = config.section(CodedConfig).thresholds
    if not wanted:
        return []
    ids = sorted({evaluator.id or evaluator.ref for evaluator in project.evaluators.values()
                  if evaluator.dialect == DIALECT and evaluator.scope == SCOPE})
    source = config.source.name if config.source is not None else "workbench.toml"
    known = f"the evaluator ids: {', '.join(ids)}" if ids else f"{EVALUATIONS_DIR}/{EVALUATORS_DIR}/ has no evaluators"
    return [Problem(source, f"[{SECTION}] thresholds names {name!r}, which is no evaluator's id, so it sets nothing; "
                            f"{did_you_mean(name, ids)}{known}", Severity.WARNING)
            for name in wanted if name not in ids]


def _unknown_types(project: Project) -> list[Problem]:
    """Evaluators of a type the SDK does not know: `uipath eval` can't score them either."""
    found = []
    for evaluator in project.evaluators.values():
        if evaluator.dialect != DIALECT or evaluator.scope != SCOPE or evaluator.type_id in SDK_TYPES:
            continue
        where = Path(EVALUATIONS_DIR, EVALUATORS_DIR, evaluator.path.name).as_posix()
        if evaluator.type_id.startswith("file://"):
            message = (f"is a custom evaluator ({evaluator.type_id}); workbench can't run the SDK's custom "
                       "evaluator classes, so its results are ERRORs")
        else:
            known = ", ".join(sorted(SDK_TYPES))
            message = f"evaluatorTypeId {evaluator.type_id!r} is not a type the uipath SDK knows ({known})"
        found.append(Problem(where, message))
    return found
