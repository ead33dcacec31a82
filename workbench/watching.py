"""Which file changes start an iteration, and the debounced stream of them (watchfiles)."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import AsyncIterator
from pathlib import Path

import watchfiles

from .config import Config, ConfigError
from .project_files import ProjectFiles

# The quiet time after the last change is `debounce_ms`; a stream of changes that never goes quiet is
# still cut into batches at most this far apart, so a storm of events yields a bounded number of runs.
MAX_BATCH_MS = 1000
# The watcher thread wakes this often (ms) to look for changes and for a stop request, whatever the
# debounce: a longer quiet time is waited out here, in Python, so stopping a watch is never slower than this.
STEP_MS = 50
_IDLE_WAKE_MS = 200  # with nothing changing, how often the thread hands control back
_GONE_POLL_S = 0.2  # how often a deleted watched folder is looked for again


class ChangeFilter(watchfiles.BaseFilter):
    """Lets through changes to the files that make up the project (`project_files.ProjectFiles`): not
    workbench's state, VCS internals, the default and user ignores, or dependency folders (virtualenvs,
    node_modules — their installs are seen by the next iteration's fingerprint instead)."""

    def __init__(self, root: Path, ignore: list[str], *, use_defaults: bool = True,
                 named: frozenset[str] = frozenset()) -> None:
        super().__init__()
        self.root = root
        self.files = ProjectFiles(root, list(ignore), use_defaults, named)
        self._venvs: set[Path] = set()

    @classmethod
    def of(cls, config: Config) -> ChangeFilter:
        files = ProjectFiles.of(config)
        return cls(config.root, files.user_ignore, use_defaults=files.use_defaults, named=files.named)

    def _in_dependency_folder(self, parts: tuple[str, ...]) -> bool:
        # Only "is a virtualenv" is remembered: `python -m venv` creates bin/ and lib/ before it writes
        # pyvenv.cfg, and a folder remembered as "not a virtualenv" would let every later pip install
        # file through.
        folder = self.root
        for part in parts:  # the last part too: the virtualenv folder itself
            folder = folder / part
            if folder in self._venvs:
                return True
            if self.files.dependency_folder(folder, part):
                self._venvs.add(folder)
                return True
        return False

    def __call__(self, change: watchfiles.Change, path: str) -> bool:
        try:
            rel = Path(path).relative_to(self.root)
        except ValueError:
            return True  # a watched path outside the root ([watch] paths): every change counts
        posix = rel.as_posix()
        if posix == ".":
            return True
        if self.files.ignored(posix, is_dir=True):  # the event doesn't say whether it was a folder
            return False
        if posix in self.files.named:
            return True
        return not self._in_dependency_folder(rel.parts)


def watch_paths(config: Config) -> list[Path]:
    paths = []
    for entry in config.watch.paths:
        path = (config.root / entry).resolve()
        if not path.exists():
            raise ConfigError(f"{config.describe_source()}: [watch] paths lists {entry!r}, which does not exist")
        paths.append(path)
    return paths


def _identity(paths: list[Path]) -> list[tuple[int, int] | None]:
    """Which folder each watched path is right now (None when it is gone)."""
    found: list[tuple[int, int] | None] = []
    for path in paths:
        try:
            info = path.stat()
        except OSError:
            found.append(None)
        else:
            found.append((info.st_dev, info.st_ino))
    return found


async def watch_changes(config: Config, ready: asyncio.Event | None = None) -> AsyncIterator[list[str]]:
    """Batches of changed files (project-relative, sorted), debounced.

    A watched folder that is deleted takes its watch with it (`rm -rf evals && git checkout evals`): when
    one is gone or replaced, the watcher waits for it to exist again, reports it as changed and watches
    the new folder."""
    root = config.root
    quiet_ms = max(1, config.watch.debounce_ms)
    paths = watch_paths(config)
    watch_filter = ChangeFilter.of(config)
    while True:
        identity = _identity(paths)
        stop = asyncio.Event()
        step = min(quiet_ms, STEP_MS)
        changes = watchfiles.awatch(*paths, watch_filter=watch_filter, step=step, debounce=MAX_BATCH_MS,
                                    stop_event=stop, yield_on_timeout=True, recursive=True,
                                    rust_timeout=_IDLE_WAKE_MS if quiet_ms <= STEP_MS else STEP_MS)
        batcher = _Batcher(quiet_ms, step)
        replaced: list[Path] = []
        try:
            async for batch in changes:
                if ready is not None and not ready.is_set():
                    ready.set()  # the watcher is running: changes from now on are seen
                files = batcher.add(_meaningful(batch))
                if files:
                    yield sorted({_relative(root, path) for path in files})
                now = _identity(paths)
                if now != identity:
                    replaced = [path for path, old, new in zip(paths, identity, now, strict=True) if old != new]
                    break
        finally:
            stop.set()
        if not replaced:
            return
        while None in _identity(paths):
            await asyncio.sleep(_GONE_POLL_S)
        yield sorted({_relative(root, path) for path in [*map(str, replaced), *batcher.flush()]})


class _Batcher:
    """Collects changed paths until `quiet_ms` passed without a change (or a storm has lasted
    MAX_BATCH_MS, or the quiet time, whichever is longer), then hands them out as one batch."""

    def __init__(self, quiet_ms: int, step_ms: int) -> None:
        self.quiet = quiet_ms / 1000
        self.step = step_ms / 1000
        self.longest = max(MAX_BATCH_MS, quiet_ms) / 1000
        self.pending: set[str] = set()
        self.first = self.last = 0.0

    def add(self, files: set[str]) -> set[str]:
        """What is due now: `files` plus what was pending, once quiet; else nothing (yet)."""
        now = time.monotonic()
        if files:
            if not self.pending:
                self.first = now - self.step
            self.pending |= files
            self.last = now - self.step  # the watcher reports a change after one quiet step
        if not self.pending:
            return set()
        if now - self.last + 1e-3 >= self.quiet or now - self.first >= self.longest:
            return self.flush()
        return set()

    def flush(self) -> set[str]:
        due, self.pending = self.pending, set()
        return due


def _meaningful(batch: set[tuple[watchfiles.Change, str]]) -> set[str]:
    """Changed paths, minus transient files created and removed within the batch (`sed -i`, editors)."""
    added = {path for change, path in batch if change is watchfiles.Change.added}
    paths = {path for _, path in batch}
    return {path for path in paths if path not in added or os.path.lexists(path)}


def _relative(root: Path, path: str) -> str:
    try:
        return Path(path).relative_to(root).as_posix()
    except ValueError:
        return os.path.abspath(path)
