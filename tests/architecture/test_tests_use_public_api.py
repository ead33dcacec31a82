"""The tests and benchmarks use workbench and Textual through their public API only: no `obj._name`
(but on `self`/`cls`), no `from workbench... import _name`, no `monkeypatch.setattr(obj, "_name", ...)`.
A test that needs to see or hold something the product keeps private asks for a small public accessor
(a property or a method with a docstring) instead, so a refactoring that keeps behaviour keeps the tests.
Code inside strings (targets written by the tests) is not looked at."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from helpers.paths import REPO, TESTS

# Underscored names that are public API: os._exit, and the namedtuple methods.
PUBLIC_UNDERSCORED = {"_exit", "_asdict", "_replace", "_fields", "_make"}
CHECKED_PACKAGES = ("workbench", "textual")


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__") and name not in PUBLIC_UNDERSCORED


def private_uses(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """(line, code) for each reach into a private name in `tree`."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            if not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
                yield node.lineno, ast.unparse(node)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in CHECKED_PACKAGES:
            yield from ((node.lineno, f"from {node.module} import {a.name}") for a in node.names if _private(a.name))
        elif (isinstance(node, ast.Call) and isinstance(node.func, (ast.Attribute, ast.Name))
              and (node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id)
              in ("setattr", "getattr", "delattr", "hasattr")
              and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant)
              and isinstance(node.args[1].value, str) and _private(node.args[1].value)):
            yield node.lineno, ast.unparse(node)


def test_no_test_or_benchmark_reaches_a_private_attribute() -> None:
    files = [p for p in [*TESTS.rglob("*.py"), *(REPO / "benchmarks").rglob("*.py")]
             if "__snapshots__" not in p.parts]
    found = [f"{path.relative_to(REPO)}:{line}: {code}"
             for path in sorted(files) for line, code in private_uses(ast.parse(path.read_text(), str(path)))]
    assert not found, "use a public API (or add a small public accessor) instead of:\n" + "\n".join(found)


def test_the_check_finds_each_kind_of_reach() -> None:
    source = '''
from workbench.config import _SECTIONS
app._notifications
monkeypatch.setattr(strays, "_kill", None)
self._mine
os._exit(1)
"runner._parent"
'''
    assert [line for line, _ in private_uses(ast.parse(source))] == [2, 3, 4]


def test_the_paths_helper_points_at_the_repository() -> None:
    assert (REPO / "pyproject.toml").is_file() and (TESTS / "conftest.py").is_file()
    assert Path(__file__).is_relative_to(TESTS)
