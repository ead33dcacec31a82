"""Whether the entry point `uipath.json` names can run from this project (`workbench check`): its file exists,
is a regular file and is reached without leaving the project, and (read with `ast`, never imported) it is
Python that binds the function named. `uipath.json` itself is read by `settings.py`
(the settings decide the runner from it); this is what `check` adds about the file it names.
"""

from __future__ import annotations

import ast
import warnings
from dataclasses import dataclass
from pathlib import Path

from ... import jsonio
from ...model import Severity
from ...regular_files import read_regular_file
from ...settings.fields import did_you_mean
from .settings import PROJECT_FILE, Entry


def entry_file_problem(root: Path, entry: Entry) -> str | None:
    """Why the entry's file can't be run from this project (missing, not a file, or reached through a link or
    a path that leads out of the project), or None."""
    path = entry.path(root)
    shown = f"{PROJECT_FILE}: functions[{jsonio.dumps(entry.name)}] names {entry.file!r}, which"
    try:
        real = path.resolve(strict=True)
    except FileNotFoundError:
        return f"{shown} does not exist"
    except (OSError, RuntimeError):
        return f"{shown} is a link that loops or can't be followed"
    if not real.is_relative_to(root.resolve()):
        return f"{shown} leads outside the project; workbench runs only an entry point inside it"
    if not real.is_file():
        return f"{shown} is not a regular file"
    return None


MAX_ENTRY_FILE_BYTES = 4 * 1024 * 1024
# what makes a module's names unknowable by reading it: its attributes may come from elsewhere
_DYNAMIC_CALLS = frozenset({"globals", "vars", "locals", "exec", "eval", "setattr", "__import__"})


@dataclass(frozen=True, slots=True)
class EntryProblem:
    """What reading the entry's file says: `file` is the file the message is about (uipath.json, or the
    entry's file for a syntax error)."""

    file: str
    message: str
    severity: Severity = Severity.ERROR


def entry_name_problem(root: Path, entry: Entry) -> EntryProblem | None:
    """Whether the entry's file binds the function uipath.json names, read with `ast` (never imported): an
    error when no top-level def, class, assignment or import binds it, a warning when the module makes its
    names dynamically (`from x import *`, a module `__getattr__`, `globals()[...]`, ...), an error naming the
    line and column when it is not valid Python. None when it binds it, or the file can't be read here (too
    large, not regular: `entry_file_problem` says those)."""
    try:
        source = read_regular_file(entry.path(root), MAX_ENTRY_FILE_BYTES)
    except OSError:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SyntaxWarnings (an invalid escape) are the run's to print
            tree = ast.parse(source, filename=entry.file)
    except SyntaxError as exc:
        where = f"line {exc.lineno}, column {exc.offset}" if exc.lineno is not None else "somewhere"
        return EntryProblem(entry.file, f"is not valid Python at {where}: {exc.msg} (uipath.json's entry point "
                                        f"{entry.spec} can't be imported)")
    except (ValueError, RecursionError, MemoryError) as exc:  # null bytes (3.11), nesting too deep to parse
        return EntryProblem(entry.file, f"can't be parsed as Python ({type(exc).__name__}); uipath.json's entry "
                                        f"point {entry.spec} won't import", Severity.WARNING)
    bound, dynamic = _module_names(tree)
    if entry.function in bound:
        return None
    shown = f"functions[{jsonio.dumps(entry.name)}] names {entry.spec}"
    if dynamic:
        return EntryProblem(PROJECT_FILE, f"{shown}, but {entry.file} defines no {entry.function!r} where workbench "
                                          f"can see it (it makes names dynamically: {dynamic}); rows are an ERROR if "
                                          "it has none when imported", Severity.WARNING)
    defined = sorted(name for name in bound if not name.startswith("_"))
    close = did_you_mean(entry.function, defined).strip()
    hint = f"; {close}" if close else (f" (it defines {', '.join(defined[:10])}{', ...' if len(defined) > 10 else ''})"
                                       if defined else "")
    return EntryProblem(PROJECT_FILE, f"{shown}, but {entry.file} has no top-level {entry.function!r}{hint}")


def _module_names(tree: ast.Module) -> tuple[set[str], str]:
    """The names the module's top level binds, and what (if anything) makes its names dynamic."""
    bound: set[str] = set()
    dynamic = ""

    def targets(node: ast.AST) -> None:
        for part in ast.walk(node):
            if isinstance(part, ast.Name):
                bound.add(part.id)

    def statements(body: list[ast.stmt]) -> None:
        nonlocal dynamic
        for stmt in body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                bound.add(stmt.name)
                if stmt.name == "__getattr__" and not isinstance(stmt, ast.ClassDef):
                    dynamic = dynamic or "a module-level __getattr__"
            elif isinstance(stmt, ast.Assign):
                for target in stmt.targets:
                    targets(target)
            elif isinstance(stmt, (ast.AnnAssign, ast.AugAssign)):
                if not isinstance(stmt, ast.AnnAssign) or stmt.value is not None:
                    targets(stmt.target)
            elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
                for alias in stmt.names:
                    if alias.name == "*" and isinstance(stmt, ast.ImportFrom):
                        module = "." * (stmt.level or 0) + (stmt.module or "")
                        dynamic = dynamic or f"from {module} import *"
                    else:
                        bound.add(alias.asname or alias.name.split(".")[0])
            elif isinstance(stmt, (ast.For, ast.AsyncFor)):
                targets(stmt.target)
            elif isinstance(stmt, (ast.With, ast.AsyncWith)):
                for item in stmt.items:
                    if item.optional_vars is not None:
                        targets(item.optional_vars)
            elif isinstance(stmt, ast.Try) or type(stmt).__name__ == "TryStar":
                for handler in getattr(stmt, "handlers", []):
                    if handler.name:
                        bound.add(handler.name)
            elif isinstance(stmt, ast.Match):
                for case in stmt.cases:
                    targets(case.pattern)
                    bound.update(n.name for n in ast.walk(case.pattern) if isinstance(n, ast.MatchAs) and n.name)
                    bound.update(n.name for n in ast.walk(case.pattern) if isinstance(n, ast.MatchStar) and n.name)
                    statements(case.body)
            for field_name in ("body", "orelse", "finalbody"):
                inner = getattr(stmt, field_name, None)
                if isinstance(inner, list) and not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                          ast.ClassDef)):
                    statements(inner)

    statements(tree.body)
    return bound, dynamic or _anywhere(tree, bound)


def _anywhere(tree: ast.Module, bound: set[str]) -> str:
    """Adds the names bound anywhere (a walrus, a `global` in a function) to `bound`; what makes the module's
    names dynamic (`globals()`, `setattr(...)`, `sys.modules`), or ""."""
    dynamic = ""
    for node in ast.walk(tree):
        if isinstance(node, ast.NamedExpr) and isinstance(node.target, ast.Name):
            bound.add(node.target.id)
        elif isinstance(node, ast.Global):
            bound.update(node.names)
        elif not dynamic and isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id in _DYNAMIC_CALLS:
            dynamic = f"{node.func.id}()"
        elif not dynamic and isinstance(node, ast.Attribute) and node.attr == "modules" \
                and isinstance(node.value, ast.Name) and node.value.id == "sys":
            dynamic = "sys.modules"
    return dynamic


SDK = "uipath"


def sdk_import_line(root: Path, file: str) -> int | None:
    """The line of the entry file's import of `uipath` that runs whenever the file is imported, read with `ast`
    (never imported): at the module's top level, or in a top-level `try` whose every handler ends by raising
    (the starter's `except ImportError: raise ImportError("... pip install uipath")`). None when there is none
    or the file can't be read or parsed: an import under an `if`, a `with`, in a function or in a `try` that
    goes on without it may never run or may not need the package, so only a sure one counts. An entry file
    leading out of the project is not read (`entry_file_problem` says that)."""
    try:
        if not (root / file).resolve(strict=True).is_relative_to(root.resolve()):
            return None
        source = read_regular_file(root / file, MAX_ENTRY_FILE_BYTES)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(source, filename=file)
    except (OSError, RuntimeError, SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return _sure_import(tree.body)


def _sure_import(body: list[ast.stmt]) -> int | None:
    for stmt in body:
        if isinstance(stmt, ast.Import) and any(_is_sdk(alias.name) for alias in stmt.names):
            return stmt.lineno
        if isinstance(stmt, ast.ImportFrom) and not stmt.level and _is_sdk(stmt.module or ""):
            return stmt.lineno
        if isinstance(stmt, ast.Try) or type(stmt).__name__ == "TryStar":
            handlers: list[ast.ExceptHandler] = getattr(stmt, "handlers", [])
            line = _sure_import(getattr(stmt, "body", []))
            if line is not None and all(handler.body and isinstance(handler.body[-1], ast.Raise)
                                        for handler in handlers):
                return line
    return None


def _is_sdk(module: str) -> bool:
    return module == SDK or module.startswith(SDK + ".")


__all__ = ["MAX_ENTRY_FILE_BYTES", "EntryProblem", "entry_file_problem", "entry_name_problem", "sdk_import_line"]
