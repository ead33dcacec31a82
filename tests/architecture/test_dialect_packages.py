"""A format is one folder (issue 21): everything about a dialect lives in `workbench/dialects/<name>/`,
and the rest of workbench reaches it only through the `Dialect` interface. This test reads the source
(not comments or docstrings) and finds, for each registered dialect, its name, its package, its
settings classes and sections, and its scorers (classes and evaluator type ids) mentioned nowhere
outside its own package and the TUI view module it names."""

from __future__ import annotations

import ast
import importlib
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers.paths import PACKAGE as WORKBENCH

from workbench.dialects import REGISTRY, all_dialects
from workbench.dialects.base import EVALS_DIR, Dialect, HasView


@dataclass(frozen=True, slots=True)
class Mention:
    path: str
    line: int
    what: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.what}"


@dataclass(frozen=True, slots=True)
class Marks:
    """What belongs to one dialect: words in code (class names) and string constants (ids)."""

    package: str  # workbench.dialects.<name>
    names: frozenset[str]
    strings: frozenset[str]


def _package_of(dialect: Dialect) -> str:
    module = type(dialect).__module__
    return module if module.count(".") == 2 else module.rsplit(".", 1)[0]


def marks_of(dialect: Dialect) -> Marks:
    package = _package_of(dialect)
    names = {type(dialect).__name__}
    strings = {dialect.name}
    try:
        settings = importlib.import_module(f"{package}.settings")
    except ModuleNotFoundError:
        settings = None
    for section, cls in (getattr(settings, "SECTIONS", None) or {}).items():
        if section != EVALS_DIR:  # conversations' section is [evals], also the folder every format uses
            strings.add(section)
        names.add(cls.__name__)
    core_types = set(importlib.import_module("workbench.scoring").SCORERS)
    for scorer in dialect.scorers():
        names.add(type(scorer).__name__)
        if scorer.type_id not in core_types:  # a core type id scored by its own rules is not the format's word
            strings.add(scorer.type_id)
    return Marks(package, frozenset(names), frozenset(strings))


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(WORKBENCH.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imported(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".")
    base = base[: len(base) - node.level + (1 if is_package else 0)]
    return ".".join([*base, *([node.module] if node.module else [])])


def _inside(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def mentions_outside(marks: Marks, allowed: set[str], words_allowed_in: frozenset[str] = frozenset()) -> list[Mention]:
    """Where `marks` appear outside their package and `allowed` modules; in the packages of
    `words_allowed_in` only imports and names count, not strings."""
    found: list[Mention] = []
    for path in sorted(WORKBENCH.rglob("*.py")):
        module = _module_name(path)
        if _inside(module, marks.package) or module in allowed:
            continue
        strings = frozenset() if any(_inside(module, p) for p in words_allowed_in) else marks.strings
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = _docstrings(tree)
        shown = str(path.relative_to(WORKBENCH.parent))
        for node in ast.walk(tree):
            what = None
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
                if node.value in strings or node.value.startswith(marks.package + ".") \
                        or node.value.startswith(marks.package + ":"):
                    what = f"the string {node.value!r}"
            elif isinstance(node, ast.Name) and node.id in marks.names:
                what = f"the name {node.id}"
            elif isinstance(node, ast.Attribute) and node.attr in marks.names:
                what = f"the attribute .{node.attr}"
            elif isinstance(node, ast.ImportFrom):
                target = _imported(node, module, path.name == "__init__.py")
                if target == marks.package or target.startswith(marks.package + "."):
                    what = f"an import from {target}"
            elif isinstance(node, ast.Import):
                hit = [a.name for a in node.names if a.name == marks.package or a.name.startswith(marks.package + ".")]
                what = f"an import of {hit[0]}" if hit else None
            if what is not None:
                found.append(Mention(shown, getattr(node, "lineno", 0), what))
    return found


def _sharing_its_name(dialect: Dialect) -> frozenset[str]:
    """The packages of formats whose names begin with this one's (`uipath-coded` after `uipath`): both read
    files of the same vendor, whose SDK and CLI are called by that name, so it is a word there, not a
    reference to the other format (names, classes and imports still count)."""
    return frozenset(_package_of(other) for other in DIALECTS
                     if other is not dialect and other.name.startswith(dialect.name + "-"))


def _allowed_for(dialect: Dialect) -> set[str]:
    """Its TUI view module, and the registry that lists every format by module path."""
    allowed = {"workbench.dialects"}
    if isinstance(dialect, HasView):
        allowed.add(dialect.view.partition(":")[0])
    return allowed


DIALECTS = all_dialects()


def test_every_registered_dialect_is_checked() -> None:
    assert len(DIALECTS) == len(REGISTRY) >= 4


@pytest.mark.parametrize("dialect", DIALECTS, ids=[d.name for d in DIALECTS])
def test_a_dialect_is_mentioned_only_in_its_own_package(dialect: Dialect) -> None:
    marks = marks_of(dialect)
    found = mentions_outside(marks, _allowed_for(dialect), _sharing_its_name(dialect))
    assert not found, (f"{dialect.name} ({marks.package}) is reached outside its package, not through the "
                       "Dialect interface:\n" + "\n".join(map(str, found)))


@pytest.mark.parametrize("dialect", DIALECTS, ids=[d.name for d in DIALECTS])
def test_a_dialects_scorers_are_defined_in_its_package(dialect: Dialect) -> None:
    package = _package_of(dialect)
    # UiPath's evaluator types are the core ones (scoring/); every other format brings its own
    if dialect.name != "uipath":
        assert dialect.scorers(), f"{dialect.name} registers no evaluator type of its own"
    outside = [type(s).__qualname__ for s in dialect.scorers() if not type(s).__module__.startswith(package)]
    assert not outside, f"{dialect.name}'s scorers defined outside {package}: {outside}"


@pytest.mark.slow
def test_the_core_scorers_know_no_format() -> None:
    """A format's evaluator types live in its package and are registered by its `scorers()`: the core
    scoring package imports no dialect."""
    found = []
    for dialect in DIALECTS:
        marks = Marks(_package_of(dialect), frozenset(), frozenset())
        found += [m for m in mentions_outside(marks, set()) if m.path.startswith("workbench/scoring/")]
    assert not found, "the core scorers reach a format:\n" + "\n".join(map(str, found))
    core = importlib.import_module("workbench.scoring")
    for dialect in DIALECTS:
        # a format may score a core type id by its own rules, but only for its own evaluators
        for scorer in dialect.scorers():
            assert type(core.scorer_for(scorer.type_id, dialect.name)) is type(scorer)
            if scorer.type_id in core.SCORERS:
                assert core.scorer_for(scorer.type_id) is core.SCORERS[scorer.type_id], (
                    f"{dialect.name}'s {scorer.type_id} replaced the core's for every format")


def test_the_checker_finds_a_planted_mention(tmp_path: Path) -> None:
    """The search is not vacuous: a generic module naming a dialect is found."""
    marks = Marks("workbench.dialects.toy", frozenset({"ToyConfig"}), frozenset({"toy"}))
    tree = ast.parse("from .dialects.toy import ToyConfig\nif kind == 'toy':\n    ToyConfig()\n")
    hits = [n for n in ast.walk(tree) if (isinstance(n, ast.Constant) and n.value in marks.strings)
            or (isinstance(n, ast.Name) and n.id in marks.names)]
    assert len(hits) == 2
