"""`workbench check`: everything that can be known about a project without running anything.

The settings, every file the project's formats define (each dialect reports its own), the results
that can only be ERRORs (a ref with no evaluator file, a row with no criterion for it, an unsupported
evaluator type), and what each format checks beyond loading (`Checks.check`: for UiPath projects with a
`Workflow.json`, every row's `inputs` and `expectedOutput` against its declared schemas). Loading reports
those findings as warnings beside the rows; here they are errors, because such a row cannot pass.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..cluster import check_cluster
from ..config import Config, ConfigError, apply_runner_defaults, read_settings, resolve_runner_kind
from ..dialects import all_dialects, runner_needed, start_problems
from ..dialects.base import Checks, relative
from ..errors import WorkbenchError
from ..model import EvalSet, EvaluatorKey, Problem, Project, Row, Severity, error_problems
from ..project import load_project
from ..rescoring import planned_errors
from ..runners.startable import startup_problem
from ..scoring import scorer_of, unsupported_message
from ..settings.problems import settings_problem
from .reuse_explain import ReuseExplanation, explain_now

_ROWS_NAMED = 3


@dataclass(slots=True)
class CheckReport:
    """What `workbench check` found. It passes when nothing is an error (warnings are said, not failed)."""

    root: Path
    problems: list[Problem] = field(default_factory=list)
    sets: int = 0
    rows: int = 0
    evaluators: int = 0
    workflow: str | None = None  # the Workflow.json rows were checked against
    reuse: ReuseExplanation | None = None  # what `run --reuse` would re-score now, and the files not looked at

    @property
    def errors(self) -> list[Problem]:
        return error_problems(self.problems)

    @property
    def warnings(self) -> list[Problem]:
        return [p for p in self.problems if not p.is_error]

    @property
    def passed(self) -> bool:
        return not self.errors

    def to_json(self) -> dict[str, Any]:
        return {
            "passed": self.passed,
            "summary": {"errors": len(self.errors), "warnings": len(self.warnings), "sets": self.sets,
                        "rows": self.rows, "evaluators": self.evaluators, "workflow": self.workflow},
            "problems": [p.to_json() for p in self.problems],
            **({"reuse": self.reuse.to_json()} if self.reuse is not None else {}),
        }


def check_project(root: Path) -> CheckReport:
    """Check the project at `root`. Raises ProjectError only when there is nothing to check at all."""
    root = root.resolve()
    config, problems, refused = _settings(root)
    project = load_project(root, config)
    report = CheckReport(root, sets=len(project.sets), rows=sum(len(s.rows) for s in project.sets),
                         evaluators=len(project.evaluators))
    checked = [dialect.check(project, config) for dialect in all_dialects()  # each format's own checks
               if isinstance(dialect, Checks)]
    report.workflow = next((c.against for c in checked if c.against is not None), None)
    twins = {p for c in checked for p in c.replaces}  # what loading already added as warnings
    found = [*(p for c in checked for p in c.file_problems), *(p for p in project.problems if p not in twins),
             *_evaluator_problems(project), *_row_errors(config, project), *(p for c in checked for p in c.findings)]
    report.problems = [*problems, *(p for p in found if not any(_same_finding(p, r) for r in refused))]
    report.reuse = explain_now(config, project)
    return report


def _same_finding(found: Problem, refused: Problem) -> bool:
    """A format's check saying again what its runner defaults refused: the same words, about the same file (the
    file itself, or named in them: `[uipath-coded] entrypoint = 'x' is not an entry point of uipath.json`)."""
    return (found.message == refused.message and found.severity == refused.severity
            and (found.file == refused.file or found.file in refused.message))


def _settings(root: Path) -> tuple[Config, list[Problem], list[Problem]]:
    """The project's settings (the defaults when they can't be read), what is wrong with them, and of those what
    a format's `RUNNER_DEFAULTS` refused (its own check may find it again; it is said once, under the file the
    ConfigError names). Errors in exactly the cases `run` refuses to start (`actions.checks.check_runnable`): no
    way to run the rows at all, a target that can't start (`runners.startable`: the program or script not
    found; a format's `ChecksStart`: its entry point needs a package the rows' interpreter lacks), a cluster
    without Ray — unless the project's rows need no target."""
    try:
        config = read_settings(root)
    except ConfigError as exc:
        fallback, refused = _fallback(root)
        return fallback, [settings_problem(root, str(exc), file=exc.file), *refused], refused
    try:
        apply_runner_defaults(config)
    except ConfigError as exc:  # the format's own file can't say how rows run (uipath.json): under that file
        refused = [settings_problem(root, str(exc), config.source, file=exc.file)]
        return config, refused, refused
    return config, _runnable_problems(root, config), []


def _runnable_problems(root: Path, config: Config) -> list[Problem]:
    """Whether the rows can run with these settings (see `_settings`)."""
    if not runner_needed(root, config):  # scripted replays only: nothing to run, nothing to warn about
        return []
    try:
        kind = resolve_runner_kind(config)
    except ConfigError as exc:
        problem = settings_problem(root, str(exc).strip().splitlines()[0], config.source)
        return [replace(problem, message=f"nothing runs the rows yet: {problem.message} `workbench run` "
                                         "stops here; say how in a [runner] table (docs/running.md)")]
    startup = startup_problem(config, kind)
    if startup is not None:
        return [settings_problem(root, startup, config.source)]
    try:
        check_cluster(config)  # Ray installed, when the rows run on a cluster
    except WorkbenchError as exc:
        return [settings_problem(root, str(exc).strip().splitlines()[0], config.source)]
    return start_problems(root, config)  # a format's rows that can't start (`ChecksStart`): errors, as in `run`


def _fallback(root: Path) -> tuple[Config, list[Problem]]:
    """The settings `check` goes on with when the file can't be read: the defaults, with the `[runner]` the
    project's format supplies (as `load_config` gives it), so a format's check sees its rows run its way and
    not a `[runner]` nobody wrote; and the format's problem when it can't supply one."""
    config = Config(root=root)
    try:
        apply_runner_defaults(config)
    except ConfigError as exc:
        return config, [settings_problem(root, str(exc), file=exc.file)]
    return config, []


def _evaluator_problems(project: Project) -> list[Problem]:
    """Evaluator files no set uses whose type can't score (the used ones show up as row ERRORs)."""
    used = {EvaluatorKey(s.scope, ref) for s in project.sets for ref in s.evaluator_refs}
    problems = []
    for key, evaluator in project.evaluators.items():
        if key not in used and scorer_of(evaluator) is None:
            message = unsupported_message(evaluator.type_id, evaluator.dialect or _format_of_scope(project, key.scope),
                                          relative(project.root, evaluator.path))
            problems.append(Problem(relative(project.root, evaluator.path), f"{message} (no eval set uses it yet)",
                                    Severity.WARNING))
    return problems


def _format_of_scope(project: Project, scope: str) -> str:
    """The format of the sets of `scope` when they are all of one ("" when none or several)."""
    formats = {s.dialect for s in project.sets if s.scope == scope}
    return formats.pop() if len(formats) == 1 else ""


def _row_errors(config: Config, project: Project) -> list[Problem]:
    """Results that can only be ERRORs, one problem per set, evaluator and reason (naming the rows)."""
    found: dict[tuple[str, str, str], list[tuple[EvalSet, Row]]] = {}
    for eval_set, row, ref, why in planned_errors(project):
        found.setdefault((relative(project.root, eval_set.source_of(row)), ref, why), []).append((eval_set, row))
    for eval_set in project.sets:
        evaluators = project.evaluators_of(eval_set.scope)
        for ref in eval_set.evaluator_refs:
            evaluator = evaluators.get(ref)
            scorer = scorer_of(evaluator) if evaluator is not None else None
            if scorer is None or not scorer.structural:
                continue
            for row in eval_set.rows:
                criterion = row.criteria.get(ref)
                if isinstance(criterion, dict) and "expectedOutput" not in criterion and row.problem is None:
                    why = f"evaluationCriterias[{ref!r}] has no \"expectedOutput\""
                    found.setdefault((relative(project.root, eval_set.path), ref, why), []).append((eval_set, row))
    return [_grouped(file, ref, why, rows) for (file, ref, why), rows in found.items()]


def _grouped(file: str, ref: str, why: str, rows: list[tuple[EvalSet, Row]]) -> Problem:
    why = why.removeprefix(f"{file}: ").removeprefix(f"{Path(file).name}: ")  # the file is named once, in front
    if len(rows) == 1:
        eval_set, row = rows[0]
        where = f"evaluations[{row.index}]" + (f" ({row.name!r})" if row.name else "")
        return Problem(file, f"{where} [{ref}] can only be an ERROR: {why}", Severity.ERROR, eval_set.key_of(row))
    names = ", ".join(repr(row.label) for _, row in rows[:_ROWS_NAMED])
    more = f" and {len(rows) - _ROWS_NAMED} more" if len(rows) > _ROWS_NAMED else ""
    return Problem(file, f"{len(rows)} rows ({names}{more}) [{ref}] can only be ERRORs: {why}")
