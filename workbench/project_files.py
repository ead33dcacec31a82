"""Which files make up the project: the ones a change to starts an iteration, and the ones the
re-scoring fingerprint covers. One rule for both, so whatever can change a verdict is also watched.

Everything under the project root counts, except a short list that can never be an input of a
target: workbench's own state and version-control internals (always), and by default bytecode, tool
caches and editor scratch files (`DEFAULT_IGNORE`; `[watch] ignore_defaults = false` drops them).
`[watch] ignore` adds globs of the user's. Dependency folders — `node_modules` and virtualenvs —
are not walked file by file: they are summarised by what is installed in them (see
`fingerprint.dependency_summary`). A path the runner's command names is never ignored.
"""

from __future__ import annotations

import fnmatch
import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from .config import STATE_DIR, Config

ALWAYS_IGNORED_DIRS = (STATE_DIR, ".git", ".hg", ".svn", ".jj")
"""Never watched or fingerprinted: workbench's state (it writes there every iteration) and VCS internals."""

DEFAULT_IGNORE = (
    "__pycache__/", "*.pyc", "*.pyo",  # bytecode: derived from sources that are fingerprinted
    ".mypy_cache/", ".pytest_cache/", ".ruff_cache/", ".hypothesis/",  # tools' caches, written as they run
    "*.swp", "*.swo", "*.swx", "*~", ".#*", "#*#", "4913", ".DS_Store",  # editors' scratch and backup files
    ".*.wb-tmp*", ".*.workbench-tmp",  # workbench's own temporary files (atomic writes)
)
"""Ignored unless `[watch] ignore_defaults = false`. A glob ending in `/` names folders."""

DEPENDENCY_DIRS = ("node_modules", ".venv", "venv")
"""Folders summarised instead of walked; so is any virtualenv (a folder holding `pyvenv.cfg`) or conda
environment (`conda-meta/`), whatever its name."""


def _compile(globs: list[str]) -> tuple[re.Pattern[str] | None, re.Pattern[str] | None]:
    """(folder pattern, any-path pattern): one regex each, matched against a name or a relative path."""
    dirs = [g.rstrip("/") for g in globs if g.endswith("/")]
    paths = [g for g in globs if not g.endswith("/")]

    def one(items: list[str]) -> re.Pattern[str] | None:
        return re.compile("|".join(fnmatch.translate(g) for g in items)) if items else None

    return one(dirs), one(paths)


@dataclass(slots=True)
class FileEntry:
    """One path of the project as the walk found it (never following a link)."""

    rel: str  # posix, relative to the root
    path: str
    kind: str  # "file", "link", "special" (a FIFO, socket or device: never opened), "deps" (a dependency folder)
    info: os.stat_result | None = None  # its lstat, when the walk took one


@dataclass(slots=True)
class ProjectFiles:
    """The project's file rules for one set of settings."""

    root: Path
    user_ignore: list[str] = field(default_factory=list)
    use_defaults: bool = True
    named: frozenset[str] = frozenset()  # relative paths the runner's command names: never ignored
    _dir_re: re.Pattern[str] | None = field(init=False, default=None)
    _path_re: re.Pattern[str] | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        self._dir_re, self._path_re = _compile(self.rules)

    @classmethod
    def of(cls, config: Config) -> ProjectFiles:
        return cls(config.root, list(config.watch.ignore), config.watch.ignore_defaults, named_paths(config))

    @property
    def rules(self) -> list[str]:
        """The ignore globs in force (without the always-ignored folders), as `check` lists them."""
        return [*(DEFAULT_IGNORE if self.use_defaults else ()), *self.user_ignore]

    @property
    def summarised(self) -> bool:
        """Whether dependency folders are summarised (with the defaults) or walked like any folder."""
        return self.use_defaults

    def _matches(self, rel: str, name: str, is_dir: bool) -> bool:
        if is_dir and self._dir_re is not None and (self._dir_re.match(name) or self._dir_re.match(rel)):
            return True
        return self._path_re is not None and bool(self._path_re.match(name) or self._path_re.match(rel))

    def _named_below(self, rel: str) -> bool:
        prefix = rel + "/"
        return any(n == rel or n.startswith(prefix) for n in self.named)

    def ignored(self, rel: str, *, is_dir: bool = False) -> bool:
        """Whether the project-relative posix path `rel` (or a folder above it) is ignored."""
        if rel in self.named:
            return False
        parts = PurePosixPath(rel).parts
        if not parts:
            return False
        if parts[0] in ALWAYS_IGNORED_DIRS:
            return True
        for depth in range(1, len(parts) + 1):
            sub = "/".join(parts[:depth])
            leaf_is_dir = is_dir or depth < len(parts)
            if self._matches(sub, parts[depth - 1], leaf_is_dir):
                # An ignored folder holding a path the runner names: only that path (and the folders
                # leading to it) are kept.
                return not self._named_below(rel)
        return False

    def dependency_folder(self, path: Path, name: str) -> bool:
        """A folder summarised by what is installed in it: node_modules, or a virtualenv."""
        if not self.summarised:
            return False
        return name in DEPENDENCY_DIRS or os.path.isfile(path / "pyvenv.cfg") or os.path.isdir(path / "conda-meta")

    def walk(self) -> Iterator[FileEntry]:
        """Every path of the project that counts, in a stable order; links and special files are
        reported as such and never followed or opened here."""
        yield from self._walk(os.fspath(self.root), "")
        for rel in sorted(self.named):  # named paths inside ignored or dependency folders
            parent = PurePosixPath(rel).parent.as_posix()
            if parent != "." and (self.ignored(parent, is_dir=True) or self.inside_dependency(rel)):
                path = self.root / rel
                if os.path.lexists(path):
                    yield FileEntry(rel, os.fspath(path), _kind_of(path))

    def inside_dependency(self, rel: str) -> bool:
        """Whether `rel` lies inside a dependency folder (node_modules, a virtualenv)."""
        folder = self.root
        for part in PurePosixPath(rel).parts[:-1]:
            folder = folder / part
            if self.dependency_folder(folder, part):
                return True
        return False

    def _leaf_ignored(self, rel: str, name: str, is_dir: bool) -> bool:
        """`ignored` for a path whose folders the walk already let through (the hot path: no parsing)."""
        if rel in self.named:
            return False
        if "/" not in rel and name in ALWAYS_IGNORED_DIRS:
            return True
        return self._matches(rel, name, is_dir) and not self._named_below(rel)

    def _walk(self, folder: str, prefix: str) -> Iterator[FileEntry]:
        try:
            with os.scandir(folder) as scan:
                entries = sorted(scan, key=lambda e: e.name)
        except OSError:
            return  # unreadable or vanished while we looked: nothing of it can be fingerprinted
        for entry in entries:
            rel = f"{prefix}{entry.name}"
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            mode = info.st_mode
            is_dir = stat.S_ISDIR(mode)
            if self._leaf_ignored(rel, entry.name, is_dir):
                continue
            if is_dir:
                if self.dependency_folder(Path(entry.path), entry.name):
                    yield FileEntry(rel, entry.path, "deps")
                else:
                    yield from self._walk(entry.path, rel + "/")
            elif stat.S_ISLNK(mode):
                yield FileEntry(rel, entry.path, "link", info)
            else:
                yield FileEntry(rel, entry.path, "file" if stat.S_ISREG(mode) else "special", info)


def _kind_of(path: Path) -> str:
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return "special"
    if stat.S_ISLNK(mode):
        return "link"
    if stat.S_ISDIR(mode):
        return "dir"
    return "file" if stat.S_ISREG(mode) else "special"


def named_paths(config: Config) -> frozenset[str]:
    """Project-relative paths the runner's settings name (a script in `dist/`, the uip Workflow.json):
    whatever the ignore rules say, these are watched and fingerprinted."""
    root = config.root
    runner = config.runner
    candidates: list[str] = [*(runner.command or [])[1:], runner.workflow]
    if runner.callable:
        module = runner.callable.partition(":")[0].replace(".", "/")
        candidates += [f"{module}.py", f"{module}/__init__.py"]
    found: set[str] = set()
    for item in candidates:
        if not item or item.startswith("-") or "\x00" in item:
            continue
        path = Path(item) if os.path.isabs(item) else root / item
        try:
            rel = Path(os.path.normpath(path)).relative_to(root)
        except ValueError:
            continue
        if rel.parts and os.path.lexists(path):
            found.add(rel.as_posix())
    return frozenset(found)
