"""Discover and load `evals/<SCOPE>/eval-sets/*.json` and `evals/<SCOPE>/evaluators/*.json`.

Refs are evaluator *file base names* (seed 003 rule 1). Unknown fields are kept on `raw` and ignored.
Nothing here writes. A broken file becomes a Problem naming the file and what is wrong; the other
files still load, so one bad save never hides the rest of the suite.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from . import jsonio
from .model import EvalSet, EvaluatorDef, Problem, Project, Row

EVALS_DIR = "evals"
SETS_DIR = "eval-sets"
EVALUATORS_DIR = "evaluators"
MAX_FILE_BYTES = 256 * 1024 * 1024


_UNREADABLE = object()  # read_json's answer for a file it could not load (JSON `null` is a document)


class ProjectError(Exception):
    """The project can't be used at all (no evals/ folder, unreadable root)."""


def relative(root: Path, path: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    return {str: "string", list: "array", dict: "object"}.get(type(value), type(value).__name__)


class _Loader:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.evals = root / EVALS_DIR
        self.evals_real = self.evals.resolve()
        self.project = Project(root=root)

    def problem(self, path: Path, message: str, severity: str = "error") -> None:
        self.project.problems.append(Problem(relative(self.root, path), message, severity))  # type: ignore[arg-type]

    def scopes(self) -> Iterator[Path]:
        for entry in sorted(self.evals.iterdir()):
            if entry.name.startswith(".") or not entry.is_dir():
                continue
            refusal = self._refusal(entry, "folder")
            if refusal:
                self.problem(entry, refusal)
                continue
            yield entry

    def _refusal(self, path: Path, what: str) -> str | None:
        """Why `path` must not be read (it leads out of evals/ through a link), or None. Checked on the
        real path, so a link anywhere along the way counts."""
        try:
            real = path.resolve()
        except (OSError, RuntimeError):
            return "is a link that loops or cannot be followed; not read"
        if not real.is_relative_to(self.evals_real):
            return f"is a link to a {what} outside evals/; not read"
        return None

    def json_files(self, folder: Path, refused: dict[str, str] | None = None) -> Iterator[Path]:
        """The JSON files of `folder`, minus those that lead out of evals/ (their stem and the reason
        go to `refused`)."""
        try:
            if not folder.is_dir():
                return
            entries = sorted(folder.iterdir())
        except OSError as exc:
            self.problem(folder, f"cannot be listed: {exc.strerror or exc}")
            return
        for path in entries:
            if path.suffix != ".json" or path.name.startswith("."):
                continue
            refusal = self._refusal(path, "file")
            if refusal:
                self.problem(path, refusal)
                if refused is not None:
                    refused[path.stem] = refusal
                continue
            if path.is_file():
                yield path

    def read_json(self, path: Path) -> Any:
        """The parsed document, or _UNREADABLE after recording a problem."""
        try:
            size = path.stat().st_size
            if size > MAX_FILE_BYTES:
                self.problem(path, f"is {size / 1e6:.0f} MB; files over {MAX_FILE_BYTES // 2**20} MiB are not read")
                return _UNREADABLE
            data = path.read_bytes()
        except OSError as exc:
            self.problem(path, f"cannot be read: {exc.strerror or exc}")
            return _UNREADABLE
        try:
            parsed = jsonio.parse(data)
        except jsonio.JsonError as exc:
            where = f" at line {exc.line}, column {exc.column}" if exc.line is not None else ""
            self.problem(path, f"is not valid JSON{where}: {exc.message}")
            return _UNREADABLE
        if parsed.had_bom:
            self.problem(path, "starts with a UTF-8 byte order mark (BOM); workbench reads it, but "
                               "JavaScript tools such as Studio Web may not", "warning")
        return parsed.value

    # -- evaluators ------------------------------------------------------------------------------

    def load_evaluator(self, scope: str, path: Path) -> None:
        key = (scope, path.stem)
        doc = self.read_json(path)
        if doc is _UNREADABLE:
            self.project.broken_evaluators[key] = "the file could not be loaded (see problems)"
            return
        message = None
        if not isinstance(doc, dict):
            message = f"must be a JSON object, not {_json_type(doc)}"
        elif not isinstance(doc.get("evaluatorTypeId"), str) or not doc["evaluatorTypeId"]:
            message = "has no evaluatorTypeId (a string such as \"uipath-exact-match\")"
        elif not isinstance(doc.get("evaluatorConfig", {}), dict):
            message = f"evaluatorConfig must be an object, not {_json_type(doc['evaluatorConfig'])}"
        if message or not isinstance(doc, dict):
            self.problem(path, message or "is not an evaluator")
            self.project.broken_evaluators[key] = message or "is not an evaluator"
            return
        ident, name = doc.get("id"), doc.get("name")
        self.project.evaluators[key] = EvaluatorDef(
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
        doc = self.read_json(path)
        if doc is _UNREADABLE:
            return
        if not isinstance(doc, dict):
            self.problem(path, f"must be a JSON object with \"evaluations\", not {_json_type(doc)}")
            return
        evaluations = doc.get("evaluations")
        if evaluations is None:
            self.problem(path, "has no \"evaluations\" list (write \"evaluations\": [] for an empty set)")
            return
        if not isinstance(evaluations, list):
            self.problem(path, f"\"evaluations\" must be an array of rows, not {_json_type(evaluations)}")
            return
        refs = self._refs(path, doc.get("evaluatorRefs"))
        if refs is None:
            return
        rows = self._rows(path, evaluations, refs)
        ident, name = doc.get("id"), doc.get("name")
        self.project.sets.append(EvalSet(
            scope=scope,
            path=path,
            id=ident if isinstance(ident, str) else None,
            name=name if isinstance(name, str) else None,
            evaluator_refs=refs,
            rows=rows,
        ))

    def _refs(self, path: Path, refs: Any) -> list[str] | None:
        if refs is None:
            self.problem(path, "has no \"evaluatorRefs\": list the evaluator file base names that score "
                               "its rows, e.g. [\"exact-match-evaluator\"]")
            return None
        if not isinstance(refs, list) or not all(isinstance(r, str) for r in refs):
            self.problem(path, "\"evaluatorRefs\" must be an array of strings (evaluator file base names)")
            return None
        unique = list(dict.fromkeys(refs))
        if len(unique) != len(refs):
            self.problem(path, "\"evaluatorRefs\" lists an evaluator twice; each is scored once", "warning")
        if not unique:
            self.problem(path, "\"evaluatorRefs\" is empty: no evaluator scores its rows", "warning")
        return unique

    def _rows(self, path: Path, evaluations: list[Any], refs: list[str]) -> list[Row]:
        rows: list[Row] = []
        seen_ids: dict[str, int] = {}
        seen_names: dict[str, int] = {}
        for index, entry in enumerate(evaluations):
            where = f"evaluations[{index}]"
            if not isinstance(entry, dict):
                self.problem(path, f"{where} must be an object, not {_json_type(entry)}; row skipped")
                continue
            raw_id, raw_name = entry.get("id"), entry.get("name")
            name = raw_name if isinstance(raw_name, str) else ""
            label = f"{where} ({name!r})" if name else where
            if raw_name is not None and not isinstance(raw_name, str):
                self.problem(path, f"{where}.name must be a string, not {_json_type(raw_name)}", "warning")
            inputs = entry.get("inputs")
            if inputs is None:
                inputs = {}
            if not isinstance(inputs, dict):
                self.problem(path, f"{label}.inputs must be an object, not {_json_type(inputs)}; row skipped")
                continue
            criteria = entry.get("evaluationCriterias")
            if criteria is None:
                criteria = {}
            if not isinstance(criteria, dict):
                self.problem(path, f"{label}.evaluationCriterias must be an object keyed by evaluator "
                                   f"ref, not {_json_type(criteria)}; row skipped")
                continue
            if isinstance(raw_id, (str, int)) and not isinstance(raw_id, bool) and str(raw_id):
                row_id = str(raw_id)
            else:
                row_id = name or f"#{index}"
                self.problem(path, f"{label} has no \"id\"; using {row_id!r} to track it", "warning")
            if row_id in seen_ids:
                first = seen_ids[row_id]
                self.problem(path, f"{label} has the same id {row_id!r} as evaluations[{first}]; "
                                   f"tracking it as {row_id}#{index}")
                row_id = f"{row_id}#{index}"
            seen_ids[row_id] = index
            if name and name in seen_names:
                self.problem(path, f"{label} has the same name as evaluations[{seen_names[name]}]; "
                                   "select it by id", "warning")
            seen_names.setdefault(name, index)
            for key in criteria:
                if key not in refs:
                    self.problem(path, f"{label}.evaluationCriterias has {key!r}, which is not in "
                                       f"evaluatorRefs, so it is not scored", "warning")
            rows.append(Row(id=row_id, name=name, inputs=inputs, criteria=criteria, index=index, raw=entry))
        return rows


def load_project(root: Path) -> Project:
    """Read every eval set and evaluator under `root/evals`. Raises ProjectError only when there is
    nothing to read at all; every per-file trouble is a Problem on the returned project."""
    # Loading makes millions of small objects and no cycles; the cyclic collector would only scan
    # them again and again (it doubles the load time of a 100,000-row set).
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _load_project(root)
    finally:
        if enabled:
            gc.enable()


def _load_project(root: Path) -> Project:
    root = root.resolve()
    loader = _Loader(root)
    if not loader.evals.is_dir():
        raise ProjectError(f"no {EVALS_DIR}/ folder in {root}. Create one with `workbench init {root}`, "
                           f"or point workbench at the project that has it.")
    try:
        scopes = list(loader.scopes())
    except OSError as exc:
        raise ProjectError(f"cannot list {loader.evals}: {exc.strerror or exc}") from None
    for scope_dir in scopes:
        refused: dict[str, str] = {}
        for path in loader.json_files(scope_dir / EVALUATORS_DIR, refused):
            loader.load_evaluator(scope_dir.name, path)
        for stem, reason in refused.items():
            loader.project.broken_evaluators[(scope_dir.name, stem)] = f"it {reason}"
        for path in loader.json_files(scope_dir / SETS_DIR):
            loader.load_set(scope_dir.name, path)
    if not loader.project.sets and not loader.project.problems:
        loader.project.problems.append(Problem(
            EVALS_DIR, f"no eval sets found: expected {EVALS_DIR}/<scope>/{SETS_DIR}/*.json", "warning"))
    return loader.project


def find_project_root(start: Path) -> Path:
    """Walk up from `start` to the folder holding evals/, workbench.toml or Workflow.json."""
    start = start.resolve()
    for folder in (start, *start.parents):
        if any((folder / marker).exists() for marker in (EVALS_DIR, "workbench.toml", "Workflow.json")):
            return folder
    return start

