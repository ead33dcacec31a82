"""What `workbench check` finds in a UiPath project beyond loading: every row's `inputs` and
`expectedOutput` against `Workflow.json`'s declared `input.schema` / `output.schema`. Loading reports
these findings as warnings beside the rows; `check` makes them errors, because such a row cannot pass."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...model import Problem, Project, Severity
from ..base import Checked, relative
from .layout import workflow_path
from .target_paths import as_warnings, target_path_problems

if TYPE_CHECKING:
    from ...config import Config


def workflow_check(project: Project, config: Config) -> Checked:
    """The rows against the workflow's contract, when the project has one (and what is wrong with it);
    without a declared output schema, still the rows that lack a path their targetOutputKey compares."""
    if not workflow_path(project.root, config.runner.workflow).exists():  # no contract: its checker isn't imported
        return Checked([], [*missing_inputs(project), *target_path_problems(project)],
                       as_warnings(missing_inputs(project)))
    from .contract import contract_problems, read_contract

    contract, file_problems = read_contract(project.root, config.runner.workflow)
    if contract is None:
        return Checked(file_problems, [*missing_inputs(project), *target_path_problems(project)],
                       as_warnings(missing_inputs(project)))
    findings = [*missing_inputs(project), *contract_problems(project, contract)]
    if contract.output is None:
        findings += target_path_problems(project)
    for side, schema in (("input", contract.input), ("output", contract.output)):
        if schema is None:
            findings += as_warnings([Problem(contract.file, f"declares no {side}.schema, so rows' "
                                             f"{'inputs' if side == 'input' else 'expectedOutput'} keys can't be "
                                             "checked; declare it first (the property names and their casing)")])
    # loading added the same findings as warnings: check says them once, as errors
    return Checked(file_problems, findings, as_warnings(findings), contract.file)  # missing inputs among them


def missing_inputs(project: Project) -> list[Problem]:
    """Rows without an `inputs` key (issue 22 point 11): the target would get `{}` (as the seed's scorer
    does) and most targets fail on that with a traceback of their own (`KeyError: 'score'`); `check` names
    the file and the row instead, as an error, and loading as a warning beside the row (what `run` shows)."""
    problems: list[Problem] = []
    for eval_set in project.sets:
        if eval_set.dialect != "uipath":
            continue
        for row in eval_set.rows:
            if isinstance(row.raw, dict) and "inputs" not in row.raw:
                where = f"evaluations[{row.index}]" + (f" ({row.name!r})" if row.name else "")
                problems.append(Problem(relative(project.root, eval_set.source_of(row)),
                                        f"{where} has no \"inputs\"; the target would get {{}} — add the "
                                        "row's inputs (an object, {} when the workflow takes none)",
                                        Severity.ERROR, eval_set.key_of(row)))
    return problems
