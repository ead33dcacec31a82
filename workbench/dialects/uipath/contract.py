"""The workflow's contract, checked without running anything.

A UiPath project's `Workflow.json` declares `input.schema` and `output.schema`: the property names, with
their exact casing, that rows and the Response both follow (seed 003 §3.4). A row whose `inputs` or
`expectedOutput` keys don't fit them (`Sum` where the schema says `sum`) fails in the panel however right
the numbers are — the usual reason "the agent said it passed" while every row fails. So every row is
checked against the schemas: keys the schema doesn't declare (with a casing hint), keys it requires
that are missing, values of a type the schema rules out; `expectedOutput` under each evaluator's
`targetOutputKey` paths, for the evaluator types that compare it structurally.

Findings are Problems pinned to their row. Loading adds them as warnings (they never change a verdict;
`run` and the TUI show them beside the row); `workbench check` reports them as errors. Only the plain
parts of JSON Schema are judged (`type`, `properties`, `required`, `additionalProperties`, `items`,
`enum`, `const`); a schema built from `$ref`/`anyOf`/`oneOf`/`allOf` is trusted, not guessed at.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ... import jsonio
from ...compare import fits_schema_type, strict_equal, type_name
from ...model import EvaluatorDef, Problem, Project, Row, Severity
from ...output_paths import MISSING, WHOLE, select, split_path
from ...regular_files import read_regular_file
from ..base import relative
from .layout import workflow_path
from .target_paths import as_warnings, expected_output, missing_path, structural_evaluators

MAX_WORKFLOW_BYTES = 16 * 1024 * 1024

_COMBINATORS = ("$ref", "anyOf", "oneOf", "allOf", "not", "if")
_MAX_DEPTH = 32
_MAX_ITEMS = 100  # array elements checked per array
_MAX_PER_ROW = 10  # findings kept per row and side; the rest are counted


@dataclass(frozen=True, slots=True)


class WorkflowContract:
    """What `Workflow.json` declares. `output` is the schema of the output as evaluators see it: a
    declared non-object output is wrapped as {"result": ...} the way outputs are (seed 003 rule 5)."""

    file: str
    input: dict[str, Any] | None
    output: dict[str, Any] | None


def read_contract(root: Path, workflow: str | None = None) -> tuple[WorkflowContract | None, list[Problem]]:
    """The contract `Workflow.json` declares (None when there is no such file), and what is wrong
    with the file itself (not JSON, a schema that isn't an object)."""
    path = workflow_path(root, workflow)
    name = relative(root, path)
    if not path.exists():
        return None, []
    try:
        doc = jsonio.loads(read_regular_file(path, MAX_WORKFLOW_BYTES))
    except OSError as exc:
        return None, [Problem(name, f"cannot be read: {exc.strerror or exc}")]
    except jsonio.JsonError as exc:
        return None, [Problem(name, f"is not valid JSON: {exc}", excerpt=exc.excerpt)]
    if not isinstance(doc, dict):
        return None, [Problem(name, f"must be a JSON object, not {type_name(doc)}")]
    problems: list[Problem] = []
    schemas = [_declared_schema(doc, side, name, problems) for side in ("input", "output")]
    output = schemas[1]
    if output is not None and _types(output) and "object" not in _types(output):
        output = {"type": "object", "properties": {"result": output}, "required": ["result"]}
    return WorkflowContract(name, schemas[0], output), problems


def _declared_schema(doc: dict[str, Any], side: str, name: str, problems: list[Problem]) -> dict[str, Any] | None:
    """`doc[side].schema` — in the Serverless Workflow shape `{"format": "json", "document": {...}}` or
    as a JSON Schema itself — or None when it is not declared."""
    part = doc.get(side)
    if part is None:
        return None
    if not isinstance(part, dict):
        problems.append(Problem(name, f"\"{side}\" must be an object with a \"schema\", not {type_name(part)}"))
        return None
    schema = part.get("schema")
    if isinstance(schema, dict) and isinstance(schema.get("document"), dict):
        schema = schema["document"]
    if schema is None:
        return None
    if not isinstance(schema, dict):
        problems.append(Problem(name, f"{side}.schema must be a JSON Schema object, not {type_name(schema)}"))
        return None
    return schema


# -- checking values against a schema -----------------------------------------------------------------


def _types(schema: dict[str, Any]) -> tuple[str, ...]:
    declared = schema.get("type")
    if isinstance(declared, str):
        return (declared,)
    return tuple(t for t in declared if isinstance(t, str)) if isinstance(declared, list) else ()


def _fits(value: Any, types: tuple[str, ...]) -> bool:
    # An unknown type name (fits_schema_type says None) is not ours to judge.
    return any(fits_schema_type(value, kind) is not False for kind in types)


@dataclass(slots=True, eq=False)


class _Node:
    """One schema node, read once per check (rows are many, schemas few): what a value must be."""

    types: tuple[str, ...] = ()
    options: list[Any] | None = None  # enum / const
    properties: dict[str, _Node] | None = None
    required: tuple[str, ...] = ()
    extra: _Node | bool = True  # other keys: True allowed, False reported, a node: checked against it
    items: _Node | None = None


_TRUSTED = _Node()  # a part of the schema that isn't judged: everything fits


def compile_schema(schema: Any, depth: int = 0) -> _Node:
    if not isinstance(schema, dict) or depth > _MAX_DEPTH or any(k in schema for k in _COMBINATORS):
        return _TRUSTED
    raw = schema.get("properties")
    properties = {k: compile_schema(v, depth + 1) for k, v in raw.items()} if isinstance(raw, dict) else None
    raw_extra = schema.get("additionalProperties")
    extra: _Node | bool = (compile_schema(raw_extra, depth + 1) if isinstance(raw_extra, dict)
                           else not properties or raw_extra is True)
    options = [schema["const"]] if "const" in schema else schema.get("enum")
    required = schema.get("required")
    items = schema.get("items")
    return _Node(types=_types(schema), options=options if isinstance(options, list) and options else None,
                 properties=properties, extra=extra,
                 required=tuple(r for r in required if isinstance(r, str)) if isinstance(required, list) else (),
                 items=compile_schema(items, depth + 1) if isinstance(items, dict) else None)


def _where(path: tuple[Any, ...]) -> str:
    """`inputs.details.rawScore`, `expectedOutput["odd key"]`, `inputs.items[2]` from a path of keys."""
    text = path[0]
    for part in path[1:]:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if part.isidentifier() else f"[{jsonio.dumps(part)}]"
    return text


def casing_hint(key: str, declared: list[str], *, output: bool = True) -> str:
    """` — did you mean "sum"? ...` for a key the schema doesn't declare, or "". For the output, a key
    written PascalCased is the `Data` trap of seed 003 §2, and the hint says so."""
    same = [name for name in declared if name.lower() == key.lower()]
    if same:
        text = f" — did you mean {jsonio.dumps(same[0])}? Keys are case-sensitive"
        if output and key[:1].isupper() and same[0][:1].islower():
            text += " (uip's `Data` PascalCases keys; the raw output keeps the schema's casing)"
        return text
    close = difflib.get_close_matches(key, declared, n=1, cutoff=0.75)
    return f" — did you mean {jsonio.dumps(close[0])}?" if close else ""


@dataclass(slots=True)


class _Checker:
    """Collects what doesn't fit one schema (`side` names it in messages: "input.schema"). Places are
    kept as tuples of keys and spelled out only for a finding: most values fit."""

    side: str
    found: list[str] = field(default_factory=list)

    def value(self, value: Any, node: _Node, path: tuple[Any, ...]) -> None:
        if node is _TRUSTED:
            return
        if node.types and not _fits(value, node.types):
            shown = jsonio.dumps(value) if not isinstance(value, (dict, list)) else type_name(value)
            self.found.append(f"{_where(path)} is {type_name(value)} ({_short(shown)}), but {self.side} says "
                              f"{' or '.join(node.types)}")
            return
        if node.options is not None and not any(strict_equal(value, o) for o in node.options):
            allowed = ", ".join(_short(jsonio.dumps(o), 30) for o in node.options[:8])
            self.found.append(f"{_where(path)} is {_short(jsonio.dumps(value))}, which {self.side} does not allow "
                              f"(one of: {allowed})")
            return
        if isinstance(value, dict):
            self.object(value, node, path)
        elif isinstance(value, list) and node.items is not None and node.items is not _TRUSTED:
            for index, item in enumerate(value[:_MAX_ITEMS]):
                self.value(item, node.items, (*path, index))

    def object(self, value: dict[str, Any], node: _Node, path: tuple[Any, ...]) -> None:
        properties = node.properties or {}
        for key, item in value.items():
            child = properties.get(key)
            if child is not None:
                if child is not _TRUSTED:
                    self.value(item, child, (*path, key))
            elif node.extra is False:
                self.found.append(f"{_where(path)} has {jsonio.dumps(key)}, which {self.side} does not declare"
                                  + casing_hint(key, list(properties), output=self.side.startswith("output")))
            elif node.extra is not True:
                self.value(item, node.extra, (*path, key))
        missing = [name for name in node.required if name not in value]
        if missing:
            lowered = {key.lower() for key in value}
            for name in missing:
                if name.lower() not in lowered:  # present in another casing: already said, with the hint
                    self.found.append(f"{_where(path)} lacks {jsonio.dumps(name)}, which {self.side} requires")


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def schema_at(schema: dict[str, Any], path: str) -> tuple[dict[str, Any] | None, str | None]:
    """The schema of the value at the dotted `path`, or (None, why the schema has no such path). A
    level whose properties aren't declared (or can't be judged) answers (None, None): nothing to say."""
    node: Any = schema
    walked: list[str] = []
    for segment in split_path(path):
        if not isinstance(node, dict) or any(k in node for k in _COMBINATORS):
            return None, None
        properties = node.get("properties")
        if not isinstance(properties, dict) or segment not in properties:
            extra = node.get("additionalProperties")
            if not isinstance(properties, dict) or extra is True or isinstance(extra, dict):
                return None, None
            where = ".".join(walked) or "the output"
            return None, (f"{jsonio.dumps(segment)} is not a property of {where} in output.schema"
                          + casing_hint(segment, list(properties)))
        node = properties[segment]
        walked.append(segment)
    return (node if isinstance(node, dict) else None), None


# -- rows and evaluators against the contract ---------------------------------------------------------


@dataclass(slots=True)


class _Compiled:
    """The contract's schemas read once for a whole check, with the schema under each target path."""

    contract: WorkflowContract
    input: _Node | None = None
    output: _Node | None = None
    paths: dict[str, _Node | None] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.input = compile_schema(self.contract.input) if self.contract.input is not None else None
        self.output = compile_schema(self.contract.output) if self.contract.output is not None else None

    def output_at(self, path: str) -> _Node | None:
        if path not in self.paths:
            schema = schema_at(self.contract.output, path)[0] if self.contract.output is not None else None
            self.paths[path] = compile_schema(schema) if schema is not None else None
        return self.paths[path]


def _row_findings(row: Row, evaluators: list[EvaluatorDef], compiled: _Compiled) -> list[str]:
    found: list[str] = []
    if compiled.input is not None:
        checker = _Checker("input.schema")
        checker.value(row.inputs, compiled.input, ("inputs",))
        found += _capped(checker.found)
    if compiled.output is None:
        return found
    for evaluator in evaluators:
        expected = expected_output(row.criteria.get(evaluator.ref))
        if expected is MISSING:
            continue
        checker = _Checker("output.schema")
        label = "expectedOutput" + (f" ({evaluator.ref})" if len(evaluators) > 1 else "")
        for path in ([WHOLE] if WHOLE in evaluator.target_paths else evaluator.target_paths):
            if path == WHOLE:
                checker.value(expected, compiled.output, (label,))
                continue
            value = select(expected, path)
            if value is MISSING:
                checker.found.append(missing_path(label, evaluator, path, expected))
                continue
            node = compiled.output_at(path)
            if node is not None:
                checker.value(value, node, (label, *split_path(path)))
        found += _capped(checker.found)
    return found


def _capped(found: list[str]) -> list[str]:
    if len(found) <= _MAX_PER_ROW:
        return found
    return [*found[:_MAX_PER_ROW], f"… and {len(found) - _MAX_PER_ROW} more like these"]


def contract_problems(project: Project, contract: WorkflowContract) -> list[Problem]:
    """Every row of every UiPath set, and every structural evaluator's targetOutputKey, against the
    contract: errors pinned to their row (or naming the evaluator file)."""
    problems: list[Problem] = []
    targeted: set[tuple[str, str]] = set()
    compiled = _Compiled(contract)
    for eval_set in project.sets:
        if eval_set.dialect != "uipath":
            continue
        evaluators = structural_evaluators(project, eval_set)
        for evaluator in evaluators:
            if (evaluator.scope, evaluator.ref) not in targeted and contract.output is not None:
                targeted.add((evaluator.scope, evaluator.ref))
                problems.extend(_target_problems(project, evaluator, contract))
        file = relative(project.root, eval_set.path)
        for row in eval_set.rows:
            found = _row_findings(row, evaluators, compiled) if row.problem is None else None
            if found:
                where = f"evaluations[{row.index}]" + (f" ({row.name!r})" if row.name else "")
                problems.extend(Problem(file, f"{where}: {text}", Severity.ERROR, eval_set.key_of(row))
                                for text in found)
    return problems


def _target_problems(project: Project, evaluator: EvaluatorDef, contract: WorkflowContract) -> list[Problem]:
    assert contract.output is not None
    file = relative(project.root, evaluator.path)
    problems = []
    for path in evaluator.target_paths:
        if path == WHOLE:
            continue
        _, why = schema_at(contract.output, path)
        if why:
            problems.append(Problem(file, f"targetOutputKey {jsonio.dumps(path)}: {why}"))
    return problems


def contract_warnings(project: Project, root: Path, workflow: str | None) -> list[Problem]:
    """What loading adds: the contract findings as warnings (nothing when there is no Workflow.json or
    it declares no schema; what is wrong with Workflow.json itself is `workbench check`'s to say)."""
    contract, _ = read_contract(root, workflow)
    if contract is None or (contract.input is None and contract.output is None):
        return []
    return as_warnings(contract_problems(project, contract))
