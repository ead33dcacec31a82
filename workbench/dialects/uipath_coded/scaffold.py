"""`workbench init --format uipath-coded`: the files of a UiPath coded agent project that `uipath eval` and
workbench both run — `uipath.json` naming the entry point, a starter `main.py` whose two tools are recorded
by `uipath.tracing.traced`, and one eval set scored by two evaluators (exact match on the output's
`capital`, the order of the tool calls) that passes at once.

Nothing that exists is overwritten (it is kept), and nothing is written through a link: the folders are
walked one name at a time without following one, and each file is created whole or not at all
(`writeback/atomic.py`). In a project that already has an entry point or evaluations, the starter agent
and its rows are left out: their inputs would not be the user's agent's. Beside the user's own agent, the
evaluators are not the starter's either (its `capital` and its tools are the starter agent's): one exact match on
the whole output and an empty set referring to it. In an `evaluations/` that has files already, nothing is
written at all: a starter evaluator there would be one the user's rows don't use, or take an id they use."""

from __future__ import annotations

import ast
import os
import uuid
from pathlib import Path, PurePosixPath
from typing import Any

from ... import jsonio
from ...regular_files import read_regular_file
from ...safe_paths import open_folder
from ...scaffold import Written, json_bytes
from ...writeback.atomic import create_atomically
from ..base import Scaffolded

PROJECT_FILE = "uipath.json"
ENTRY_FILE = "main.py"
ENTRY_FUNCTION = "main"
EVALUATIONS = "evaluations"
SETS = f"{EVALUATIONS}/eval-sets"
EVALUATORS = f"{EVALUATIONS}/evaluators"
SET_FILE = f"{SETS}/default.json"
EXACT_MATCH = "ExactMatch"
TOOL_ORDER = "ToolCallOrder"
TOOLS = ["find_capital", "write_answer"]
_READ_LIMIT = 1 << 20

# The starter agent needs `uipath` on purpose: its tool calls are what ToolCallOrder scores, and only
# uipath.tracing records them. A main.py that ran without it would make that evaluator fail for a reason
# that is not the agent's; instead `check`, `run` and `init` say before any row, once, what to install where
# (`sdk_check.start_problem`), and `uipath eval`'s rows error with the ImportError's words.
ENTRY_TEXT = '''"""A starter UiPath coded agent: make `main` call your agent.

uipath.json names this function ("main": "main.py:main"). Each row of evaluations/eval-sets/default.json
calls main() with the row's "inputs"; the dict it returns is the output the evaluators look at:
ExactMatch (evaluations/evaluators/exact-match.json) compares its "capital", ToolCallOrder
(tool-call-order.json) the order the tools below were called in.

The tools are recorded by uipath.tracing.traced(span_type="tool"), so this needs the `uipath` package in
the Python that runs the rows: `uipath eval`'s, and for workbench the project's .venv (else the interpreter
workbench.toml's [runner] command names, else workbench's own). `pip install uipath` there.
"""

try:
    from uipath.tracing import traced
except ImportError:
    raise ImportError("main.py needs the uipath package (it records the tool calls): pip install uipath "
                      "in the Python that runs the rows, e.g. python3 -m venv .venv && "
                      ".venv/bin/pip install uipath") from None

CAPITALS = {"france": "Paris", "japan": "Tokyo", "kenya": "Nairobi"}


@traced(span_type="tool")
def find_capital(country: str) -> str:
    return CAPITALS.get(country.strip().lower(), "unknown")


@traced(span_type="tool")
def write_answer(country: str, capital: str) -> str:
    return f"The capital of {country} is {capital}."


def main(input: dict) -> dict:
    country = input["country"]
    capital = find_capital(country)
    return {"capital": capital, "answer": write_answer(country, capital)}
'''


def project_document() -> dict[str, Any]:
    return {"functions": {ENTRY_FUNCTION: f"{ENTRY_FILE}:{ENTRY_FUNCTION}"}}


def evaluator_documents() -> dict[str, tuple[str, dict[str, Any]]]:
    """Evaluator id -> (its file, its document), as `uipath eval` reads them (refs are the ids): the starter
    agent's, which compare its `capital` and the order of its two tools."""
    exact = {"version": "1.0", "id": EXACT_MATCH, "name": "Capital matches",
             "description": "The output's capital equals expectedOutput's (not case-sensitive)",
             "evaluatorTypeId": "uipath-exact-match",
             "evaluatorConfig": {"name": "Capital matches", "targetOutputKey": "capital", "caseSensitive": False}}
    order = {"version": "1.0", "id": TOOL_ORDER, "name": "Tools in order",
             "description": "The agent looks the capital up before it writes the answer",
             "evaluatorTypeId": "uipath-tool-call-order",
             "evaluatorConfig": {"name": "Tools in order", "strict": False,
                                 "defaultEvaluationCriteria": {"toolCallsOrder": TOOLS}}}
    return {EXACT_MATCH: (f"{EVALUATORS}/exact-match.json", exact),
            TOOL_ORDER: (f"{EVALUATORS}/tool-call-order.json", order)}


def own_agent_exact_match() -> dict[str, Any]:
    """The one evaluator written beside the user's own agent: its whole output against expectedOutput (the
    starter's compares a key and tools only the starter agent has)."""
    return {"version": "1.0", "id": EXACT_MATCH, "name": "Output matches",
            "description": "The whole output equals expectedOutput (not case-sensitive)",
            "evaluatorTypeId": "uipath-exact-match",
            "evaluatorConfig": {"name": "Output matches", "targetOutputKey": "*", "caseSensitive": False}}


def starter_rows() -> list[dict[str, Any]]:
    """What the starter agent answers; ToolCallOrder's criterion is null: its defaultEvaluationCriteria."""
    return [{"id": str(uuid.uuid4()), "name": f"the capital of {country} is {capital}",
             "inputs": {"country": country},
             "evaluationCriterias": {EXACT_MATCH: {"expectedOutput": {"capital": capital}}, TOOL_ORDER: None}}
            for country, capital in (("France", "Paris"), ("Japan", "Tokyo"), ("Kenya", "Nairobi"))]


def set_document(rows: list[dict[str, Any]], refs: list[str] | None = None) -> dict[str, Any]:
    return {"version": "1.0", "id": str(uuid.uuid4()), "name": "Default",
            "evaluatorRefs": refs if refs is not None else [EXACT_MATCH, TOOL_ORDER], "evaluations": rows}


def create(root: Path, relative: str, data: bytes) -> bool:
    """Write `data` to `root/relative` whole or not at all, only if nothing is there (False when something
    is: a file, a link, anything); its folders are made and walked without following a link (a link on the
    way raises `safe_paths.UnsafePath`), so nothing is written outside the project."""
    parts = PurePosixPath(relative).parts
    os.close(open_folder(root, parts[:-1], create=True))
    try:
        create_atomically(root.joinpath(*parts), data)
    except FileExistsError:
        return False
    return True


def _has_function(source: Path, name: str) -> bool | None:
    """Whether the Python file defines a top-level function `name` (None: it can't be read or parsed)."""
    try:
        tree = ast.parse(read_regular_file(source, _READ_LIMIT))
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return any(isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name for node in tree.body)


def _has_files(folder: Path) -> bool:
    """Whether anything but empty folders is under `folder` (a link counts; none is followed)."""
    return os.path.islink(folder) or any(files or any(os.path.islink(os.path.join(top, d)) for d in folders)
                                         for top, folders, files in os.walk(folder))


def _evaluator_ids(root: Path) -> list[str]:
    """The ids the project's evaluator files have, sorted (links and unreadable files are passed over: the loader
    reports them)."""
    try:
        entries = list(os.scandir(root / EVALUATORS))
    except OSError:
        return []
    ids = set()
    for entry in entries:
        if not entry.name.endswith(".json") or not entry.is_file(follow_symlinks=False):
            continue
        try:
            document = jsonio.loads(read_regular_file(entry.path, _READ_LIMIT))
        except (OSError, ValueError):
            continue
        if isinstance(document, dict) and isinstance(document.get("id"), str):
            ids.add(document["id"])
    return sorted(ids)


def _why_no_starter(root: Path) -> str | None:
    """Why this project gets no starter agent and rows (None: it has neither an entry point nor evaluations)."""
    if os.path.lexists(root / PROJECT_FILE):
        return f"{PROJECT_FILE} already names the entry point"
    if os.path.lexists(root / ENTRY_FILE):
        return f"{ENTRY_FILE} is already there"
    if _has_files(root / EVALUATIONS):
        return f"the project already has {EVALUATIONS}/"
    return None


def _evaluations_of(root: Path) -> str | None:
    """What the project's evaluations/ already holds, in words (None: nothing): then init writes nothing in it.
    A starter evaluator there would be one the user's rows don't use, or take an id they use for their own."""
    if not _has_files(root / EVALUATIONS):
        return None
    if os.path.islink(root / EVALUATIONS):
        return f"{EVALUATIONS}/ is a link; nothing is written through one"
    ids = _evaluator_ids(root)
    folder = root / SETS
    sets = sorted(name for name in os.listdir(folder) if name.endswith(".json")) \
        if folder.is_dir() and not folder.is_symlink() else []
    held = [f"evaluators {', '.join(ids)}" if ids else "no evaluator",
            f"{len(sets)} eval set{'' if len(sets) == 1 else 's'}"]
    return (f"the project already has {EVALUATIONS}/ ({'; '.join(held)}): a starter evaluator would be one its "
            "rows don't use, or take an id they do")


def _project_file(done: Written, starter: bool) -> None:
    """uipath.json naming main.py:main — where there is a main.py with a `main` to name (the user's, or the
    starter's about to be written)."""
    if os.path.lexists(done.root / PROJECT_FILE):
        done.kept.append(PROJECT_FILE)
        return
    entry = done.root / ENTRY_FILE
    if os.path.lexists(entry):
        has_main = _has_function(entry, ENTRY_FUNCTION) is not False  # None: unreadable, named all the same
        why = None if has_main else f"{ENTRY_FILE} has no function {ENTRY_FUNCTION}"
    else:
        why = None if starter else f"there is no {ENTRY_FILE} to name"
    if why is None:
        done.create(PROJECT_FILE, json_bytes(project_document()))
    else:
        done.skip(PROJECT_FILE, f'{why}: write {PROJECT_FILE} naming your entry point, {{"functions": {{"main": '
                                '"file.py:function"}}')


def _evaluations(done: Written, no_starter: str | None) -> None:
    """The evaluators and the set: the starter's (its rows too) in a new project; beside the user's own agent,
    one exact match on the whole output and an empty set; nothing where evaluations/ has files already."""
    held = _evaluations_of(done.root)
    evaluators = evaluator_documents()
    if held is not None:
        starter_files = [*(file for file, _ in evaluators.values()), SET_FILE]
        done.kept += [relative for relative in starter_files if os.path.lexists(done.root / relative)]
        left_out = [relative for relative in starter_files if relative not in done.kept]
        if left_out:
            done.skip(", ".join(left_out), held)
        return
    exact_file, exact = evaluators[EXACT_MATCH]
    order_file, order = evaluators[TOOL_ORDER]
    if no_starter is None:
        done.create(exact_file, json_bytes(exact))
        done.create(order_file, json_bytes(order))
        done.create(SET_FILE, json_bytes(set_document(starter_rows())))
        return
    done.create(exact_file, json_bytes(own_agent_exact_match()))
    done.skip(order_file, f"its tools are the starter agent's ({', '.join(TOOLS)}); for your agent's, write one "
                          "with evaluatorTypeId uipath-tool-call-order naming them")
    done.create(SET_FILE, json_bytes(set_document([], [EXACT_MATCH])))


def init_project(root: Path) -> Scaffolded:
    """Create the files that are missing — with the starter agent and its rows only in a project that has
    no entry point and no evaluations yet, and nothing in an evaluations/ that has files. `created`, `kept`
    (they exist) and `skipped` (each with why) name files relative to `root`."""
    no_starter = _why_no_starter(root)
    held = _evaluations_of(root)
    done = Written(root, write=create)
    _project_file(done, no_starter is None)
    if no_starter is None:
        done.create(ENTRY_FILE, ENTRY_TEXT.encode("utf-8"))
    elif os.path.lexists(root / ENTRY_FILE):
        done.kept.append(ENTRY_FILE)
    else:
        done.skip(ENTRY_FILE, no_starter)
    _evaluations(done, no_starter)
    return Scaffolded(done.created, done.kept, done.skipped, next_steps(root, no_starter, held))


def python_note(root: Path) -> tuple[bool, str]:
    """Whether the rows can start in the Python that runs them, and what to say of it: `check`'s and `run`'s own
    words when they can't (the entry imports uipath, that Python lacks it: which one, and the one fix), else
    which Python it is when it has uipath ("" when that can't be told: `check` says why)."""
    from ...config import ConfigError, load_config
    from .sdk_check import has_sdk, rows_python, start_problem

    try:
        config = load_config(root)
    except ConfigError:  # `check` and `run` say what is wrong with the settings
        return True, ""
    problem = start_problem(root, config)
    if problem is not None:
        return False, f"{problem.file}: {problem.message}"
    rows = rows_python(root, config)
    if rows is not None and has_sdk(root, config):
        return True, f"The rows run in {rows.shown} ({rows.where}), which has uipath."
    return True, ""


def next_steps(root: Path, no_starter: str | None, held: str | None = None) -> str:
    """What to do next, and — when the rows can't start — the one fix `check` and `run` say too."""
    ready, note = python_note(root)
    blocked = "" if ready else f"\n{note}"
    if held is not None:
        first = "" if os.path.lexists(root / PROJECT_FILE) else f"write {PROJECT_FILE} naming your entry point, then "
        return (f"Next: {first}`workbench check` checks the project's own eval sets and evaluators (init wrote "
                f"nothing in {EVALUATIONS}/), then `workbench run` runs them.{blocked}")
    if no_starter is not None:
        return (f"Next: add rows to {SET_FILE} (the inputs your entry point takes, and evaluationCriterias keyed by "
                f"evaluator id: {{\"{EXACT_MATCH}\": {{\"expectedOutput\": <the whole output>}}}}), then "
                f"`workbench run`.{blocked}")
    return (f"Next: `workbench run` runs the rows of {SET_FILE} through {ENTRY_FILE}'s main() "
            f"({'they pass' if ready else 'they pass once uipath is installed'}), or `workbench` opens the TUI; "
            f"`uipath eval main {SET_FILE}` scores the same files. Then make main() call your agent and add rows."
            + (f"\n{note}" if note else ""))
