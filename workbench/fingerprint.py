"""What a one-shot `workbench run --reuse` compares to decide "nothing but evals/ changed": a fingerprint
of every project file outside the eval folders (evals/, a scenarios folder) — the target's code,
`workbench.toml`, data files — plus the runner
settings, and the per-row fingerprints of what ran, recorded with the iteration that ran them.

Hashing a big project on every run would cost more than it saves, so a file whose size and mtime are
unchanged keeps the hash remembered for it in `.workbench/fingerprints.json`.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import jsonio
from .config import Config
from .dialects import eval_folders
from .model import RowKey
from .reuse import runner_fingerprint
from .watching import ChangeFilter
from .writeback.atomic import write_atomically

CACHE_FILE = "fingerprints.json"
RECORD_FILE = "reuse.json"
_MAX_RECORD_BYTES = 64 * 2**20
_SEP = "\x1f"


def _file_hash(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def _project_files(config: Config) -> list[tuple[str, Path]]:
    """Every file outside evals/ that the watcher would react to, as (posix relative path, path)."""
    root = config.root
    accept = ChangeFilter(root, config.watch.ignore)
    eval_dirs = {root / folder for folder in eval_folders(root, config)}
    found: list[tuple[str, Path]] = []
    for folder, dirs, files in os.walk(root):
        here = Path(folder)
        rel_dir = here.relative_to(root)
        dirs[:] = sorted(d for d in dirs if here / d not in eval_dirs
                         and accept(None, str(here / d / "x")))  # type: ignore[arg-type]
        for name in sorted(files):
            path = here / name
            if accept(None, str(path)) and path.is_file():  # type: ignore[arg-type]
                found.append(((rel_dir / name).as_posix(), path))
    return found


def _read_json_file(path: Path) -> Any:
    try:
        if not path.is_file() or path.stat().st_size > _MAX_RECORD_BYTES:
            return None
        return jsonio.loads(path.read_bytes())
    except (OSError, jsonio.JsonError):
        return None


def project_fingerprint(config: Config) -> str:
    """One hash of every project file outside evals/ and of the runner settings."""
    cache_path = config.state_dir / CACHE_FILE
    cached = _read_json_file(cache_path)
    cache: dict[str, list[Any]] = cached if isinstance(cached, dict) else {}
    fresh: dict[str, list[Any]] = {}
    combined = hashlib.sha256(runner_fingerprint(config).encode())
    for rel, path in _project_files(config):
        try:
            info = path.stat()
            known = cache.get(rel)
            if isinstance(known, list) and len(known) == 3 and known[:2] == [info.st_size, info.st_mtime_ns]:
                content = str(known[2])
            else:
                content = _file_hash(path)
        except OSError:
            continue  # vanished or unreadable while we looked: not part of the project now
        fresh[rel] = [info.st_size, info.st_mtime_ns, content]
        combined.update(f"{rel}{_SEP}{content}\n".encode("utf-8", "surrogateescape"))
    if fresh != cache:
        _save(cache_path, fresh)
    return combined.hexdigest()


def _save(path: Path, value: Any) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, jsonio.dumps(value).encode("utf-8", "surrogatepass"))
    except OSError:
        pass  # a cache: without it the next run hashes again


@dataclass(slots=True)
class ReuseRecord:
    """What `run --reuse` needs from the last run: which iteration, its project fingerprint, and the
    fingerprint of what each row ran with."""

    iteration: int
    project: str
    rows: dict[RowKey, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"iteration": self.iteration, "project": self.project,
                "rows": {_SEP.join(key): value for key, value in self.rows.items()}}


def load_record(config: Config) -> ReuseRecord | None:
    doc = _read_json_file(config.state_dir / RECORD_FILE)
    if not isinstance(doc, dict) or not isinstance(doc.get("project"), str):
        return None
    if not isinstance(doc.get("iteration"), int) or isinstance(doc.get("iteration"), bool):
        return None
    rows: dict[RowKey, str] = {}
    raw_rows = doc.get("rows")
    for key, value in (raw_rows.items() if isinstance(raw_rows, dict) else ()):
        parts = str(key).split(_SEP)
        if len(parts) == 3 and isinstance(value, str):
            rows[RowKey(*parts)] = value
    return ReuseRecord(doc["iteration"], doc["project"], rows)


def save_record(config: Config, record: ReuseRecord) -> None:
    _save(config.state_dir / RECORD_FILE, record.to_json())
