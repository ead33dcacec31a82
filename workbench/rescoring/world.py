"""Everything outside a row that can change what its target outputs, as one comparable value (a
`World`): the runner settings, the target's complete environment, the programs that run (each
executable's real path and identity, and for Python interpreters their version and installed
packages), every file of the project but the eval files the dialects load (whose rows are fingerprinted
one by one), the dependency folders by what is installed in them, and the files `[cache] inputs` names.

A recorded run is re-scored only in a world equal to the one it ran in (see `records.py`), the way a
build tool reuses an artifact only when every declared input hashes the same. What a target reads
outside all this is not seen — except for Python targets, whose reads are recorded per row
(`RunOutcome.reads`) — and docs/reuse.md says so.
"""

from __future__ import annotations

import contextlib
import glob
import hashlib
import hmac
import inspect
import os
import re
import secrets
import shutil
import subprocess
import sys
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import orjson

from .. import jsonio
from ..config import Config, resolve_runner_kind
from ..file_digests import FileDigests, stat_key
from ..project_files import ProjectFiles
from ..regular_files import open_regular
from ..runners.base import PYTHON_TOKEN, expand_argv, target_env
from ..runners.process import run_probe
from ..runners.strays import MARK_ENV
from ..safe_paths import real_folder

# The shell's and the terminal's own bookkeeping, which changes from one terminal, SSH session or directory
# to the next and which no target reads for its answer, and workbench's own progress switch; every other
# variable is part of the fingerprint ([cache] ignore_env adds). The second line: which window, tab or pane
# of a terminal the command was typed in (the TUI in one tab, `run` or an agent's shell in another), and the
# terminal gpg would prompt on — a target has no terminal (its stdin and stdout are pipes). The terminal's
# name and colour depth (TERM, TERM_PROGRAM, COLORTERM, ...) need no entry here: `runners.base.target_env`
# gives every target TERM=dumb and none of the others, so they no longer differ between terminals, and TERM
# stays fingerprinted for a `[runner] env` that sets it. Not left out: COLUMNS and LINES (libraries size output
# by them even without a terminal), nor an agent's own markers (CLAUDECODE, ...): programs change how they
# answer when they see one; an agent that must not re-run the person's rows asks their session instead
# (`workbench mcp`, session_link).
UNFINGERPRINTED_ENV = (
    "_", "OLDPWD", "SHLVL", MARK_ENV, "WORKBENCH_NO_PROGRESS",
    "SSH_AUTH_SOCK", "SSH_AGENT_PID", "SSH_CLIENT", "SSH_CONNECTION", "SSH_TTY", "GPG_AGENT_INFO",
    "TMUX", "TMUX_PANE", "STY", "WINDOW", "WINDOWID", "TERM_SESSION_ID", "ITERM_SESSION_ID",
    "VSCODE_IPC_HOOK_CLI", "VSCODE_GIT_IPC_HANDLE", "XDG_SESSION_ID", "PYTEST_CURRENT_TEST",
    "GPG_TTY", "KITTY_WINDOW_ID", "KITTY_PID", "WEZTERM_PANE", "ALACRITTY_WINDOW_ID", "GNOME_TERMINAL_SCREEN",
    "KONSOLE_DBUS_WINDOW", "KONSOLE_DBUS_SESSION", "SHELL_SESSION_ID", "WT_SESSION", "ZELLIJ_PANE_ID",
)
KEY_FILE = "fingerprint.key"
_PYTHON_NAME = re.compile(r"(python|pypy)(\d+(\.\d+)*)?(\.exe)?$")
PROBE_TIMEOUT_S = 20.0
_SHOWN = 3


def digest(value: Any) -> str:
    """A stable fingerprint of a JSON value (key order ignored; 1 and 1.0 differ, as they may to a target)."""
    return hashlib.sha256(jsonio.dumps(value, sort_keys=True).encode("utf-8", "surrogatepass")).hexdigest()


class JsonTexts:
    """The sorted-key JSON text of values that recur, by identity: a value's text is kept from its second
    use on (a value used once — a row's own reads — keeps no text: 200 command rows' ~40 KB maps would be
    8 MiB). Each value is held beside its entry, so an id freed and taken by another value is never
    mistaken for it."""

    __slots__ = ("_texts",)

    def __init__(self) -> None:
        self._texts: dict[int, tuple[Any, bytes | None]] = {}

    def of(self, value: Any) -> bytes:
        found = self._texts.get(id(value))
        if found is not None and found[0] is value and found[1] is not None:
            return found[1]
        text = orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
        self._texts[id(value)] = (value, text if found is not None and found[0] is value else None)
        return text


def digest_with_shared(items: list[Any], shared: int, texts: JsonTexts) -> str:
    """`digest(items)`, the text of `items[shared]` taken from `texts` (written once however many rows hold
    that value: the reads map a worker's rows share is ~20 KB, and writing it once a row was half of
    `IterationReuse.ran_in`). The same bytes as the list written at once: orjson writes a list as its
    items' texts joined by commas, each item's keys sorted on their own; a value orjson refuses (an
    integer beyond 64 bits, a lone surrogate) is left to `digest`, whose fallback writes it."""
    try:
        parts = [texts.of(item) if index == shared else orjson.dumps(item, option=orjson.OPT_SORT_KEYS)
                 for index, item in enumerate(items)]
    except (TypeError, orjson.JSONEncodeError):
        return digest(items)
    return hashlib.sha256(b"[" + b",".join(parts) + b"]").hexdigest()


def runner_settings(config: Config) -> dict[str, Any]:
    """The settings that can change what a row outputs: the runner's (not how many run at once, or whether
    Python scripts are forked from a warm parent, which gives the same answers), where rows run (this
    machine or a cluster), and what a subprocess is trusted with."""
    runner = config.runner
    settings: dict[str, Any] = runner.model_dump() if hasattr(runner, "model_dump") else asdict(runner)
    # env: part of the environment, compared variable by variable; repeat: how many samples, not what one
    # outputs (a record holds its sample count, `RowRecord.samples`)
    for key in ("concurrency", "preload", "env", "repeat"):
        settings.pop(key, None)
    settings["cluster"] = [config.cluster.engine, config.cluster.address]
    settings["trust_subprocesses"] = config.cache.trust_subprocesses
    return settings


def load_key(state_dir: Path | None, *, create: bool) -> bytes:
    """The project's secret for keyed digests of environment values (an unkeyed digest of a short secret,
    a PIN, could be reversed by trying every value). Kept in `.workbench/fingerprint.key` (mode 0600);
    without it — a session that writes nothing, a folder that can't be written — one for this process."""
    if state_dir is not None:
        path = state_dir / KEY_FILE
        try:
            with open_regular(path) as handle:
                key = handle.read(64)
            if len(key) == 32:
                return key
        except OSError:
            pass
        if create:
            key = secrets.token_bytes(32)
            try:
                real_folder(state_dir)
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
                with os.fdopen(fd, "wb") as handle:
                    handle.write(key)
                return key
            except FileExistsError:  # another workbench made it meanwhile: take theirs
                return load_key(state_dir, create=False)
            except OSError:
                pass
    return secrets.token_bytes(32)


@dataclass(slots=True)
class World:
    """One snapshot of what rows run in. `stats` (not persisted) lets an edit made while rows ran be
    told apart from a file that merely looks the same afterwards."""

    settings: str = ""
    place: str = ""  # the project's real path: a copy or a moved project sees other `../` files and cwd
    env: dict[str, str] = field(default_factory=dict)  # variable → digest of its value (never the value)
    programs: dict[str, str] = field(default_factory=dict)  # what runs → its identity
    files: dict[str, str] = field(default_factory=dict)  # project-relative path → digest
    inputs: dict[str, str] = field(default_factory=dict)  # [cache] inputs matches → digest
    rules: str = ""  # the ignore rules in force: other rules cover other files
    stats: dict[str, tuple[int, ...]] = field(default_factory=dict, compare=False, repr=False)
    _digest: str | None = field(default=None, compare=False, repr=False)

    @property
    def digest(self) -> str:
        if self._digest is None:
            self._digest = digest(self.to_json())
        return self._digest

    def to_json(self) -> dict[str, Any]:
        return {"settings": self.settings, "place": self.place, "env": self.env, "programs": self.programs,
                "files": self.files, "inputs": self.inputs, "rules": self.rules}

    @classmethod
    def from_json(cls, doc: Any) -> World | None:
        if not isinstance(doc, dict):
            return None
        maps = [doc.get(k) for k in ("env", "programs", "files", "inputs")]
        if not all(isinstance(m, dict) and all(isinstance(v, str) for v in m.values()) for m in maps):
            return None
        if not all(isinstance(doc.get(k), str) for k in ("settings", "place", "rules")):
            return None
        env, programs, files, inputs = maps
        return cls(doc["settings"], doc["place"], env, programs, files, inputs, doc["rules"])  # type: ignore[arg-type]

    def differences(self, before: World) -> list[str]:
        """What changed since `before`, in words, most telling first (empty when nothing did)."""
        found: list[str] = []
        if self.settings != before.settings:
            found.append("the [runner] settings changed (or where rows run)")
        if self.place != before.place:
            found.append(f"the project is in another folder now ({before.place} → {self.place})")
        found += _changed("environment variable", before.env, self.env)
        found += _changed("program", before.programs, self.programs)
        found += _changed("project file", before.files, self.files)
        found += _changed("[cache] inputs file", before.inputs, self.inputs)
        if self.rules != before.rules:
            found.append("the ignore rules changed ([watch] ignore / ignore_defaults)")
        return found

    def edited_during(self, after: World) -> list[str]:
        """What changed between this snapshot and `after`: project files (content or stat), `[cache] inputs`
        and the scripts the command names outside the project — an edit while rows ran, which makes their
        runs unfit for re-scoring (put back afterwards, the record would otherwise stand for the edit)."""
        names = sorted({*self.files, *after.files})
        changed = [name for name in names
                   if self.files.get(name) != after.files.get(name) or self.stats.get(name) != after.stats.get(name)]
        for mine, theirs in ((self.inputs, after.inputs), (self.programs, after.programs)):
            changed += sorted(name for name in {*mine, *theirs} & {*theirs}
                              if mine.get(name) != theirs.get(name))
        return changed


def _changed(what: str, before: dict[str, str], now: dict[str, str]) -> list[str]:
    names = sorted(name for name in {*before, *now} if before.get(name) != now.get(name))
    if not names:
        return []
    shown = []
    for name in names[:_SHOWN]:
        state = "added" if name not in before else "removed" if name not in now else "changed"
        shown.append(f"{name} ({state})")
    more = f" and {len(names) - _SHOWN} more" if len(names) > _SHOWN else ""
    return [f"{what}{'s' if len(names) > 1 else ''} {', '.join(shown)}{more}"]


# -- the parts ---------------------------------------------------------------------------------------

def environment(config: Config, key: bytes) -> dict[str, str]:
    """The target's environment, variable by variable, as keyed digests (values are never stored, nor
    can they be guessed back from what is stored)."""
    env = target_env(config)
    skipped = {*UNFINGERPRINTED_ENV, *config.cache.ignore_env}
    return {name: hmac.new(key, f"{name}\x00{value}".encode("utf-8", "surrogateescape"), "sha256").hexdigest()
            for name, value in env.items() if name not in skipped}


def executables(config: Config) -> list[str]:
    """The programs the project's rows start: the runner's executable (or interpreter) and workbench's
    own interpreter, which runs `{python}`, the python kind's worker and live replay handlers."""
    runner = config.runner
    found = [sys.executable]
    try:
        kind = resolve_runner_kind(config)
    except Exception:  # no usable runner (a replays-only project): only workbench's interpreter runs
        kind = None
    if kind in ("command", "worker", "python") and runner.command:
        found.append(runner.command[0])
    if kind == "uip" and runner.uip:
        found.append(runner.uip[0])
    return list(dict.fromkeys(found))


def program_identity(given: str, config: Config, env: dict[str, str]) -> str:
    """Where `given` resolves, and what is there: the path as invoked (a venv's python is a link to the
    same binary as another venv's), the real path with its size and times, and for a Python
    interpreter its version, prefixes and what is installed in its site-packages."""
    name = sys.executable if given == PYTHON_TOKEN else given
    if os.sep in name or (os.altsep and os.altsep in name):
        path = name if os.path.isabs(name) else os.path.join(config.root, name)
    else:
        path = shutil.which(name, path=env.get("PATH")) or ""
    if not path:
        return f"{name} → not found on PATH"
    path = os.path.abspath(path)
    real = os.path.realpath(path)
    try:
        info = os.stat(real)
        identity: list[Any] = [path, real, *stat_key(info)]  # ctime too: `touch -r` can't hide an edit
    except OSError as exc:
        return f"{name} → {path}: {exc.strerror}"
    if _PYTHON_NAME.search(os.path.basename(path)) or path == sys.executable:
        identity.append(_interpreter(path, config, env))
    return f"{path} ({digest(identity)[:16]})"


def _interpreter(path: str, config: Config, env: dict[str, str]) -> Any:
    """The interpreter's version and installed packages (asked of it: a pyenv shim decides at run time)."""
    if path == sys.executable:
        facts: Any = interpreter_facts()
    else:
        try:
            source = inspect.getsource(interpreter_facts)
            code = f"from __future__ import annotations\nimport json\n{source}\nprint(json.dumps(interpreter_facts()))"
            done = run_probe([path, "-c", code], cwd=config.root, env=env, timeout=PROBE_TIMEOUT_S)
            last = done.stdout.strip().rsplit(b"\n", 1)[-1]  # a sitecustomize may print before it
            facts = jsonio.loads(last) if done.returncode == 0 else None
        except (OSError, subprocess.SubprocessError, jsonio.JsonError):
            facts = None
    if isinstance(facts, list) and len(facts) == 4 and isinstance(facts[3], list):
        return [*facts[:3], [site_packages_summary(Path(p)) for p in facts[3] if isinstance(p, str)]]
    # It could not say what it is: unknown, and unknown is never equal to anything (never re-scored).
    return f"unidentified ({secrets.token_hex(8)})"


def interpreter_facts() -> list[Any]:
    """[version, prefix, base prefix, site-packages folders] of the running interpreter. Its source is
    also sent to other interpreters to run (so it uses nothing but the standard library)."""
    import site
    import sys
    import sysconfig

    paths = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    if site.ENABLE_USER_SITE:
        paths.add(site.getusersitepackages())
    return [sys.version, sys.prefix, sys.base_prefix, sorted(paths)]


def site_packages_summary(folder: Path) -> str:
    """What is installed in a site-packages folder: its entries with their mtimes (an install, upgrade
    or removal adds, removes or rewrites `*.dist-info` folders and the packages beside them)."""
    try:
        with os.scandir(folder) as scan:
            entries = sorted((e.name, e.stat(follow_symlinks=False).st_mtime_ns) for e in scan)
    except OSError:
        return "absent"
    return digest(entries)


def dependency_summary(path: Path, files: FileDigests) -> str:
    """A dependency folder by what is installed in it, not file by file: node_modules by its lock file
    and its packages' folders, a virtualenv by pyvenv.cfg and its site-packages."""
    if (path / "pyvenv.cfg").is_file():
        sites = sorted(glob.glob(os.path.join(glob.escape(os.fspath(path)), "lib*", "python*", "site-packages")))
        sites += glob.glob(os.path.join(glob.escape(os.fspath(path)), "Lib", "site-packages"))
        return "venv:" + digest([files.file(path / "pyvenv.cfg"), [site_packages_summary(Path(s)) for s in sites]])
    entries: list[Any] = [files.file(path / ".package-lock.json")]
    try:
        with os.scandir(path) as scan:
            for entry in sorted(scan, key=lambda e: e.name):
                info = entry.stat(follow_symlinks=False)
                entries.append([entry.name, info.st_mtime_ns])
                if entry.name.startswith("@") and entry.is_dir(follow_symlinks=False):
                    entries.append(site_packages_summary(Path(entry.path)))  # scoped packages, one level down
    except OSError:
        return "unreadable"
    return "deps:" + digest(entries)


def cache_inputs(config: Config, files: FileDigests) -> dict[str, str]:
    """The files `[cache] inputs` names (globs relative to the project root, `~` for the home folder; `**`
    reaches into folders, dot-files included; a folder counts with everything in it), and the `[watch]
    paths` outside the project, which start iterations and so must be inputs too."""
    found: dict[str, str] = {}
    for pattern in config.cache.inputs:
        expanded = os.path.expanduser(pattern)
        full = expanded if os.path.isabs(expanded) else os.path.join(config.root, expanded)
        matches = sorted(glob.glob(full, recursive=True, include_hidden=True))
        if not matches:
            found[pattern] = "no match"
        for match in matches:
            _add_tree(os.path.normpath(match), files, found)
    root = os.fspath(config.root)
    for entry in config.watch.paths:
        path = os.path.normpath(os.path.join(root, os.path.expanduser(entry)))
        if not (path == root or path.startswith(root + os.sep)):
            _add_tree(path, files, found)
    return found


def _add_tree(path: str, files: FileDigests, found: dict[str, str]) -> None:
    """A file's digest, or every file's in a folder (links inside are described, not followed)."""
    if not os.path.isdir(path):
        found[path] = files.file(path)
        return
    found[path + os.sep] = files.listing(path)
    for folder, dirs, names in os.walk(path):
        dirs.sort()
        for name in sorted(names):
            full = os.path.join(folder, name)
            found[full] = files.entry(Path(full))


def argv_files(config: Config) -> list[str]:
    """Files outside the project that the runner's command names (`node /opt/bot/main.js`)."""
    found = []
    root = os.fspath(config.root)
    for item in expand_argv(config.runner.command or [])[1:]:  # `{workbench}/...`: a file of workbench's own
        if not item or item.startswith("-") or "\x00" in item or item == PYTHON_TOKEN:
            continue
        path = os.path.normpath(item if os.path.isabs(item) else os.path.join(root, item))
        if not (path == root or path.startswith(root + os.sep)) and os.path.isfile(path):
            found.append(path)
    return found


def compute_world(config: Config, eval_files: Iterable[str], files: FileDigests, key: bytes, *,
                  same_programs_as: World | None = None) -> World:
    """The world rows of this project run in now. `eval_files` are the project-relative paths the
    dialects loaded as rows and evaluators: they are fingerprinted row by row instead.
    `same_programs_as` takes the settings, environment and programs from a snapshot of this same
    iteration (they can't change while it runs) and looks at the files again."""
    skip = set(eval_files)
    scope = ProjectFiles.of(config)
    skip -= scope.named  # a file the runner names is the program, even if a dialect also read it
    world = World(rules=digest([scope.rules, scope.summarised]), place=os.path.realpath(config.root))
    if same_programs_as is not None:
        world.settings, world.env = same_programs_as.settings, same_programs_as.env
        world.programs = {k: v for k, v in same_programs_as.programs.items() if k in executables(config)}
    else:
        env = target_env(config)
        world.settings, world.env = digest(runner_settings(config)), environment(config, key)
        for program in executables(config):
            world.programs[program] = program_identity(program, config, env)
    for path in argv_files(config):
        world.programs[path] = files.file(path)
    for item in scope.walk():
        if item.rel in skip:
            continue
        if item.kind == "deps":
            world.files[item.rel + "/"] = dependency_summary(Path(item.path), files)
            continue
        info = item.info
        if item.kind == "file" and info is not None:
            world.files[item.rel] = files.file(item.path, info)
        else:
            world.files[item.rel] = files.entry(Path(item.path))
        if info is None:
            with contextlib.suppress(OSError):
                info = os.lstat(item.path)
        if info is not None:
            world.stats[item.rel] = stat_key(info)
    world.inputs = cache_inputs(config, files)
    return world
