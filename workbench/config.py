"""Project settings from `workbench.toml` or `[tool.workbench]` in `pyproject.toml`, and the command
line's overrides of them.

Every key is checked by its declaration (`settings/`): a typo (`concurency`) or a wrong type is a
ConfigError naming the file, the section and the key, because a silently ignored setting is worse than
a refusal. A format's own section is declared in its package and found without being named here.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar, get_args

from pydantic import ValidationError

from .errors import WorkbenchError
from .regular_files import read_regular_text
from .settings.base import Section
from .settings.discovery import declared
from .settings.fields import FieldFacts, did_you_mean, section_problem
from .settings.problems import SETTINGS_FILES
from .settings.sections import (
    CORE_SECTIONS,
    AgentConfig,
    BaselineConfig,
    CacheConfig,
    ClusterConfig,
    GateConfig,
    HistoryConfig,
    JudgeConfig,
    RunnerConfig,
    RunnerKind,
    ScoringConfig,
    WatchConfig,
)

CONFIG_FILE = "workbench.toml"
STATE_DIR = ".workbench"
RUNNER_KINDS: tuple[str, ...] = get_args(RunnerKind)
MAX_CONFIG_BYTES = 1024 * 1024

EXAMPLE_CONFIG = """\
# workbench.toml at the project root
[runner]
kind = "command"
command = ["{python}", "agent.py"]  # gets the row's inputs as JSON on stdin, prints the output JSON
timeout = 60                        # seconds per row
# "{python}": the interpreter workbench runs on. Rows in flight: [runner] concurrency (unset: one per core)"""

S = TypeVar("S", bound=Section)


class ConfigError(WorkbenchError):
    """A setting that can't be used; the message names the file and key. `file` is the file it is about when
    that is not the settings file: a format's own (uipath.json, when its `RUNNER_DEFAULTS` can't read it), so
    `check` reports it once, under that file, and not as a problem of workbench.toml."""

    def __init__(self, message: str, *, file: Path | None = None, exit_code: int | None = None) -> None:
        super().__init__(message, exit_code=exit_code)
        self.file = file


def _check_callable(config: Config) -> None:
    """`package.module:function` (or `module:Class.method`), else a ConfigError saying so."""
    spec = config.runner.callable or ""
    module, _, attr = spec.partition(":")
    if not spec or not attr or not all(part.isidentifier() for part in [*module.split("."), *attr.split(".")]):
        raise ConfigError(f"{config.describe_source()}: [runner] kind = \"python\" needs callable = "
                          f"\"package.module:function\", not {spec!r}")


@dataclass(slots=True)
class Overrides:
    """Settings given on the command line; they win over the file every time it is re-read. The named
    ones are the core's flags; `settings` holds every other flag's value by "section.key"."""

    command: list[str] | None = None  # --command
    timeout: float | None = None  # --timeout
    concurrency: int | None = None  # --concurrency
    cluster: str | None = None  # --cluster ADDRESS
    no_cache: bool = False  # --no-cache: ask the judge again instead of using remembered answers
    tags: tuple[str, ...] = ()  # --tag: only rows with one of these tags, every iteration
    kinds: tuple[str, ...] = ()  # --type: only rows of these types (capability, regression)
    settings: dict[str, Any] = field(default_factory=dict)  # "section.key": value

    def values(self) -> dict[str, Any]:
        """Every overridden setting by "section.key"."""
        named = {"runner.command": self.command, "runner.timeout": self.timeout,
                 "runner.concurrency": self.concurrency, "cluster.address": self.cluster,
                 "judge.cache": False if self.no_cache else None}
        return {**{path: value for path, value in named.items() if value is not None}, **self.settings}

    def apply(self, config: Config) -> None:
        """Lay the overrides over `config`, each checked by its field as the file is (and what a flag
        implies set with it: --command selects the command runner, --cluster the Ray engine)."""
        found = declared()
        for path, value in self.values().items():
            options = found.options_setting(path)
            facts = config.setting(path)
            problem = facts.given_problem(value)
            if problem is not None:
                named = options[0].flag if options else f"{facts.where} on the command line"
                raise ConfigError(f"{named} {problem}")
            config.assign(path, facts.check(value)[0])
            for implied, implied_value in options[0].implies if options else ():
                config.assign(implied, implied_value)


@dataclass(slots=True)
class Config:
    """A project's settings: the core sections as fields, each format's own in `dialect_sections` (by
    section name; `section(cls)` reaches one, its defaults when the file has none)."""

    root: Path
    source: Path | None = None
    overrides: Overrides = field(default_factory=Overrides)
    runner: RunnerConfig = field(default_factory=RunnerConfig.defaults)
    watch: WatchConfig = field(default_factory=WatchConfig.defaults)
    history: HistoryConfig = field(default_factory=HistoryConfig.defaults)
    baseline: BaselineConfig = field(default_factory=BaselineConfig.defaults)
    gate: GateConfig = field(default_factory=GateConfig.defaults)
    scoring: ScoringConfig = field(default_factory=ScoringConfig.defaults)
    judge: JudgeConfig = field(default_factory=JudgeConfig.defaults)
    cache: CacheConfig = field(default_factory=CacheConfig.defaults)
    cluster: ClusterConfig = field(default_factory=ClusterConfig.defaults)
    agent: AgentConfig = field(default_factory=AgentConfig.defaults)
    dialect_sections: dict[str, Section] = field(default_factory=dict)

    @property
    def state_dir(self) -> Path:
        return self.root / STATE_DIR

    def describe_source(self) -> str:
        return str(self.source) if self.source else "defaults"

    def section(self, cls: type[S]) -> S:
        """The section declared by `cls` (a format's own, or a core one)."""
        value = self.section_named(declared().name_of(cls))
        if not isinstance(value, cls):
            raise TypeError(f"[{declared().name_of(cls)}] holds a {type(value).__qualname__}, not a {cls.__qualname__}")
        return value

    def section_named(self, name: str) -> Section:
        if name in CORE_SECTIONS:
            core: Section = getattr(self, name)
            return core
        if name not in self.dialect_sections:
            self.dialect_sections[name] = declared().section_class(name).defaults()
        return self.dialect_sections[name]

    def set_section(self, name: str, value: Section) -> None:
        if name in CORE_SECTIONS:
            setattr(self, name, value)
        else:
            self.dialect_sections[name] = value

    def setting(self, path: str) -> FieldFacts:
        """The declaration of "section.key"."""
        return declared().setting(path)

    def assign(self, path: str, value: Any) -> None:
        section, _, key = path.partition(".")
        setattr(self.section_named(section), key, value)


def sections() -> dict[str, type[Section]]:
    """{section name: its class} for every section of workbench.toml, the core's and every format's."""
    return dict(declared().sections)


def find_config_file(root: Path) -> tuple[Path | None, dict[str, Any]]:
    """The config file that applies to `root` and its raw table (empty when there is none)."""
    toml_path = root / CONFIG_FILE
    if os.path.lexists(toml_path):  # a FIFO or a dangling link is reported, not taken for "no config"
        return toml_path, _read_toml(toml_path)
    pyproject = root / "pyproject.toml"
    if os.path.lexists(pyproject):
        tool = _read_toml(pyproject).get("tool", {})
        if not isinstance(tool, dict):
            raise ConfigError(f"{pyproject}: tool must be a table ([tool.workbench] ...), not {tool!r}")
        table = tool.get("workbench")
        if isinstance(table, dict):
            return pyproject, table
        if table is not None:
            raise ConfigError(f"{pyproject}: [tool.workbench] must be a table of settings, not {table!r}")
    return None, {}


def _read_toml(path: Path) -> dict[str, Any]:
    """The file's table. A UTF-8 byte order mark (which TOML doesn't allow, and Windows editors write)
    is skipped, as it is in eval sets."""
    try:
        return tomllib.loads(read_regular_text(path, MAX_CONFIG_BYTES).removeprefix("\ufeff"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: cannot read: not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset "
                          f"{exc.start})") from None


def load_config(root: Path) -> Config:
    """The project's settings (`read_settings`) with the `[runner]` its format supplies when they leave it open
    (`apply_runner_defaults`). ConfigError naming the file: the settings file, or the format's own (`.file`)."""
    config = read_settings(root)
    apply_runner_defaults(config)
    return config


def read_settings(root: Path) -> Config:
    """The settings as the files say, every section checked, without a format's runner defaults."""
    root = root.resolve()
    source, table = find_config_file(root)
    config = Config(root=root, source=source)
    where = f"{source}" if source else "config"
    prefix = "[tool.workbench." if source and source.name == "pyproject.toml" else "["
    known = declared().sections
    for section, value in table.items():
        if section not in known:
            hint = did_you_mean(section, list(known), prefix + "{}]")
            raise ConfigError(f"{where}: unknown section {prefix}{section}]; {hint}known sections: " + ", ".join(known))
        if not isinstance(value, dict):
            raise ConfigError(f"{where}: {prefix}{section}] must be a table")
        try:
            config.set_section(section, known[section].model_validate(value))
        except ValidationError as exc:
            raise ConfigError(f"{where}: {prefix}{section}] {section_problem(section, known[section], exc)}") from None
    return config


def apply_runner_defaults(config: Config) -> None:
    """A format whose projects say themselves how their rows run (`RUNNER_DEFAULTS` in its settings.py)
    supplies the `[runner]` the settings leave open: the first format that answers wins. Each decides
    what "left open" means for it and keeps what the settings do say (timeout, env, ...). A ConfigError it
    raises about a file of its own says which (`.file`): set by the format, else the project file its
    message starts with (`uipath.json is not valid JSON ...`)."""
    for runner_defaults in declared().runner_defaults:
        try:
            runner = runner_defaults(config.root, config)
        except ConfigError as exc:
            if exc.file is None:
                exc.file = _file_named_first(config.root, str(exc))
            raise
        if runner is not None:
            config.runner = runner
            return


def _file_named_first(root: Path, message: str) -> Path | None:
    """The project file (not a settings file) a message starts with, `name: ...` or `name is ...`, if it exists."""
    first = message.split(maxsplit=1)[0].removesuffix(":") if message.strip() else ""
    if not first or first.startswith("[") or ".." in Path(first).parts:
        return None
    path = Path(first) if os.path.isabs(first) else root / first
    try:
        path.relative_to(root)
    except ValueError:
        return None
    if path.name in SETTINGS_FILES or path == root or not os.path.lexists(path):
        return None
    return path


def reload_config(config: Config, *, needs_runner: bool = True) -> Config:
    """The project's settings as the files say now, with the same command-line overrides, checked
    enough to run with: the way to run the target too, unless `needs_runner` is False (a project whose
    formats run without a target). Raises ConfigError (naming the file and key) when they can't be used."""
    fresh = load_config(config.root)
    fresh.overrides = config.overrides
    fresh.overrides.apply(fresh)
    if needs_runner:
        resolve_runner_kind(fresh)
    return fresh


def resolve_runner_kind(config: Config) -> str:
    """command / uip / worker / python, or ConfigError explaining the config to add."""
    runner = config.runner
    if runner.kind:
        if runner.kind in ("command", "worker") and not runner.command:
            raise ConfigError(f"{config.describe_source()}: [runner] kind = {runner.kind!r} needs "
                              "command = [\"program\", \"arg\", ...]")
        if runner.kind == "python":
            _check_callable(config)
        return runner.kind
    if runner.command:
        return "command"
    if runner.callable:
        _check_callable(config)
        return "python"
    if (config.root / runner.workflow).is_file():
        return "uip"
    raise ConfigError(
        f"no way to run the target in {config.root}: there is no {CONFIG_FILE} (or [tool.workbench] in "
        f"pyproject.toml) saying how, and no {runner.workflow} for the uip runner.\n"
        f"Add this to {config.root / CONFIG_FILE}:\n\n{EXAMPLE_CONFIG}\n")
