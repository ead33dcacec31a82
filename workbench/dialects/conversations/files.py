"""Finding and reading conversation eval files: any `*.eval.json` or `*.eval.ts` under `evals/` outside
the folders other formats hold their files in (`OwnsFolders.folders`: UiPath's `eval-sets/`, `evaluators/`,
`eval-files/`). A JSON file holds one eval object, an array of them, or `{"evals": [...]}`; a TypeScript
file (a Botpress project's own) the literal of every `new Eval({...})` it has (`ts_literals.py`). Either is
one set, each eval a row scored by the evaluator named `conversation`, and a row reads the same whichever
file it came from (same id, inputs, criteria: the same fingerprints and verdicts)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...compare import type_name
from ...model import EvalSet, EvaluatorDef, EvaluatorKey, Row, unique_ids
from ..base import UNREADABLE, LoadContext, relative
from .agent_config import read_agent_defaults
from .defaults import AGENT_KEY, idle_timeout
from .layout import DIALECT, SUFFIXES, TS_SUFFIX, eval_files
from .rules import EVAL_TYPES, eval_problems
from .scorer import CONVERSATION_TYPE
from .sources import read_source
from .ts_literals import LITERAL_HINT, FoundLiteral, read_evals_cached

EVALUATOR_REF = "conversation"


def short_name(path: Path) -> str:
    suffix = next((s for s in SUFFIXES if path.name.endswith(s)), "")
    return path.name[: -len(suffix)] or path.name


class ConversationLoader:
    """Loads every conversation file of a project; eval names are unique across all of them."""

    def __init__(self, ctx: LoadContext) -> None:
        self.ctx = ctx
        self.names: dict[str, str] = {}  # eval name -> where it was first defined
        self.agent: dict[str, Any] = {}  # agent.config.ts's evals defaults (AgentDefaults.to_json())

    def load(self) -> None:
        self.agent = read_agent_defaults(self.ctx).to_json()
        def unlisted(exc: OSError) -> None:
            self.ctx.problem(Path(exc.filename or self.ctx.evals), f"cannot be listed: {exc.strerror or exc}")

        for path in eval_files(self.ctx.evals, unlisted):
            refusal = self.ctx.refusal(path, "file")
            if refusal:
                self.ctx.problem(path, refusal)
                continue
            self.load_file(path)

    def load_file(self, path: Path) -> None:
        lines: list[int] | None = None
        if path.name.endswith(TS_SUFFIX):
            found = self.typescript(path)
            if found is None:
                return
            entries: list[Any] | None = [f.value for f in found]
            lines = [f.line for f in found]
        else:
            entries = self.entries(path, self.ctx.read_json(path))
        if entries is None:
            return
        scope = relative(self.ctx.root, path.parent)
        rows: list[Row] = []
        ids = unique_ids([_wanted_id(index, spec) if isinstance(spec, dict) else None
                          for index, spec in enumerate(entries)])
        for index, spec in enumerate(entries):
            if not isinstance(spec, dict):
                self.ctx.problem(path, f"evals[{index}] must be an eval object, not {type_name(spec)}; skipped")
                continue
            rows.append(self.row(path, index, spec, ids[index] or f"#{index}", lines[index] if lines else None))
        self.ctx.project.sets.append(EvalSet(scope=scope, path=path, id=None, name=None,
                                             evaluator_refs=[EVALUATOR_REF], rows=rows, dialect=DIALECT,
                                             short_name=short_name(path)))
        key = EvaluatorKey(scope, EVALUATOR_REF)
        if key not in self.ctx.project.evaluators:
            self.ctx.project.evaluators[key] = EvaluatorDef(
                scope=scope, ref=EVALUATOR_REF, path=path.parent, id=None, name="conversation",
                type_id=CONVERSATION_TYPE, config={AGENT_KEY: self.agent} if self.agent else {}, raw={})

    def typescript(self, path: Path) -> list[FoundLiteral] | None:
        """The evals of an `.eval.ts` file, each `new Eval({...})`'s literal; every construct that is not a
        literal is an ERROR naming its line (that eval is left out, the file's others still load)."""
        self.ctx.loaded(path)
        text = read_source(self.ctx, path, hint=f"; {LITERAL_HINT}")
        if text is None:
            return None
        read = read_evals_cached(text)
        for problem in read.problems:
            self.ctx.problem(path, f"line {problem.line}: {problem.message}")
        for warning in read.warnings:
            self.ctx.problem(path, f"line {warning.line}: {warning.message}", "warning")
        if read.more_problems:
            self.ctx.problem(path, f"and {read.more_problems} more constructs that are not literals")
        if not read.found and not read.problems:
            self.ctx.problem(path, "has no `new Eval({...})`: a .eval.ts file exports its evals as "
                                   f"`export default new Eval({{...}})` or `export const name = new Eval({{...}})`; "
                                   f"{LITERAL_HINT}")
        return read.found

    def entries(self, path: Path, doc: Any) -> list[Any] | None:
        if doc is UNREADABLE:
            return None
        if isinstance(doc, list):
            return doc
        if isinstance(doc, dict) and "evals" in doc:
            if not isinstance(doc["evals"], list):
                self.ctx.problem(path, f"\"evals\" must be an array of eval objects, not {type_name(doc['evals'])}")
                return None
            others = [key for key in doc if key != "evals"]
            if others:
                self.ctx.problem(path, f"{', '.join(map(repr, others))} beside \"evals\" is ignored", "warning")
            return doc["evals"]
        if isinstance(doc, dict):
            return [doc]
        self.ctx.problem(path, f"must hold an eval object, an array of them or {{\"evals\": [...]}}, "
                               f"not {type_name(doc)}")
        return None

    def row(self, path: Path, index: int, spec: dict[str, Any], row_id: str, line: int | None = None) -> Row:
        problems = eval_problems(spec)
        name = _name(spec)
        where = f"{relative(self.ctx.root, path)}" + (f" (line {line})" if line is not None
                                                      else f" (evals[{index}])" if index else "")
        if name and name in self.names:
            problems.insert(0, f"name {name!r} is already used by the eval in {self.names[name]}; eval names "
                               "are unique in the project")
        elif name:
            self.names[name] = where
        tags = spec.get("tags")
        kind = spec.get("type")
        inputs = _inputs(spec, idle_timeout(spec, self.ctx.config, self.agent)[0]) if not problems else {}
        return Row(id=row_id, name=name, inputs=inputs,
                   criteria={EVALUATOR_REF: spec}, index=index, raw=spec, problem="\n".join(problems) or None,
                   tags=tuple(t for t in tags if isinstance(t, str)) if isinstance(tags, list) else (),
                   kind=kind if kind in EVAL_TYPES else None)


def _name(spec: dict[str, Any]) -> str:
    name = spec.get("name")
    return name if isinstance(name, str) and name.strip() else ""


def _wanted_id(index: int, spec: dict[str, Any]) -> str:
    """An eval is tracked by its name, or `#index` without one (repeats made unique by `unique_ids`)."""
    return _name(spec) or f"#{index}"


def _inputs(spec: dict[str, Any], idle_ms: float) -> dict[str, Any]:
    """What drives the target (shown as the row's inputs): the triggers, the setup, the idle timeout (ms,
    after the cascade: a changed timeout is a changed input, so the row runs again)."""
    turns = [{"user": t["user"]} if "user" in t else {"event": t["event"]} for t in spec.get("conversation", [])]
    inputs: dict[str, Any] = {"conversation": turns}
    if spec.get("setup"):
        inputs["setup"] = spec["setup"]
    inputs["idleTimeout"] = int(idle_ms) if float(idle_ms).is_integer() else idle_ms
    return inputs
