"""Fixture projects for tests: write evaluators, eval sets, `workbench.toml` and other files into a folder.

    root = make_project(
        tmp_path,
        sets={"grading": [row("85 passes", {"score": 85}, {"grade": "PASS"})]},   # rows -> a set document
        evaluators={"exact-match-evaluator": evaluator("*")},                     # default when omitted
        config=COMMAND_CONFIG,                                                    # [runner] table
    )

Every argument is optional and only what is passed is written, so calls can be stacked on the same folder
to add a second scope or a broken file.

* ``sets`` maps a set's file base name to a full document (dict), a list of rows (wrapped with
  ``evaluatorRefs = ["exact-match-evaluator"]``), or raw ``str``/``bytes`` written as-is (malformed
  files).
* ``evaluators`` maps an evaluator's file base name to a document or raw text. When omitted, the
  seeded ``exact-match-evaluator`` is written; pass ``{}`` for none.
* ``config`` is the ``[runner]`` table as a dict (or ``{"runner": {...}, "watch": {...}}`` for several
  tables), raw TOML text, or ``None`` for no ``workbench.toml``.
* ``files`` maps other paths (relative to the root) to text or bytes: ``Workflow.json``, targets, ...

Targets: ``COMMAND_CONFIG`` runs ``fixtures/target.py`` and ``UIP_CONFIG`` runs the stand-in
``fixtures/fake_uip.py`` (add ``files={"Workflow.json": WORKFLOW_JSON}``). Both are driven by the row's
inputs — ``{"output": X}`` answers X, ``{"hang": pidfile}`` hangs with a grandchild, ``{"exit": N}``,
``{"env": true}`` … — see their docstrings.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
TARGET = FIXTURES / "target.py"
FAKE_UIP = FIXTURES / "fake_uip.py"
EXACT = "exact-match-evaluator"

# `{python}` is replaced by the interpreter workbench runs on, so fixtures need no `python` on PATH.
COMMAND_CONFIG: dict[str, Any] = {"kind": "command", "command": ["{python}", str(TARGET)], "timeout": 20}
UIP_CONFIG: dict[str, Any] = {"kind": "uip", "uip": ["{python}", str(FAKE_UIP)], "timeout": 20}
WORKFLOW_JSON = '{"name": "fixture workflow", "input": null, "output": null}\n'

_NO_CRITERION = object()


def evaluator(target_output_key: Any = "*", /, *, type_id: str = "uipath-exact-match", id: str | None = None,
              omit_target: bool = False, **extra: Any) -> dict[str, Any]:
    """An evaluator document shaped like the one Studio Web seeds; `extra` adds top-level fields."""
    config: dict[str, Any] = {"name": "Exact Match", "defaultEvaluationCriteria": {"expectedOutput": {}}}
    if not omit_target:
        config["targetOutputKey"] = target_output_key
    doc = {
        "version": "1.0",
        "id": id or f"eval-{uuid.uuid4().hex[:8]}",
        "name": "Exact Match",
        "description": "test evaluator",
        "evaluatorTypeId": type_id,
        "evaluatorConfig": config,
    }
    doc.update(extra)
    return doc


def row(name: str, inputs: Any, expected: Any = _NO_CRITERION, /, *, ref: str | Iterable[str] = EXACT,
        id: str | None = None, criteria: Mapping[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    """One entry of `evaluations`. `expected` goes to evaluationCriterias[ref].expectedOutput for every
    ref given; pass `criteria` to write evaluationCriterias verbatim instead."""
    if criteria is None:
        refs = [ref] if isinstance(ref, str) else list(ref)
        criteria = {} if expected is _NO_CRITERION else {r: {"expectedOutput": expected} for r in refs}
    doc = {"id": id or name, "name": name, "inputs": inputs, "evaluationCriterias": dict(criteria)}
    doc.update(extra)
    return doc


def eval_set(rows: list[Any], /, refs: Iterable[str] = (EXACT,), **extra: Any) -> dict[str, Any]:
    doc = {"version": "1.0", "id": f"set-{uuid.uuid4().hex[:8]}", "name": "Dataset",
           "evaluatorRefs": list(refs), "evaluations": rows}
    doc.update(extra)
    return doc


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)  # a JSON string is a valid TOML basic string
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{json.dumps(k)} = {_toml_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(f"cannot write {value!r} as TOML")


def toml_text(config: Mapping[str, Any]) -> str:
    """`{"kind": ...}` becomes a [runner] table; `{"runner": {...}, "watch": {...}}` several tables."""
    tables = config if all(isinstance(v, Mapping) for v in config.values()) and config else {"runner": config}
    lines = []
    for table, values in tables.items():
        lines.append(f"[{table}]")
        lines.extend(f"{key} = {_toml_value(value)}" for key, value in values.items())
        lines.append("")
    return "\n".join(lines)


def write_file(path: Path, content: Any) -> None:
    """`content` at `path` (folders made as needed): bytes and str as they are, anything else as JSON."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    else:
        path.write_text(json.dumps(content, indent=2) + "\n", encoding="utf-8")


def make_project(root: Path, *, sets: Mapping[str, Any] | None = None, evaluators: Mapping[str, Any] | None = None,
                 config: Mapping[str, Any] | str | None = None, scope: str = "default",
                 files: Mapping[str, Any] | None = None) -> Path:
    """Write a fixture project under `root` (see the module docstring) and return `root`."""
    root.mkdir(parents=True, exist_ok=True)
    base = root / "evals" / scope
    (base / "eval-sets").mkdir(parents=True, exist_ok=True)
    for name, evaluator_doc in ({EXACT: evaluator(id="exact-match-eval-001")} if evaluators is None
                                else evaluators).items():
        write_file(base / "evaluators" / f"{name}.json", evaluator_doc)
    for name, content in (sets or {}).items():
        write_file(base / "eval-sets" / f"{name}.json", eval_set(content) if isinstance(content, list) else content)
    if config is not None:
        write_file(root / "workbench.toml", config if isinstance(config, str) else toml_text(config))
    for relative, content in (files or {}).items():
        write_file(root / relative, content)
    return root
