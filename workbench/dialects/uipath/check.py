"""What `workbench check` finds in a UiPath project beyond loading: every row's `inputs` and
`expectedOutput` against `Workflow.json`'s declared `input.schema` / `output.schema`. Loading reports
these findings as warnings beside the rows; `check` makes them errors, because such a row cannot pass."""

from __future__ import annotations

from ...config import Config
from ...model import Problem, Project
from ..base import Checked
from .contract import as_warnings, contract_problems, read_contract, target_path_problems


def workflow_check(project: Project, config: Config) -> Checked:
    """The rows against the workflow's contract, when the project has one (and what is wrong with it);
    without a declared output schema, still the rows that lack a path their targetOutputKey compares."""
    contract, file_problems = read_contract(project.root, config.runner.workflow)
    if contract is None:
        return Checked(file_problems, target_path_problems(project))
    findings = contract_problems(project, contract)
    if contract.output is None:
        findings += target_path_problems(project)
    for side, schema in (("input", contract.input), ("output", contract.output)):
        if schema is None:
            findings += as_warnings([Problem(contract.file, f"declares no {side}.schema, so rows' "
                                             f"{'inputs' if side == 'input' else 'expectedOutput'} keys can't be "
                                             "checked; declare it first (the property names and their casing)")])
    # loading added the same findings as warnings: check says them once, as errors
    return Checked(file_problems, findings, as_warnings(findings), contract.file)
