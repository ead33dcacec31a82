"""Judge answers remembered under `.workbench/judge-cache.sqlite`, keyed by the judge's settings, the
model and the exact prompt, so an unchanged question is never asked (or billed) twice — across
iterations and across processes (`workbench run` after `workbench run`). `--no-cache` (or
`[judge] cache = false`) skips it.

SQLite because several workbench processes may share a project; a broken or unwritable cache file
only costs the saving, never a result.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from pathlib import Path

from ..safe_paths import private_database

CACHE_FILE = "judge-cache.sqlite"
_SCHEMA = "CREATE TABLE IF NOT EXISTS answers (key TEXT PRIMARY KEY, score REAL NOT NULL, justification TEXT)"


class JudgeMemory:
    """One project's remembered answers. Every method swallows SQLite trouble: a cache is optional."""

    def __init__(self, state_dir: Path) -> None:
        self.path = state_dir / CACHE_FILE
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        self._broken = False

    def _connect(self) -> sqlite3.Connection | None:
        if self._db is None and not self._broken:
            try:
                private_database(self.path)
                db = sqlite3.connect(self.path, timeout=5, check_same_thread=False, isolation_level=None)
                db.execute("PRAGMA journal_mode=WAL")
                db.execute(_SCHEMA)
                self._db = db
            except (sqlite3.Error, OSError):
                self._broken = True
        return self._db

    def get(self, key: str) -> tuple[float, str] | None:
        with self._lock:
            db = self._connect()
            if db is None:
                return None
            try:
                row = db.execute("SELECT score, justification FROM answers WHERE key = ?", (key,)).fetchone()
            except sqlite3.Error:
                return None
        if row is None or not isinstance(row[0], (int, float)):
            return None
        return float(row[0]), row[1] if isinstance(row[1], str) else ""

    def put(self, key: str, score: float, justification: str) -> None:
        with self._lock:
            db = self._connect()
            if db is None:
                return
            with contextlib.suppress(sqlite3.Error):
                db.execute("INSERT OR REPLACE INTO answers (key, score, justification) VALUES (?, ?, ?)",
                           (key, score, justification.encode("utf-8", "replace").decode("utf-8")))

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None


_memories: dict[Path, JudgeMemory] = {}
_memories_lock = threading.Lock()


def memory_for(state_dir: Path) -> JudgeMemory:
    """The process-wide memory of one project (one connection per project)."""
    with _memories_lock:
        memory = _memories.get(state_dir)
        if memory is None:
            memory = _memories[state_dir] = JudgeMemory(state_dir)
        return memory
