"""Project settings from `workbench.toml` or `[tool.workbench]` in `pyproject.toml`.

Every key is checked: a typo (`concurency`) or a wrong type is a ConfigError naming the file and the
key, because a silently ignored setting is worse than a refusal.
"""

from __future__ import annotations

import difflib
import math
import os
import shlex
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from .errors import WorkbenchError
from .regular_files import read_regular_text

CONFIG_FILE = "workbench.toml"
STATE_DIR = ".workbench"
RUNNER_KINDS = ("command", "uip", "worker", "python")
MAX_CONFIG_BYTES = 1024 * 1024
# Upper bounds: beyond them a setting is a typo, and some (a debounce of 2**63 ms) would hang workbench.
MAX_TIMEOUT_S = 86_400.0  # a day, for a row or a judge call
MAX_CONCURRENCY = 1024
MAX_OUTPUT_MB = 4096.0
MAX_DEBOUNCE_MS = 10_000
MAX_STALL_AFTER = 10_000
MAX_RETENTION = 1_000_000
MAX_INCREASE = 1000.0  # a baseline gate's slowdown / token increase: 1000 = +100,000%
MAX_IN_FLIGHT = 100_000

EXAMPLE_CONFIG = """\
# workbench.toml at the project root
[runner]
kind = "command"
command = ["python3", "agent.py"]   # gets the row's inputs as JSON on stdin, prints the output JSON
timeout = 60                        # seconds per row
concurrency = 4                     # rows in flight"""


class ConfigError(WorkbenchError):
    """A setting that can't be used; the message names the file and key."""


def _check_callable(config: Config) -> None:
    """`package.module:function` (or `module:Class.method`), else a ConfigError saying so."""
    spec = config.runner.callable or ""
    module, _, attr = spec.partition(":")
    if not spec or not attr or not all(part.isidentifier() for part in [*module.split("."), *attr.split(".")]):
        raise ConfigError(f"{config.describe_source()}: [runner] kind = \"python\" needs callable = "
                          f"\"package.module:function\", not {spec!r}")


@dataclass(slots=True)
class RunnerConfig:
    kind: str | None = None
    command: list[str] | None = None
    callable: str | None = None
    timeout: float = 60.0
    concurrency: int = 4
    workflow: str = "Workflow.json"
    uip: list[str] = field(default_factory=lambda: ["uip"])
    env: dict[str, str] = field(default_factory=dict)
    max_output_mb: float = 16.0
    auth: bool = False  # uip: run authenticated (drop --no-auth); the default stays --no-auth (seed 003 §2)
    preload: bool = True  # fork Python script targets from a warm parent (see runners/preload.py)


@dataclass(slots=True)
class WatchConfig:
    paths: list[str] = field(default_factory=lambda: ["."])
    ignore: list[str] = field(default_factory=list)  # globs of the user's, on top of the defaults
    ignore_defaults: bool = True  # false: watch and fingerprint bytecode, tool caches, editor files too
    debounce_ms: int = 50
    stall_after: int = 3


@dataclass(slots=True)
class HistoryConfig:
    retention: int = 500


@dataclass(slots=True)
class BaselineConfig:
    path: str = "workbench-baseline.json"
    min_pass_rate: float = 1.0
    max_slowdown: float | None = None
    max_token_increase: float | None = None


@dataclass(slots=True)
class ScoringConfig:
    pass_threshold: float = 1.0


@dataclass(slots=True)
class JudgeConfig:
    command: list[str] | None = None
    url: str | None = None
    model: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    timeout: float = 60.0
    concurrency: int = 4  # judge calls in flight at once
    cache: bool = True  # remember answers under .workbench/ across iterations and processes


@dataclass(slots=True)
class EvalsConfig:
    """Settings of the conversation dialect (seed 002)."""

    judge_pass_threshold: float = 3.0  # a 1–5 llm_judge score passes at this or above


@dataclass(slots=True)
class ScenariosConfig:
    """Settings of the scenario dialect (seed 000); None means `.appilotsrc`'s value, else the seed's default."""

    dir: str | None = None
    baseline: str | None = None
    min_pass_rate: float | None = None
    max_token_regression: float | None = None


@dataclass(slots=True)
class ReplayConfig:
    """Settings of the scripted-replay dialect (seed 001)."""

    tools: str = "tools.json"


@dataclass(slots=True)
class CacheConfig:
    reuse: bool = True
    # Files outside the project (or that workbench can't see a target read) whose change must re-run rows:
    # globs relative to the project root ("../data/**"), fingerprinted with every run.
    inputs: list[str] = field(default_factory=list)
    # Environment variables left out of the fingerprint (besides the shell's own bookkeeping: see fingerprint.py).
    ignore_env: list[str] = field(default_factory=list)
    # A Python target that starts another program (subprocess, os.system, exec) read files workbench can't
    # see: by default such a row is never re-scored; true trusts the program (its executable is fingerprinted)
    # and `inputs` to cover what it reads.
    trust_subprocesses: bool = False


@dataclass(slots=True)
class ClusterConfig:
    engine: str | None = None
    address: str | None = None
    cpus_per_row: float = 1.0
    max_in_flight: int | None = None
    retries: int = 0
    # gitignore-style patterns (relative to the project root) never shipped to the cluster, on top of
    # the secrets, state, .gitignore'd files and the rest cluster/package.py always leaves out
    ship_ignore: list[str] = field(default_factory=list)


@dataclass(slots=True)
class Overrides:
    """Settings given on the command line; they win over the file every time it is re-read."""

    command: list[str] | None = None
    timeout: float | None = None
    concurrency: int | None = None
    model: str | None = None  # --model: the model scenarios ask for when they name none
    scenarios_dir: str | None = None  # --dir
    cluster: str | None = None  # --cluster ADDRESS
    no_cache: bool = False  # --no-cache: ask the judge again instead of using remembered answers
    tags: tuple[str, ...] = ()  # --tag: only rows with one of these tags, every iteration
    kinds: tuple[str, ...] = ()  # --type: only rows of these types (capability, regression)

    def apply(self, config: Config) -> None:
        if self.no_cache:
            config.judge.cache = False
        if self.scenarios_dir is not None:
            config.scenarios.dir = self.scenarios_dir
        if self.cluster is not None:
            config.cluster.engine = "ray"
            config.cluster.address = self.cluster
        if self.command:
            config.runner.command = list(self.command)
            config.runner.kind = "command"
        if self.timeout is not None:
            if not (math.isfinite(self.timeout) and 0 < self.timeout <= MAX_TIMEOUT_S):
                raise ConfigError(f"--timeout must be more than 0 and at most {MAX_TIMEOUT_S:g} seconds (a day), "
                                  f"not {self.timeout:g}")
            config.runner.timeout = self.timeout
        if self.concurrency is not None:
            if not 1 <= self.concurrency <= MAX_CONCURRENCY:
                raise ConfigError(f"--concurrency must be between 1 and {MAX_CONCURRENCY}")
            config.runner.concurrency = self.concurrency


@dataclass(slots=True)
class Config:
    root: Path
    source: Path | None = None
    overrides: Overrides = field(default_factory=Overrides)
    runner: RunnerConfig = field(default_factory=RunnerConfig)
    watch: WatchConfig = field(default_factory=WatchConfig)
    history: HistoryConfig = field(default_factory=HistoryConfig)
    baseline: BaselineConfig = field(default_factory=BaselineConfig)
    scoring: ScoringConfig = field(default_factory=ScoringConfig)
    judge: JudgeConfig = field(default_factory=JudgeConfig)
    evals: EvalsConfig = field(default_factory=EvalsConfig)
    scenarios: ScenariosConfig = field(default_factory=ScenariosConfig)
    replay: ReplayConfig = field(default_factory=ReplayConfig)
    cache: CacheConfig = field(default_factory=CacheConfig)
    cluster: ClusterConfig = field(default_factory=ClusterConfig)

    @property
    def state_dir(self) -> Path:
        return self.root / STATE_DIR

    def describe_source(self) -> str:
        return str(self.source) if self.source else "defaults"


_SECTIONS: dict[str, type] = {
    "runner": RunnerConfig,
    "watch": WatchConfig,
    "history": HistoryConfig,
    "baseline": BaselineConfig,
    "scoring": ScoringConfig,
    "judge": JudgeConfig,
    "evals": EvalsConfig,
    "scenarios": ScenariosConfig,
    "replay": ReplayConfig,
    "cache": CacheConfig,
    "cluster": ClusterConfig,
}


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
    root = root.resolve()
    source, table = find_config_file(root)
    config = Config(root=root, source=source)
    where = f"{source}" if source else "config"
    prefix = "[tool.workbench." if source and source.name == "pyproject.toml" else "["
    for section, value in table.items():
        if section not in _SECTIONS:
            close = difflib.get_close_matches(section, _SECTIONS, n=1)
            hint = f"did you mean {prefix}{close[0]}]? " if close else ""
            raise ConfigError(f"{where}: unknown section {prefix}{section}]; {hint}known sections: "
                              + ", ".join(_SECTIONS))
        if not isinstance(value, dict):
            raise ConfigError(f"{where}: {prefix}{section}] must be a table")
        setattr(config, section, _build(_SECTIONS[section], value, f"{where}: {prefix}{section}]"))
    _validate(config, where)
    return config


def _build(cls: type, values: dict[str, Any], where: str) -> Any:
    obj = cls()
    known = {f.name: f for f in fields(cls)}
    for key, value in values.items():
        if key not in known:
            close = difflib.get_close_matches(key, known, n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise ConfigError(f"{where}: unknown key {key!r}; {hint}known keys: {', '.join(known)}")
        setattr(obj, key, _coerce(key, value, getattr(obj, key), known[key].type, where))
    return obj


def _coerce(key: str, value: Any, default: Any, annotation: Any, where: str) -> Any:
    spec = str(annotation)
    if key in ("command", "uip"):
        if isinstance(value, str):
            value = shlex.split(value)
        if not (isinstance(value, list) and value and all(isinstance(v, str) for v in value)):
            raise ConfigError(f"{where}: {key} must be a list of strings (an argv) or a string")
        _refuse_nul(key, value, where)
        return value
    if spec.startswith("list"):
        if not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
            raise ConfigError(f"{where}: {key} must be a list of strings")
        _refuse_nul(key, value, where)
        return value
    if spec.startswith("dict"):
        if not (isinstance(value, dict) and all(isinstance(v, str) for v in value.values())):
            raise ConfigError(f"{where}: {key} must be a table of strings")
        _refuse_nul(key, [*value, *value.values()], where)
        return value
    if spec.startswith("bool"):
        if not isinstance(value, bool):
            raise ConfigError(f"{where}: {key} must be true or false, not {value!r}")
        return value
    if spec.startswith("float"):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(f"{where}: {key} must be a number, not {value!r}")
        if not math.isfinite(value):
            raise ConfigError(f"{where}: {key} must be a finite number, not {value!r}")
        return float(value)
    if spec.startswith("int"):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{where}: {key} must be an integer, not {value!r}")
        return value
    if spec.startswith("str"):
        if not isinstance(value, str):
            raise ConfigError(f"{where}: {key} must be a string, not {value!r}")
        _refuse_nul(key, [value], where)
        return value
    return value


def _refuse_nul(key: str, values: list[str], where: str) -> None:
    """A NUL can't be part of a path, an argument or an environment variable: say so here, not in a traceback."""
    if any("\x00" in v for v in values):
        raise ConfigError(f"{where}: {key} contains a NUL character (\\u0000), which no path or argument can hold")


def _validate(config: Config, where: str) -> None:
    runner = config.runner
    if runner.kind is not None and runner.kind not in RUNNER_KINDS:
        raise ConfigError(f"{where}: [runner] kind must be one of {', '.join(RUNNER_KINDS)}, not {runner.kind!r}")
    if not 0 < runner.timeout <= MAX_TIMEOUT_S:
        raise ConfigError(f"{where}: [runner] timeout must be more than 0 and at most {MAX_TIMEOUT_S:g} seconds "
                          f"(a day), not {runner.timeout:g}")
    if not 1 <= runner.concurrency <= MAX_CONCURRENCY:
        raise ConfigError(f"{where}: [runner] concurrency must be between 1 and {MAX_CONCURRENCY}")
    if not 0 < runner.max_output_mb <= MAX_OUTPUT_MB:
        raise ConfigError(f"{where}: [runner] max_output_mb must be more than 0 and at most {MAX_OUTPUT_MB:g}")
    _validate_watch(config.watch, where)
    if not 1 <= config.history.retention <= MAX_RETENTION:
        raise ConfigError(f"{where}: [history] retention must be between 1 and {MAX_RETENTION:,} iterations")
    if not 0.0 <= config.baseline.min_pass_rate <= 1.0:
        raise ConfigError(f"{where}: [baseline] min_pass_rate must be between 0 and 1")
    for key in ("max_slowdown", "max_token_increase"):
        limit = getattr(config.baseline, key)
        if limit is not None and not 0 <= limit <= MAX_INCREASE:
            raise ConfigError(f"{where}: [baseline] {key} must be between 0 and {MAX_INCREASE:g} (0.5 = +50%)")
    if not 0 < config.judge.timeout <= MAX_TIMEOUT_S:
        raise ConfigError(f"{where}: [judge] timeout must be more than 0 and at most {MAX_TIMEOUT_S:g} seconds "
                          f"(a day), not {config.judge.timeout:g}")
    if not 1 <= config.judge.concurrency <= 256:
        raise ConfigError(f"{where}: [judge] concurrency must be between 1 and 256, not {config.judge.concurrency}")
    if not 0.0 <= config.scoring.pass_threshold <= 1.0:
        raise ConfigError(f"{where}: [scoring] pass_threshold must be between 0 and 1")
    if not 1.0 <= config.evals.judge_pass_threshold <= 5.0:
        raise ConfigError(f"{where}: [evals] judge_pass_threshold must be between 1 and 5")
    scenarios = config.scenarios
    if scenarios.min_pass_rate is not None and not 0.0 <= scenarios.min_pass_rate <= 1.0:
        raise ConfigError(f"{where}: [scenarios] min_pass_rate must be between 0 and 1")
    if scenarios.max_token_regression is not None and not 0.0 <= scenarios.max_token_regression <= 100.0:
        raise ConfigError(f"{where}: [scenarios] max_token_regression must be between 0 and 100 (0.25 = +25%)")
    cluster = config.cluster
    if cluster.engine is not None and cluster.engine != "ray":
        raise ConfigError(f"{where}: [cluster] engine must be \"ray\", not {cluster.engine!r}")
    if cluster.address is not None and cluster.engine is None:
        raise ConfigError(f"{where}: [cluster] address is set but engine is not; add engine = \"ray\" to run the rows "
                          "on that cluster")
    if cluster.address is not None and not cluster.address.strip():
        raise ConfigError(f"{where}: [cluster] address is empty; use \"local\", \"auto\" or \"ray://head:10001\"")
    if not 0 < cluster.cpus_per_row <= 1024:
        raise ConfigError(f"{where}: [cluster] cpus_per_row must be more than 0")
    if cluster.max_in_flight is not None and not 1 <= cluster.max_in_flight <= MAX_IN_FLIGHT:
        raise ConfigError(f"{where}: [cluster] max_in_flight must be between 1 and {MAX_IN_FLIGHT:,}")
    if not 0 <= cluster.retries <= 10:
        raise ConfigError(f"{where}: [cluster] retries must be between 0 and 10")


def _validate_watch(watch: WatchConfig, where: str) -> None:
    if not 0 <= watch.debounce_ms <= MAX_DEBOUNCE_MS:
        raise ConfigError(f"{where}: [watch] debounce_ms must be between 0 and {MAX_DEBOUNCE_MS} (10 seconds), "
                          f"not {watch.debounce_ms}")
    if not 1 <= watch.stall_after <= MAX_STALL_AFTER:
        raise ConfigError(f"{where}: [watch] stall_after must be between 1 and {MAX_STALL_AFTER}")
    if not watch.paths:
        raise ConfigError(f"{where}: [watch] paths is empty, so nothing would be watched; list at least one "
                          "folder or file (\".\" is the project root)")


def reload_config(config: Config, *, needs_runner: bool = True) -> Config:
    """The project's settings as the files say now, with the same command-line overrides, checked
    enough to run with: the way to run the target too, unless `needs_runner` is False (a project of
    scripted replays has none). Raises ConfigError (naming the file and key) when they can't be used."""
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
