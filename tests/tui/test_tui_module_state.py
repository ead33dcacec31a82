"""Issue 21: no module-global caches in the TUI — a cache belongs to the app, the session or the engine,
so two apps in one process (the tests, the screenshot script) never see each other's state."""

from __future__ import annotations

import ast
from pathlib import Path

import workbench.tui

TUI = Path(workbench.tui.__file__).parent


def decorator_names(node: ast.AST) -> set[str]:
    names = set()
    for decorator in getattr(node, "decorator_list", []):
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        names.add(target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", ""))
    return names


def test_no_tui_module_keeps_a_cache_or_rebinds_a_global() -> None:
    found = []
    for path in sorted(TUI.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Global):
                found.append(f"{path.name}:{node.lineno}: global {', '.join(node.names)}")
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and (
                    decorator_names(node) & {"cache", "lru_cache"}):
                found.append(f"{path.name}:{node.lineno}: @cache on {node.name}")
    assert not found, found


def test_no_tui_function_is_over_60_lines() -> None:
    long = []
    for path in sorted(TUI.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > 60:
                    long.append(f"{path.name}:{node.lineno} {node.name} ({lines} lines)")
    assert not long, long
