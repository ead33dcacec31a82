"""The shape of the code, checked from its source: the layers of `workbench/` and the import rules between
them, no import cycle, Textual only inside `workbench/tui/`, and short functions where the front ends are
kept thin (`workbench/cli/`, `workbench/tui/app.py`).

The layers are listed here, lowest first. A module may import from its own layer and any layer below,
never from one above. Every module must belong to a layer: a new top-level module fails
`test_every_module_has_a_layer` until it is placed in LAYERS (a new module inside a listed package
belongs to that package's layer). Imports inside functions and under TYPE_CHECKING count too: a lazy
import is still a dependency.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from helpers.paths import PACKAGE

ROOT = "workbench"

# Every format's settings module (`dialects/<name>/settings.py`), found as settings/discovery.py finds them: a
# new format's sits in the settings layer without this file naming it.
FORMAT_SETTINGS: tuple[str, ...] = tuple(f"{ROOT}.dialects.{path.parent.name}.settings"
                                         for path in sorted(PACKAGE.glob("dialects/*/settings.py")))
# A format's `names.py`: plain constants its settings and its `Dialect` share (so naming a format, as `--help`
# does, imports no settings machinery); vocabulary, below both.
FORMAT_NAMES: tuple[str, ...] = tuple(f"{ROOT}.dialects.{path.parent.name}.names"
                                      for path in sorted(PACKAGE.glob("dialects/*/names.py")))

# (layer name, modules or packages in it), lowest first.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("vocabulary", ("workbench", "workbench.errors", "workbench.jsonio", "workbench.output_paths",
                    "workbench.textsafe", "workbench.model", "workbench.events", "workbench.compare",
                    "workbench.trace", "workbench.regular_files", "workbench.safe_paths",
                    "workbench.secret_files", "workbench.patterns", *FORMAT_NAMES)),
    # A format's own section sits with the settings (its package's settings.py), found by settings/discovery.py.
    ("settings", ("workbench.config", "workbench.options", "workbench.settings", *FORMAT_SETTINGS)),
    # baseline.py reads and writes the committed baseline files (its own and a format's gate's), below the gate.
    ("loading, running and scoring rows", ("workbench.dialects", "workbench.project", "workbench.scaffold",
                                           "workbench.runners", "workbench.worker_main", "workbench.scoring",
                                           "workbench.dialects.replays", "workbench.watching", "workbench.writeback",
                                           "workbench.cluster", "workbench.project_files",
                                           "workbench.file_digests", "workbench.baseline")),
    # rescoring/ owns every "run this row or re-score its recorded run" decision, planning included: the engine,
    # the session and everything above ask it.
    ("iterations", ("workbench.engine", "workbench.session", "workbench.history",
                    "workbench.gate", "workbench.progress", "workbench.rescoring", "workbench.snapshots")),
    # session_link serves a Session to other processes: beside the use cases that drive one (watch_loop).
    ("use cases", ("workbench.actions", "workbench.session_link")),
    ("reports", ("workbench.report",)),
    # What a coding agent reads and calls (`workbench mcp`, `run --brief`); only agent/server.py imports the mcp SDK.
    ("the agent interface", ("workbench.agent",)),
    ("the TUI", ("workbench.tui",)),
    ("the command line", ("workbench.cli", "workbench.__main__")),
)

MAX_FUNCTION_LINES = 60
THIN_FRONT_ENDS = ("cli", "tui/app.py")  # under workbench/: a folder (every file in it) or one file


@dataclass(frozen=True)
class Import:
    source: str  # the importing module
    target: str  # the imported workbench module (a submodule when `from package import submodule`)
    line: int

    def where(self) -> str:
        return f"{self.source} (line {self.line}) imports {self.target}"


def module_files() -> dict[str, Path]:
    """{dotted module name: file} for every module of the package."""
    out: dict[str, Path] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


MODULES = module_files()


def _absolute(module: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    package = module.split(".")
    if MODULES[module].name != "__init__.py":
        package.pop()
    package = package[: len(package) - (node.level - 1)]
    return ".".join([*package, node.module] if node.module else package)


def imports_of(module: str) -> Iterator[tuple[str, int]]:
    """(imported name, line) for every import statement in the module, at any depth, workbench or not."""
    for node in ast.walk(ast.parse(MODULES[module].read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(module, node)
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                yield (submodule if submodule in MODULES else base), node.lineno


def workbench_imports() -> list[Import]:
    found = []
    for module in MODULES:
        for target, line in imports_of(module):
            if target in MODULES and target != module:
                found.append(Import(module, target, line))
    return found


def layer_of(module: str) -> int | None:
    """The index of the layer whose longest listed name holds `module` (the root package holds only itself)."""
    best: tuple[int, int] | None = None
    for index, (_, members) in enumerate(LAYERS):
        for member in members:
            holds = module == member or (member != ROOT and module.startswith(member + "."))
            if holds and (best is None or len(member) > best[0]):
                best = (len(member), index)
    return None if best is None else best[1]


def test_every_module_has_a_layer():
    unplaced = [module for module in MODULES if layer_of(module) is None]
    assert not unplaced, f"place these modules in LAYERS (tests/architecture/test_architecture.py): {unplaced}"
    listed = [member for _, members in LAYERS for member in members]
    stale = [member for member in listed if not any(m == member or m.startswith(member + ".") for m in MODULES)]
    assert not stale, f"LAYERS names modules that no longer exist: {stale}"


def test_every_format_settings_module_sits_in_the_settings_layer():
    """`dialects/<name>/settings.py` is read by config.py: it must not reach up into its own format."""
    settings = next(index for index, (name, _) in enumerate(LAYERS) if name == "settings")
    found = [m for m in MODULES if m.startswith("workbench.dialects.") and m.endswith(".settings")]
    assert "workbench.dialects.scenarios.settings" in found
    misplaced = [module for module in found if layer_of(module) != settings]
    assert not misplaced, f"list these in the settings layer of LAYERS: {misplaced}"


def test_no_import_runs_from_a_lower_layer_up():
    imports = workbench_imports()
    assert any(i.source == "workbench.session" and i.target == "workbench.engine" for i in imports)
    assert any(i.source == "workbench.dialects.uipath" and i.target == "workbench.dialects.base" for i in imports)
    upward = []
    for found in imports:
        source, target = layer_of(found.source), layer_of(found.target)
        if source is not None and target is not None and target > source:
            upward.append(f"{found.where()}: layer '{LAYERS[source][0]}' reaches up to '{LAYERS[target][0]}'")
    assert not upward, "imports from a lower layer back up:\n" + "\n".join(upward)


def import_cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            step = next(successors, None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = len(index)
                    stack.append(step)
                    on_stack.add(step)
                    work.append((step, iter(sorted(edges[step]))))
                elif step in on_stack:
                    low[node] = min(low[node], index[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    cycles.append(sorted(component))
    return cycles


def test_the_cycle_finder_finds_cycles():
    assert import_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert import_cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle():
    edges: dict[str, set[str]] = {module: set() for module in MODULES}
    lines: dict[tuple[str, str], int] = {}
    for found in workbench_imports():
        edges[found.source].add(found.target)
        lines.setdefault((found.source, found.target), found.line)
    described = []
    for cycle in import_cycles(edges):
        inside = [f"  {s} (line {lines[s, t]}) -> {t}" for s in cycle for t in sorted(edges[s]) if t in cycle]
        described.append(f"cycle between {cycle}:\n" + "\n".join(inside))
    assert not described, "\n".join(described)


def test_nothing_outside_the_tui_imports_textual():
    offenders = [f"{module} (line {line}) imports {name}"
                 for module in MODULES if not module.startswith("workbench.tui")
                 for name, line in imports_of(module) if name == "textual" or name.startswith("textual.")]
    assert not offenders, "Textual imported outside workbench/tui/:\n" + "\n".join(offenders)


def test_importing_the_engine_does_not_load_textual():
    """The same rule at run time, transitively: importing every module outside the TUI (in a fresh
    interpreter) leaves Textual unloaded. The command line imports the TUI only when it opens it."""
    modules = [m for m in MODULES if not m.startswith("workbench.tui") and m != "workbench.__main__"]
    assert "workbench.engine" in modules and "workbench.cli" in modules
    code = ("import importlib, sys\n"
            f"for name in {modules!r}:\n"
            "    importlib.import_module(name)\n"
            "print(','.join(sorted(m for m in sys.modules if m == 'textual' or m.startswith('textual.'))))\n")
    # sys.executable, not the `python3` shim: the test runs in this interpreter's environment.
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.strip() == "", f"modules outside the TUI loaded Textual: {out.stdout}"


def thin_front_end_files() -> list[Path]:
    files: list[Path] = []
    for name in THIN_FRONT_ENDS:
        path = PACKAGE / name
        files.extend(sorted(path.rglob("*.py")) if path.is_dir() else [path])
    return files


def long_functions(path: Path) -> Iterator[tuple[str, int, int]]:
    """(qualified name, first line, length in lines from `def` to its last line) of every function and
    method in the file, nested ones included."""

    def visit(node: ast.AST, prefix: str) -> Iterator[tuple[str, int, int]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                if not isinstance(child, ast.ClassDef):
                    assert child.end_lineno is not None
                    yield name, child.lineno, child.end_lineno - child.lineno + 1
                yield from visit(child, name + ".")
            else:
                yield from visit(child, prefix)

    yield from visit(ast.parse(path.read_text(encoding="utf-8")), "")


def test_the_function_measure_counts_def_to_last_line(tmp_path: Path):
    sample = tmp_path / "sample.py"
    sample.write_text("class A:\n    def f(self):\n        x = 1\n\n        return x\n\n\nasync def g():\n    pass\n")
    assert list(long_functions(sample)) == [("A.f", 2, 4), ("g", 8, 2)]


def test_no_long_function_in_the_thin_front_ends():
    files = thin_front_end_files()
    assert PACKAGE / "tui" / "app.py" in files and any(f.parent.name == "cli" for f in files)
    too_long = [f"{path.relative_to(PACKAGE.parent)}:{line} {name}: {length} lines"
                for path in files for name, line, length in long_functions(path) if length > MAX_FUNCTION_LINES]
    assert not too_long, f"functions over {MAX_FUNCTION_LINES} lines:\n" + "\n".join(too_long)


# Functions over MAX_FUNCTION_LINES anywhere outside workbench/tui/ (which keeps its own), "path name" -> why each
# is still long: none now. The list only shrinks: an entry that is short now fails the test until it is removed.
LONG_FUNCTIONS_LEFT: dict[str, str] = {}


def test_no_function_over_the_limit_outside_the_tui():
    files = [path for path in sorted(PACKAGE.rglob("*.py")) if path.relative_to(PACKAGE).parts[0] != "tui"]
    assert PACKAGE / "engine.py" in files and PACKAGE / "runners" / "process.py" in files
    found = {f"{path.relative_to(PACKAGE.parent).as_posix()} {name}": (line, length)
             for path in files for name, line, length in long_functions(path) if length > MAX_FUNCTION_LINES}
    new = [f"{where} (line {line}): {length} lines" for where, (line, length) in found.items()
           if where not in LONG_FUNCTIONS_LEFT]
    assert not new, f"functions over {MAX_FUNCTION_LINES} lines (split them):\n" + "\n".join(new)
    fixed = sorted(set(LONG_FUNCTIONS_LEFT) - set(found))
    assert not fixed, f"no longer over {MAX_FUNCTION_LINES} lines, remove from LONG_FUNCTIONS_LEFT: {fixed}"


def test_rows_are_planned_in_one_place():
    """Issue 34: which rows an iteration runs is decided by `rescoring.plan` alone. Outside `workbench/rescoring/`
    no module asks a format for a row's criterion (`Dialect.criterion_for`, which may skip an evaluator or the
    whole row) — a second planner would drift from the engine's — and the rest of workbench reaches the package
    through its `__init__.py`, the API it names, never a module inside it."""
    planners, inside = [], []
    for module, path in MODULES.items():
        if module == "workbench.rescoring" or module.startswith("workbench.rescoring."):
            continue
        if not module.startswith("workbench.dialects"):  # a format's own criterion_for may call its base class's
            planners += [f"{module} (line {node.lineno}) calls criterion_for"
                         for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                         if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                         and node.func.attr == "criterion_for"]
        inside += [f"{module} (line {line}) imports {name}" for name, line in imports_of(module)
                   if name.startswith("workbench.rescoring.")]
    assert "workbench.rescoring.planning" in MODULES
    assert not planners, "rows planned outside rescoring.plan:\n" + "\n".join(planners)
    assert not inside, "import these from workbench.rescoring (its API), not its modules:\n" + "\n".join(inside)
