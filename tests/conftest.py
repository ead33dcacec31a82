"""Shared test helpers: build fixture projects, run the `workbench` CLI, check on processes.

Build a project (every argument is optional; only what you pass is written, so calls can be stacked
on the same folder to add a second scope or a broken file):

    root = make_project(
        tmp_path,
        sets={"grading": [row("85 passes", {"score": 85}, {"grade": "PASS"})]},   # rows -> a set document
        evaluators={"exact-match-evaluator": evaluator("*")},                     # default when omitted
        config=COMMAND_CONFIG,                                                    # [runner] table
    )

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

Run the real CLI the way a user does, in a fresh interpreter: ``run_workbench("run", str(root), "--json")``
(``run_json`` also parses the document; ``verdicts``/``result_for`` pick results out of it).
``tree_digest`` hashes a folder (to prove nothing was written); ``process_alive`` checks a pid, treating
unreaped zombies as gone. The ``make_project`` and ``run_workbench`` fixtures hand out the same functions
for tests that prefer fixtures to imports.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
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


def _write(path: Path, content: Any) -> None:
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
        _write(base / "evaluators" / f"{name}.json", evaluator_doc)
    for name, content in (sets or {}).items():
        _write(base / "eval-sets" / f"{name}.json", eval_set(content) if isinstance(content, list) else content)
    if config is not None:
        _write(root / "workbench.toml", config if isinstance(config, str) else toml_text(config))
    for relative, content in (files or {}).items():
        _write(root / relative, content)
    return root


def cli_env(**extra: str) -> dict[str, str]:
    """The environment for a CLI subprocess: no colour, no progress line, nothing inherited that matters."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("WORKBENCH_", "FORCE_COLOR"))}
    env.update({"NO_COLOR": "1", "WORKBENCH_NO_PROGRESS": "1", "PYTHONIOENCODING": "utf-8"})
    env.update(extra)
    return env


def run_workbench(*args: str, cwd: Path | None = None, env: Mapping[str, str] | None = None,
                  timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """`workbench ARGS...` in a fresh interpreter, as a user would run it; never raises on exit codes."""
    return subprocess.run([sys.executable, "-m", "workbench", *args], cwd=cwd, env=dict(env or cli_env()),
                          capture_output=True, text=True, timeout=timeout, encoding="utf-8", errors="replace")


def run_json(*args: str, **kwargs: Any) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    """`workbench run ... --json`; returns the process and the parsed document."""
    proc = run_workbench(*args, "--json", **kwargs)
    try:
        doc = json.loads(proc.stdout)
    except json.JSONDecodeError:
        pytest.fail(f"--json printed no JSON document (exit {proc.returncode})\nstdout:\n{proc.stdout}\n"
                    f"stderr:\n{proc.stderr}")
    return proc, doc


def verdicts(doc: Mapping[str, Any]) -> dict[str, str]:
    """{"row name [evaluator]": verdict} from a --json document."""
    return {f"{r['row_name']} [{r['evaluator']}]": r["verdict"] for r in doc["results"]}


def result_for(doc: Mapping[str, Any], row_name: str, evaluator_ref: str = EXACT) -> dict[str, Any]:
    matches = [r for r in doc["results"] if r["row_name"] == row_name and r["evaluator"] == evaluator_ref]
    assert len(matches) == 1, f"expected one result for {row_name!r} [{evaluator_ref}], got {doc['results']}"
    return matches[0]


def tree_digest(folder: Path) -> dict[str, str]:
    """{relative path: sha256} of every file under `folder`, plus its directories (to catch new ones)."""
    out: dict[str, str] = {}
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder).as_posix()
        out[rel] = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "<dir>"
    return out


def process_alive(pid: int) -> bool:
    """True while `pid` runs. A killed process nobody has reaped yet (a zombie) counts as gone: in a
    container whose init does not reap, `os.kill(pid, 0)` keeps succeeding for it."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True  # no /proc (macOS): os.kill said it exists
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


@pytest.fixture(name="make_project")
def _make_project_fixture():
    return make_project


@pytest.fixture(name="run_workbench")
def _run_workbench_fixture():
    return run_workbench
