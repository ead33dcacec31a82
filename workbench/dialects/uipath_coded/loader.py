"""`evaluations/evaluators/*.json` and `evaluations/eval-sets/*.json` into the engine's evaluators, sets and rows,
as the SDK reads them (`uipath.eval.helpers.EvalHelpers`, version "1.0" files).

Evaluators are known by their `id`, not their file name: a set's `evaluatorConfigs` (when non-empty, else its
`evaluatorRefs`) and a row's `evaluationCriterias` keys are ids. Two files with one id make that id broken (the
SDK would load both and score twice). A file without `"version": "1.0"` is the SDK's legacy format, which
workbench does not read: it says so instead of guessing. Every problem names the file and the JSON path of what
is wrong; the other files still load.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ... import jsonio
from ...compare import type_name
from ...model import EvalSet, EvaluatorDef, EvaluatorKey, Row, Severity, unique_ids
from ...regular_files import special_kind
from ..base import UNREADABLE, LoadContext
from .criteria import bad_criterion
from .layout import DIALECT, EVALUATIONS_DIR, EVALUATORS_DIR, SCOPE, SETS_DIR, VERSION

LEGACY = (f"is a legacy eval file (no \"version\": \"{VERSION}\"); workbench reads version {VERSION} files, the "
          "format `uipath eval` writes today")


def row_ids(evaluations: list[Any]) -> list[str | None]:
    """The key each entry of a set's `evaluations` is tracked by (None: not a row): its string `id` as written
    (a GUID keeps its case, so `--row` finds it as the file spells it), else its name, else `#index`; repeats
    made unique. Accept and add-row find rows by this rule."""
    wanted: list[str | None] = []
    for index, entry in enumerate(evaluations):
        if not isinstance(entry, dict) or not _row_shaped(entry):
            wanted.append(None)
            continue
        raw_id, raw_name = entry.get("id"), entry.get("name")
        if isinstance(raw_id, str) and raw_id:
            wanted.append(raw_id)
        else:
            wanted.append(raw_name if isinstance(raw_name, str) and raw_name else f"#{index}")
    return unique_ids(wanted)


def _row_shaped(entry: dict[str, Any]) -> bool:
    return (isinstance(entry.get("inputs"), (dict, type(None)))
            and isinstance(entry.get("evaluationCriterias"), (dict, type(None))))


def load_coded(ctx: LoadContext) -> None:
    """Add the project's coded-agent evaluators, sets and problems to `ctx.project`."""
    evaluations = ctx.root / EVALUATIONS_DIR
    refusal = ctx.refusal(evaluations, "folder", ctx.root)
    if refusal:
        ctx.problem(evaluations, refusal)
        return
    loader = _Loader(ctx, evaluations)
    for path in ctx.json_files(evaluations / EVALUATORS_DIR, inside=evaluations):
        loader.evaluator(path)
    loader.settle_duplicates()
    for path in ctx.json_files(evaluations / SETS_DIR, inside=evaluations):
        loader.eval_set(path)
    for folder in (EVALUATORS_DIR, SETS_DIR):
        _special_files(ctx, evaluations, evaluations / folder)


def _special_files(ctx: LoadContext, evaluations: Path, folder: Path) -> None:
    """`*.json` names that are neither files nor folders (a FIFO would hang a reader): said, not skipped unseen."""
    try:
        entries = sorted(folder.iterdir()) if folder.is_dir() else []
    except OSError:
        return  # json_files said so
    for path in entries:
        if not path.name.endswith(".json") or path.name.startswith(".") or ctx.refusal(path, "file", evaluations):
            continue
        try:
            mode = path.stat().st_mode
        except OSError:
            continue
        kind = special_kind(mode)
        if kind is not None:
            ctx.problem(path, f"is {kind[1]}, not a regular file; not read")


class _Loader:
    def __init__(self, ctx: LoadContext, evaluations: Path) -> None:
        self.ctx = ctx
        self.evaluations = evaluations
        self.by_id: dict[str, list[Path]] = {}

    def shown(self, path: Path) -> str:
        """The file as the project's problems name it: `evaluations/evaluators/a.json`, from the project root."""
        return Path(EVALUATIONS_DIR, path.relative_to(self.evaluations)).as_posix()

    # -- evaluators ------------------------------------------------------------------------------

    def evaluator(self, path: Path) -> None:
        doc = self.ctx.read_json(path)
        if doc is UNREADABLE:
            self._broken(path, None, "the file could not be loaded (see problems)", report=False)
            return
        if not isinstance(doc, dict):
            self._broken(path, None, f"must be a JSON object, not {type_name(doc)}")
            return
        ident = doc.get("id")
        ident = ident if isinstance(ident, str) and ident else None
        problem = self._evaluator_problem(doc, ident)
        if problem:
            self._broken(path, ident, problem)
            return
        assert ident is not None  # _evaluator_problem refuses a file without one
        name = doc.get("name")
        type_id = str(doc.get("evaluatorTypeId") or doc.get("evaluatorSchema"))
        self.by_id.setdefault(ident, []).append(path)
        self.ctx.project.evaluators[EvaluatorKey(SCOPE, ident)] = EvaluatorDef(
            scope=SCOPE, ref=ident, path=path, id=ident, name=name if isinstance(name, str) else None,
            type_id=type_id, config=doc["evaluatorConfig"], raw=doc, dialect=DIALECT)

    @staticmethod
    def _evaluator_problem(doc: dict[str, Any], ident: str | None) -> str | None:
        if doc.get("version") != VERSION:
            return LEGACY
        if ident is None:
            return "has no \"id\" (a non-empty string): sets and rows refer to evaluators by id"
        type_id, schema = doc.get("evaluatorTypeId"), doc.get("evaluatorSchema")
        if not (isinstance(type_id, str) and type_id) and not (isinstance(schema, str) and schema):
            return "has no \"evaluatorTypeId\" (a string such as \"uipath-exact-match\")"
        if not isinstance(doc.get("evaluatorConfig"), dict):
            found = "none" if "evaluatorConfig" not in doc else type_name(doc["evaluatorConfig"])
            return f"\"evaluatorConfig\" must be an object ({{}} for the type's defaults), not {found}"
        return None

    def _broken(self, path: Path, ident: str | None, why: str, *, report: bool = True) -> None:
        """A file that can't be an evaluator: known by its id when it has one, else by its file name."""
        if report:
            self.ctx.problem(path, why)
        key = EvaluatorKey(SCOPE, ident if ident is not None else path.name)
        self.ctx.project.broken_evaluators[key] = f"{self.shown(path)} {why}" if report else why

    def settle_duplicates(self) -> None:
        """An id two files declare is broken: which one a ref means can't be told (the SDK loads both)."""
        for ident, paths in self.by_id.items():
            if len(paths) < 2:
                continue
            files = " and ".join(self.shown(path) for path in paths)
            for path in paths[1:]:
                self.ctx.problem(path, f"has the id {ident!r}, as {self.shown(paths[0])} does; evaluator ids must be "
                                       "unique (refs name evaluators by id)")
            key = EvaluatorKey(SCOPE, ident)
            self.ctx.project.evaluators.pop(key, None)
            self.ctx.project.broken_evaluators[key] = f"{files} both have the id {ident!r}; give each its own"

    # -- eval sets -------------------------------------------------------------------------------

    def eval_set(self, path: Path) -> None:
        doc = self.ctx.read_json(path)
        if doc is UNREADABLE:
            return
        if not isinstance(doc, dict):
            self.ctx.problem(path, f"must be a JSON object with \"evaluations\", not {type_name(doc)}")
            return
        if doc.get("version") != VERSION:
            found = "" if doc.get("version") is None else f", not {jsonio.preview(doc.get('version'))}"
            self.ctx.problem(path, LEGACY if not found else f"\"version\" must be \"{VERSION}\"{found}")
            return
        evaluations = doc.get("evaluations", [])
        if not isinstance(evaluations, list):
            self.ctx.problem(path, f"\"evaluations\" must be an array of rows, not {type_name(evaluations)}")
            return
        refs = _SetRefs(self.ctx, path).refs(doc)
        if refs is None:
            return
        for key in ("id", "name"):
            if not isinstance(doc.get(key), str):
                self.ctx.problem(path, f"has no \"{key}\" (a string); the SDK requires one", Severity.WARNING)
        ident, name = doc.get("id"), doc.get("name")
        self.ctx.project.sets.append(EvalSet(
            scope=SCOPE, path=path, id=ident if isinstance(ident, str) else None,
            name=name if isinstance(name, str) else None, evaluator_refs=refs,
            rows=_Rows(self.ctx, path, refs).rows(evaluations), dialect=DIALECT))


class _SetRefs:
    """A set's evaluators: the ids of `evaluatorConfigs` when it has any, else of `evaluatorRefs`."""

    def __init__(self, ctx: LoadContext, path: Path) -> None:
        self.ctx = ctx
        self.path = path

    def refs(self, doc: dict[str, Any]) -> list[str] | None:
        configs = self._configs(doc.get("evaluatorConfigs"))
        plain = self._plain(doc.get("evaluatorRefs"))
        if configs is None or plain is None:
            return None
        chosen, where = (configs, "evaluatorConfigs") if configs else (plain, "evaluatorRefs")
        unique = list(dict.fromkeys(chosen))
        if len(unique) != len(chosen):
            self.ctx.problem(self.path, f"\"{where}\" lists an evaluator twice; each scores once", Severity.WARNING)
        if not unique:
            self.ctx.problem(self.path, "has no \"evaluatorRefs\": no evaluator scores its rows (list evaluator "
                                        "ids, e.g. [\"ExactMatch\"])", Severity.WARNING)
        return unique

    def _plain(self, value: Any) -> list[str] | None:
        if value is None:
            return []
        if not isinstance(value, list):
            self.ctx.problem(self.path, f"\"evaluatorRefs\" must be an array of evaluator ids, not {type_name(value)}")
            return None
        for index, ref in enumerate(value):
            if not isinstance(ref, str):
                self.ctx.problem(self.path, f"evaluatorRefs[{index}] must be a string (an evaluator id), not "
                                            f"{type_name(ref)}")
                return None
        return list(value)

    def _configs(self, value: Any) -> list[str] | None:
        if value is None:
            return []
        if not isinstance(value, list):
            self.ctx.problem(self.path, f"\"evaluatorConfigs\" must be an array, not {type_name(value)}")
            return None
        refs: list[str] = []
        for index, item in enumerate(value):
            ref = item.get("ref") if isinstance(item, dict) else item
            weight = item.get("weight", 1.0) if isinstance(item, dict) else 1.0
            if not isinstance(ref, str):
                self.ctx.problem(self.path, f"evaluatorConfigs[{index}] must be an evaluator id or "
                                            "{\"ref\": <id>, \"weight\": <number>}")
                return None
            if isinstance(weight, bool) or not isinstance(weight, (int, float)) or weight < 0:
                self.ctx.problem(self.path, f"evaluatorConfigs[{index}].weight must be a number >= 0, not "
                                            f"{jsonio.preview(weight)}")
                return None
            refs.append(ref)
        return refs


class _Rows:
    """A set's `evaluations` entries as rows; an entry that can't be one is skipped, said by its JSON path."""

    def __init__(self, ctx: LoadContext, path: Path, refs: list[str]) -> None:
        self.ctx = ctx
        self.path = path
        self.refs = refs

    def rows(self, evaluations: list[Any]) -> list[Row]:
        rows: list[Row] = []
        tracked = row_ids(evaluations)
        for index, entry in enumerate(evaluations):
            row = self.row(index, entry, tracked[index])
            if row is not None:
                rows.append(row)
        return rows

    def row(self, index: int, entry: Any, tracked: str | None) -> Row | None:
        where = f"evaluations[{index}]"
        if not isinstance(entry, dict):
            self.ctx.problem(self.path, f"{where} must be an object, not {type_name(entry)}; row skipped")
            return None
        raw_name = entry.get("name")
        name = raw_name if isinstance(raw_name, str) else ""
        label = f"{where} ({name!r})" if name else where
        for key in ("inputs", "evaluationCriterias"):
            value = entry.get(key)
            if value is not None and not isinstance(value, dict):
                self.ctx.problem(self.path, f"{label}.{key} must be an object, not {type_name(value)}; row skipped")
                return None
        self._identity(entry, label, tracked or f"#{index}")
        criteria = entry.get("evaluationCriterias") or {}
        if entry.get("evaluationCriterias") is not None:
            self._keys(criteria, label)
        row = Row(id=tracked or f"#{index}", name=name, inputs=entry.get("inputs") or {}, criteria=criteria,
                  index=index, raw=entry, problem=self._problem(entry, label))
        if row.problem is None:
            row.problem = bad_criterion(row, self.refs, self.ctx.project.evaluators, label)
        return row

    def _identity(self, entry: dict[str, Any], label: str, tracked: str) -> None:
        raw_id = entry.get("id")
        if not isinstance(raw_id, str) or not raw_id:
            self.ctx.problem(self.path, f"{label}.id must be a non-empty string (the SDK requires one); tracking "
                                        f"the row as {tracked!r}", Severity.WARNING)
        elif raw_id != tracked:
            self.ctx.problem(self.path, f"{label} has the same id {raw_id!r} as an earlier row; tracking it as "
                                        f"{tracked!r}")
        if not isinstance(entry.get("name"), str):
            self.ctx.problem(self.path, f"{label} has no \"name\" (a string; the SDK requires one)", Severity.WARNING)

    def _keys(self, criteria: dict[str, Any], label: str) -> None:
        for key, value in criteria.items():
            if value is not None and not isinstance(value, dict):
                self.ctx.problem(self.path, f"{label}.evaluationCriterias[{key!r}] must be an object or null (null: "
                                            f"the evaluator's defaultEvaluationCriteria), not {type_name(value)}")
            if key not in self.refs:
                self.ctx.problem(self.path, f"{label}.evaluationCriterias[{key!r}] is not an evaluator of this set "
                                            "(evaluatorRefs), so it scores nothing", Severity.WARNING)
        if self.refs and not criteria:
            self.ctx.problem(self.path, f"{label}.evaluationCriterias is empty: no evaluator scores the row, so it "
                                        "is not run", Severity.WARNING)

    def _problem(self, entry: dict[str, Any], label: str) -> str | None:
        """Why the row can't run at all (every result an ERROR), as the SDK would refuse it; and a row whose
        criteria name none of the set's evaluators (a typo: "em" for "EM"), which `uipath eval` skips without a
        score: an ERROR here, so that a row that would fail can't vanish from a green run."""
        criteria = entry.get("evaluationCriterias")
        if self.refs and isinstance(criteria, dict) and criteria and not any(key in criteria for key in self.refs):
            named = ", ".join(repr(key) for key in criteria)
            return (f"{label}.evaluationCriterias names no evaluator of this set ({named}; its evaluators: "
                    f"{', '.join(self.refs)}): `uipath eval` would skip the row without a score; keys are "
                    "evaluator ids")
        if "inputs" not in entry or entry["inputs"] is None:
            return f"{label} has no \"inputs\" (an object, {{}} when the entry point takes none)"
        if entry.get("evaluationCriterias") is None:
            return f"{label} has no \"evaluationCriterias\" (an object keyed by evaluator id)"
        expected = entry.get("expectedOutput")
        if expected is not None and not isinstance(expected, (dict, str)):
            return f"{label}.expectedOutput must be an object or a string, not {type_name(expected)}"
        return None


__all__ = ["LEGACY", "load_coded", "row_ids"]
