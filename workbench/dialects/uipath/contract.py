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
`enum`, `const`); a schema built from `$ref`/`anyOf`/`oneOf`/`allOf` is trusted, not guessed at. The
libraries judge (`dialects/schema_check.py`: fastjsonschema's yes/no for every row, jsonschema's errors
for a row that doesn't fit); `judged` gives them the schema as the contract reads it, and `_said` puts
each error in the words below.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ... import jsonio
from ...compare import type_name
from ...model import EvaluatorDef, Problem, Project, Row, Severity
from ...output_paths import MISSING, WHOLE, select, split_path
from ...regular_files import read_regular_file
from ..base import relative
from ..schema_check import SchemaCheck, check_for, findings
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


_KNOWN_TYPES = ("string", "number", "integer", "boolean", "object", "array", "null")


def judged(schema: Any, depth: int = 0) -> Any:
    """`schema` as the contract judges it, for the libraries: the plain keywords only (`const` as a one-value
    `enum`); a part built from combinators, deeper than `_MAX_DEPTH` or naming a type JSON Schema doesn't
    have is trusted (`true`); a key the declared properties don't name is refused unless
    `additionalProperties` allows it (the casing trap: `Sum` where the schema says `sum`)."""
    if not isinstance(schema, dict) or depth > _MAX_DEPTH or any(k in schema for k in _COMBINATORS):
        return True
    out: dict[str, Any] = {}
    types = _types(schema)
    if types and all(name in _KNOWN_TYPES for name in types):
        out["type"] = list(types)
    options = [schema["const"]] if "const" in schema else schema.get("enum")
    if isinstance(options, list) and options:
        out["enum"] = options
    raw = schema.get("properties")
    properties = {k: judged(v, depth + 1) for k, v in raw.items()} if isinstance(raw, dict) else None
    if properties is not None:
        out["properties"] = properties
    required = schema.get("required")
    if isinstance(required, list) and any(isinstance(name, str) for name in required):
        out["required"] = list(dict.fromkeys(name for name in required if isinstance(name, str)))
    extra = schema.get("additionalProperties")
    if isinstance(extra, dict):
        out["additionalProperties"] = judged(extra, depth + 1)
    elif properties and extra is not True:
        out["additionalProperties"] = False
    if isinstance(schema.get("items"), dict):
        out["items"] = judged(schema["items"], depth + 1)
    return out


def _cut(value: Any, depth: int = 0) -> Any:
    """`value` with every array cut to its first `_MAX_ITEMS` elements: what is said about a value that
    doesn't fit (the first ones show the mistake; a long array costs no more to explain)."""
    if depth > _MAX_DEPTH:
        return value
    if isinstance(value, list):
        return [_cut(item, depth + 1) for item in value[:_MAX_ITEMS]]
    if isinstance(value, dict):
        return {key: _cut(item, depth + 1) for key, item in value.items()}
    return value


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


def _said(check: SchemaCheck, value: Any, where: tuple[Any, ...], side: str) -> list[str]:
    """What doesn't fit `side` ("input.schema") in `value` (found at `where`), in the value's order: a wrong
    type or value hides what is inside it; missing keys come last, and a key present in another casing
    is no missing key (its undeclared spelling is said, with the hint)."""
    if check.fits(value):
        return []
    found = []
    for finding in findings(check, _cut(value), hiding=("type", "enum"), missing_last=True):
        place, wrong = (*where, *finding.path), finding.value
        if finding.keyword == "type":
            shown = jsonio.dumps(wrong) if not isinstance(wrong, (dict, list)) else type_name(wrong)
            found.append(f"{_where(place)} is {type_name(wrong)} ({_short(shown)}), but {side} says "
                         f"{' or '.join(finding.limit)}")
        elif finding.keyword == "enum":
            allowed = ", ".join(_short(jsonio.dumps(option), 30) for option in finding.limit[:8])
            found.append(f"{_where(place)} is {_short(jsonio.dumps(wrong))}, which {side} does not allow "
                         f"(one of: {allowed})")
        elif finding.keyword == "additionalProperties" and finding.key is not None:
            declared = list(finding.node.get("properties") or {})
            found.append(f"{_where(place[:-1])} has {jsonio.dumps(finding.key)}, which {side} does not declare"
                         + casing_hint(finding.key, declared, output=side.startswith("output")))
        elif (finding.keyword == "required" and finding.key is not None
              and finding.key.lower() not in {key.lower() for key in wrong}):
            found.append(f"{_where(place[:-1])} lacks {jsonio.dumps(finding.key)}, which {side} requires")
    return found


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
    """The contract's schemas compiled once for a whole check, with the schema under each target path."""

    contract: WorkflowContract
    input: SchemaCheck | None = None
    output: SchemaCheck | None = None
    paths: dict[str, SchemaCheck | None] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.input = check_for(judged(self.contract.input)) if self.contract.input is not None else None
        self.output = check_for(judged(self.contract.output)) if self.contract.output is not None else None

    def output_at(self, path: str) -> SchemaCheck | None:
        if path not in self.paths:
            schema = schema_at(self.contract.output, path)[0] if self.contract.output is not None else None
            self.paths[path] = check_for(judged(schema)) if schema is not None else None
        return self.paths[path]


def _row_findings(row: Row, evaluators: list[EvaluatorDef], compiled: _Compiled) -> list[str]:
    found: list[str] = []
    if compiled.input is not None:
        found += _capped(_said(compiled.input, row.inputs, ("inputs",), "input.schema"))
    if compiled.output is None:
        return found
    for evaluator in evaluators:
        expected = expected_output(row.criteria.get(evaluator.ref))
        if expected is MISSING:
            continue
        said: list[str] = []
        label = "expectedOutput" + (f" ({evaluator.ref})" if len(evaluators) > 1 else "")
        for path in ([WHOLE] if WHOLE in evaluator.target_paths else evaluator.target_paths):
            if path == WHOLE:
                said += _said(compiled.output, expected, (label,), "output.schema")
                continue
            value = select(expected, path)
            if value is MISSING:
                said.append(missing_path(label, evaluator, path, expected))
                continue
            check = compiled.output_at(path)
            if check is not None:
                said += _said(check, value, (label, *split_path(path)), "output.schema")
        found += _capped(said)
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
