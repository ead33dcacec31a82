"""The first dialect: UiPath API-workflow evals (seed 003), `evals/<SCOPE>/eval-sets/*.json` rows scored
by `evals/<SCOPE>/evaluators/*.json`.

Refs are evaluator *file base names* (seed 003 rule 1). Unknown fields are kept on `raw` and ignored.
A broken file becomes a Problem naming the file and what is wrong; the other files still load, so one
bad save never hides the rest of the suite.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...compare import type_name
from ...model import EvalSet, EvaluatorDef, EvaluatorKey, Project, Row, unique_ids
from ..base import EVALS_DIR, UNREADABLE, Checked, Dialect, LoadContext, Scaffolded, Words, default_expected_sources
from .check import missing_inputs, workflow_check
from .layout import EVAL_FILES_DIR, EVALUATORS_DIR, SETS_DIR, workflow_path
from .target_paths import as_warnings

if TYPE_CHECKING:
    from ...config import Config

__all__ = ["EVALUATORS_DIR", "EVAL_FILES_DIR", "SETS_DIR", "UiPathDialect", "row_ids"]


def row_ids(evaluations: list[Any]) -> list[str | None]:
    """The key each entry of an eval set's `evaluations` is tracked by (None for entries skipped as not
    rows): its `id`, else its name, else `#index`; repeats made unique by `model.unique_ids`. Accept and
    add-row find rows on disk by this same rule."""
    wanted: list[str | None] = []
    for index, entry in enumerate(evaluations):
        if not isinstance(entry, dict):
            wanted.append(None)
            continue
        inputs, criteria = entry.get("inputs"), entry.get("evaluationCriterias")
        if not isinstance(inputs, (dict, type(None))) or not isinstance(criteria, (dict, type(None))):
            wanted.append(None)
            continue
        raw_id, raw_name = entry.get("id"), entry.get("name")
        name = raw_name if isinstance(raw_name, str) else ""
        if isinstance(raw_id, (str, int)) and not isinstance(raw_id, bool) and str(raw_id):
            wanted.append(str(raw_id))
        else:
            wanted.append(name or f"#{index}")
    return unique_ids(wanted)


def missing_evaluator(project: Project, scope: str, ref: str) -> str:
    """Refs are evaluator file base names (seed 003 rule 1): an id used as a ref says so."""
    path = WORDS.evaluator_file.format(scope=scope, ref=ref)
    by_id = [e for (s, _), e in project.evaluators.items() if s == scope and e.id == ref]
    if by_id:
        stem = by_id[0].ref
        return (f"no evaluator file {path}. {ref!r} is the id of {EVALUATORS_DIR}/{stem}.json, but refs "
                f"are evaluator file base names: use {stem!r}")
    available = sorted(r for (s, r) in [*project.evaluators, *project.broken_evaluators] if s == scope)
    ids = sorted(e.id for (s, _), e in project.evaluators.items() if s == scope and e.id)
    hint = f"; evaluator files here: {', '.join(available)}" if available else "; this scope has no evaluators"
    if ids:
        hint += f" (their ids: {', '.join(ids)})"
    close = difflib.get_close_matches(ref, available, n=1)
    if close:  # a typo of a file that is there: say which (issue 38)
        hint = f" — did you mean \"{close[0]}\"? {hint[2:3].upper()}{hint[3:]}"
    return f"no evaluator file {path}{hint}"


WORDS = Words(
    expects=f"{EVALS_DIR}/<scope>/{SETS_DIR}/*.json",
    evaluator_file=f"{EVALS_DIR}/{{scope}}/{EVALUATORS_DIR}/{{ref}}.json",
    missing_criterion=("this row has no evaluationCriterias[{ref!r}] (criteria present: {present}); "
                       "keys are evaluator file base names"),
    # written, as null: say so, not "no criterion (criteria present: ref)"
    null_criterion=("evaluationCriterias[{ref!r}] is null; write an object such as "
                    "{{\"expectedOutput\": {{...}}}} (the output this row expects)"),
    malformed_criterion="evaluationCriterias[{ref!r}] must be an object such as {{\"expectedOutput\": {{...}}}}",
    init_help=("the evals/ files Studio Web seeds (an exact-match evaluator and an eval set), in a project "
               "without a target also a starter agent.py, the workbench.toml that runs it and one row"),
    missing_evaluator=missing_evaluator,
)


class UiPathDialect(Dialect):
    """Core; writes its sets (accept, add-row), scaffolds, checks rows against Workflow.json, owns its folders
    and says when a project has no rows of it to run."""

    name = "uipath"
    title = "UiPath API workflow evals"
    words = WORDS
    markers = (EVALS_DIR, "Workflow.json")
    init_name = "uipath"
    folders = (SETS_DIR, EVALUATORS_DIR, EVAL_FILES_DIR)
    row_sets = f"{EVALS_DIR}/<scope>/{SETS_DIR}/"
    default_criterion_as_null = False  # a missing key means the evaluator's default

    def scaffold(self, root: Path) -> Scaffolded:
        from .scaffold import init_project

        return init_project(root)

    def expected_sources(self, entry: Any, ref: str, evaluator: EvaluatorDef) -> list[Any]:
        return default_expected_sources(evaluator)

    def is_row_set(self, root: Path, real: Path) -> bool:
        """`<root>/evals/<scope>/eval-sets/*.json`, nothing else (the real path: no link leads out)."""
        evals = (root / EVALS_DIR).resolve()
        return real.suffix == ".json" and real.parent.name == SETS_DIR and real.parent.parent.parent == evals

    def row_ids(self, entries: list[Any]) -> list[str | None]:
        return row_ids(entries)

    def check(self, project: Project, config: Config) -> Checked:
        return workflow_check(project, config)

    def present(self, root: Path, config: Config | None) -> bool:
        return (root / EVALS_DIR).is_dir()

    def needs_runner(self, root: Path, config: Config | None) -> bool:
        """UiPath rows live in evals/<scope>/ folders: an evals/ with none (only scripted cases, or
        nothing yet) has nothing of this format to run."""
        try:
            return any(entry.is_dir() and not entry.name.startswith(".") for entry in (root / EVALS_DIR).iterdir())
        except OSError:
            return True

    def load(self, ctx: LoadContext) -> None:
        loader = _Loader(ctx)
        try:
            scopes = list(loader.scopes())
        except OSError as exc:
            ctx.problem(ctx.evals, f"cannot be listed: {exc.strerror or exc}")
            return
        for scope_dir in scopes:
            refused: dict[str, str] = {}
            for path in ctx.json_files(scope_dir / EVALUATORS_DIR, refused):
                loader.load_evaluator(scope_dir.name, path)
            for stem, reason in refused.items():
                ctx.project.broken_evaluators[EvaluatorKey(scope_dir.name, stem)] = f"it {reason}"
            for path in ctx.json_files(scope_dir / SETS_DIR):
                loader.load_set(scope_dir.name, path)
        # Rows that don't fit Workflow.json's declared schemas: warnings beside the row, never a verdict.
        workflow = ctx.config.runner.workflow if ctx.config is not None else None
        if workflow_path(ctx.root, workflow).exists():  # without one there is no contract: its checker isn't imported
            from .contract import contract_warnings

            ctx.project.problems.extend(contract_warnings(ctx.project, ctx.root, workflow))
        # A row without "inputs" runs on {} (as the seed's scorer does): run says why beside the row's ERROR
        ctx.project.problems.extend(as_warnings(missing_inputs(ctx.project)))


class _Loader:
    def __init__(self, ctx: LoadContext) -> None:
        self.ctx = ctx

    def scopes(self) -> Iterator[Path]:
        for entry in sorted(self.ctx.evals.iterdir()):
            if entry.name.startswith(".") or not entry.is_dir():
                continue
            refusal = self.ctx.refusal(entry, "folder")
            if refusal:
                self.ctx.problem(entry, refusal)
                continue
            yield entry

    # -- evaluators ------------------------------------------------------------------------------

    def load_evaluator(self, scope: str, path: Path) -> None:
        key = EvaluatorKey(scope, path.stem)
        doc = self.ctx.read_json(path)
        if doc is UNREADABLE:
            self.ctx.project.broken_evaluators[key] = "the file could not be loaded (see problems)"
            return
        message = None
        if not isinstance(doc, dict):
            message = f"must be a JSON object, not {type_name(doc)}"
        elif not isinstance(doc.get("evaluatorTypeId"), str) or not doc["evaluatorTypeId"]:
            message = "has no evaluatorTypeId (a string such as \"uipath-exact-match\")"
        elif not isinstance(doc.get("evaluatorConfig", {}), dict):
            message = f"evaluatorConfig must be an object, not {type_name(doc['evaluatorConfig'])}"
        if message or not isinstance(doc, dict):
            self.ctx.problem(path, message or "is not an evaluator")
            self.ctx.project.broken_evaluators[key] = message or "is not an evaluator"
            return
        ident, name = doc.get("id"), doc.get("name")
        self.ctx.project.evaluators[key] = EvaluatorDef(
            scope=scope,
            ref=path.stem,
            path=path,
            id=ident if isinstance(ident, str) else None,
            name=name if isinstance(name, str) else None,
            type_id=doc["evaluatorTypeId"],
            config=doc.get("evaluatorConfig") or {},
            raw=doc,
        )

    # -- eval sets -------------------------------------------------------------------------------

    def load_set(self, scope: str, path: Path) -> None:
        doc = self.ctx.read_json(path)
        if doc is UNREADABLE:
            return
        if not isinstance(doc, dict):
            self.ctx.problem(path, f"must be a JSON object with \"evaluations\", not {type_name(doc)}")
            return
        evaluations = doc.get("evaluations")
        if evaluations is None:
            self.ctx.problem(path, "has no \"evaluations\" list (write \"evaluations\": [] for an empty set)")
            return
        if not isinstance(evaluations, list):
            self.ctx.problem(path, f"\"evaluations\" must be an array of rows, not {type_name(evaluations)}")
            return
        refs = self._refs(path, doc.get("evaluatorRefs"))
        if refs is None:
            return
        rows = self._rows(path, evaluations, refs)
        ident, name = doc.get("id"), doc.get("name")
        self.ctx.project.sets.append(EvalSet(
            scope=scope,
            path=path,
            id=ident if isinstance(ident, str) else None,
            name=name if isinstance(name, str) else None,
            evaluator_refs=refs,
            rows=rows,
            dialect=UiPathDialect.name,
        ))

    def _refs(self, path: Path, refs: Any) -> list[str] | None:
        if refs is None:
            self.ctx.problem(path, "has no \"evaluatorRefs\": list the evaluator file base names that score "
                               "its rows, e.g. [\"exact-match-evaluator\"]")
            return None
        if not isinstance(refs, list) or not all(isinstance(r, str) for r in refs):
            self.ctx.problem(path, "\"evaluatorRefs\" must be an array of strings (evaluator file base names)")
            return None
        unique = list(dict.fromkeys(refs))
        if len(unique) != len(refs):
            self.ctx.problem(path, "\"evaluatorRefs\" lists an evaluator twice; each is scored once", "warning")
        if not unique:
            self.ctx.problem(path, "\"evaluatorRefs\" is empty: no evaluator scores its rows", "warning")
        return unique

    def _rows(self, path: Path, evaluations: list[Any], refs: list[str]) -> list[Row]:
        rows: list[Row] = []
        seen_ids: dict[str, int] = {}
        seen_names: dict[str, int] = {}
        tracked = row_ids(evaluations)  # the same keys accept and add-row find the rows by
        for index, entry in enumerate(evaluations):
            where = f"evaluations[{index}]"
            if not isinstance(entry, dict):
                self.ctx.problem(path, f"{where} must be an object, not {type_name(entry)}; row skipped")
                continue
            raw_id, raw_name = entry.get("id"), entry.get("name")
            name = raw_name if isinstance(raw_name, str) else ""
            label = f"{where} ({name!r})" if name else where
            if raw_name is not None and not isinstance(raw_name, str):
                self.ctx.problem(path, f"{where}.name must be a string, not {type_name(raw_name)}", "warning")
            inputs = entry.get("inputs")
            if inputs is None:
                inputs = {}
            if not isinstance(inputs, dict):
                self.ctx.problem(path, f"{label}.inputs must be an object, not {type_name(inputs)}; row skipped")
                continue
            criteria = entry.get("evaluationCriterias")
            if criteria is None:
                criteria = {}
            if not isinstance(criteria, dict):
                self.ctx.problem(path, f"{label}.evaluationCriterias must be an object keyed by evaluator "
                                   f"ref, not {type_name(criteria)}; row skipped")
                continue
            wanted = str(raw_id) if isinstance(raw_id, (str, int)) and not isinstance(raw_id, bool) else ""
            if not wanted:
                self.ctx.problem(path, f"{label} has no \"id\"; using {name or f'#{index}'!r} to track it",
                                 "warning")
            row_id = tracked[index] or f"#{index}"
            written = wanted or name or f"#{index}"
            if row_id != written:
                first = seen_ids.get(written, 0)
                self.ctx.problem(path, f"{label} has the same id {written!r} as evaluations[{first}]; "
                                   f"tracking it as {row_id}")
            seen_ids.setdefault(written, index)
            if name and name in seen_names:
                self.ctx.problem(path, f"{label} has the same name as evaluations[{seen_names[name]}]; "
                                   "select it by id", "warning")
            seen_names.setdefault(name, index)
            for key in criteria:
                if key not in refs:
                    self.ctx.problem(path, f"{label}.evaluationCriterias has {key!r}, which is not in "
                                       f"evaluatorRefs, so it is not scored", "warning")
            rows.append(Row(id=row_id, name=name, inputs=inputs, criteria=criteria, index=index, raw=entry))
        return rows
