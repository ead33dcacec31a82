"""The scenario dialect's settings (seed 000): where the scenarios and the baseline live, and the gate's
thresholds. Each setting is the seed's default, replaced by `.appilotsrc`'s `eval` block, replaced by
`workbench.toml [scenarios]`, replaced by a command-line flag. All three are checked by one declaration,
`ScenariosConfig` (`SECTIONS`, found by `settings/discovery.py`; `OPTIONS` are its flags).

`.appilotsrc` also holds secrets (`apiKey`, ...). Only the `eval` block and `outputDir` are read out of
it; nothing else of the file is kept, shown or stored, and a message about it never quotes its text.

The scenario baseline a settings file names (or the default one) is used only inside the project:
`check_baseline` refuses one that is absolute elsewhere, climbs out with `..` or goes through a link,
naming the file and key; only `--baseline PATH` may point anywhere.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import Field

from ... import jsonio
from ...config import ConfigError
from ...options import Option
from ...safe_paths import outside_reason
from ...settings.base import Note, PathText, Rate, Section, Text
from ...settings.fields import did_you_mean, field_of
from .names import APPILOTS_DIR, DEFAULT_MIN_PASS_RATE, DIALECT, RC_FILE

if TYPE_CHECKING:
    from ...config import Config

DEFAULT_MAX_TOKEN_REGRESSION = 0.25
_RC_LIMIT = 1024 * 1024
SECTION = "scenarios"

DEFAULT, RC, TOML, FLAG = "default", RC_FILE, "workbench.toml", "flag"

TokenRegression = Annotated[float, Field(ge=0, le=100, allow_inf_nan=False), Note("(0.25 = +25%)")]


class ScenariosConfig(Section):
    """Scenarios (.appilots/scenarios/*.json) and their gate; unset: .appilotsrc's eval block, else the seed's."""

    dir: PathText | None = Field(default=None, description=(
        "The folder of scenario files, one *.json per scenario (else .appilotsrc eval.scenariosDir, else "
        ".appilots/scenarios)"))
    baseline: PathText | None = Field(default=None, description=(
        "The scenario baseline, inside the project (else eval.baselinePath, else .appilots/eval-baseline.json)"))
    min_pass_rate: Rate | None = Field(default=None, description=(
        "Fraction of scenarios that must pass (else eval.minPassRate, else 0.95)"))
    max_token_regression: TokenRegression | None = Field(default=None, description=(
        "A passing scenario fails past (1 + this) × its baseline tokens (else eval.maxTokenRegression, else 0.25)"))
    model: Text | None = Field(default=None, description=(
        "The model every scenario without its own modelOverride asks the agent for"))


SECTIONS = {SECTION: ScenariosConfig}
# `.appilotsrc`'s eval block: its key for each field, checked by that field.
RC_KEYS = {"scenariosDir": "dir", "baselinePath": "baseline", "minPassRate": "min_pass_rate",
           "maxTokenRegression": "max_token_regression"}
OPTIONS = (
    Option("--dir", (f"{SECTION}.dir",), "PATH", path=True),
    Option("--model", (f"{SECTION}.model",), "ID"),
    Option("--min-pass-rate", (f"{SECTION}.min_pass_rate",), "RATE", commands=("run",)),
    Option("--max-token-regression", (f"{SECTION}.max_token_regression",), "FRACTION", commands=("run",)),
)


@dataclass(frozen=True, slots=True)
class ScenarioSettings:
    """Resolved settings; `sources` says where each one came from (default, .appilotsrc, workbench.toml,
    flag). `dir_named`: the folder was named somewhere, so a missing one is an error, not a hint."""

    dir: Path
    baseline: Path
    min_pass_rate: float = DEFAULT_MIN_PASS_RATE
    max_token_regression: float = DEFAULT_MAX_TOKEN_REGRESSION
    model: str | None = None
    dir_named: bool = False
    sources: dict[str, str] = field(default_factory=dict)
    baseline_origin: str = ""  # which file and key named the baseline, for a refusal ("" for a flag)

    def with_flags(self, *, baseline: Path | None = None, min_pass_rate: float | None = None,
                   max_token_regression: float | None = None) -> ScenarioSettings:
        """These settings with the command line's `--baseline` / `--min-pass-rate` /
        `--max-token-regression` laid over them (None: not given)."""
        changes: dict[str, Any] = {}
        sources = dict(self.sources)
        for name, value in (("baseline", baseline), ("min_pass_rate", min_pass_rate),
                            ("max_token_regression", max_token_regression)):
            if value is not None:
                changes[name] = value
                sources[name] = FLAG
        if baseline is not None:
            changes["baseline_origin"] = ""
        return replace(self, **changes, sources=sources)

    def check_baseline(self, root: Path) -> None:
        """ConfigError when the baseline, named by a settings file or the default, lies outside the
        project at `root` (reading or writing it would leave the project); a flag's may be anywhere."""
        if self.sources.get("baseline") == FLAG:
            return
        reason = outside_reason(root, self.baseline)
        if reason:
            raise ConfigError(f"{self.baseline_origin or 'the scenario baseline'} {reason}; workbench reads and "
                              "writes a baseline named in a settings file only inside the project. To use that "
                              "file anyway, name it on the command line: --baseline PATH")

    def to_json(self, root: Path) -> dict[str, Any]:
        return {"dir": _shown(root, self.dir), "baseline": _shown(root, self.baseline),
                "min_pass_rate": self.min_pass_rate, "max_token_regression": self.max_token_regression,
                "sources": dict(self.sources)}


def _shown(root: Path, path: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


@dataclass(slots=True)
class RcValues:
    """What `.appilotsrc` says about scenarios (and only that), and what is wrong with it."""

    values: dict[str, Any] = field(default_factory=dict)
    output_dir: str | None = None
    problems: list[tuple[str, str]] = field(default_factory=list)  # (message, severity)
    found: bool = False


def read_rc(root: Path) -> RcValues:
    out = RcValues()
    path = root / RC_FILE
    try:
        if not path.is_file():
            return out
        out.found = True
        if path.stat().st_size > _RC_LIMIT:
            out.problems.append(("is larger than 1 MiB; not read", "error"))
            return out
        doc = jsonio.loads(path.read_bytes())
    except OSError as exc:
        out.problems.append((f"cannot be read: {exc.strerror or type(exc).__name__}", "error"))
        return out
    except jsonio.JsonError as exc:  # the position only: the text may be a secret
        where = f" at line {exc.line}, column {exc.column}" if exc.line is not None else ""
        out.problems.append((f"is not valid JSON{where}; its settings are not used", "error"))
        return out
    if not isinstance(doc, dict):
        out.problems.append(("must be a JSON object; its settings are not used", "error"))
        return out
    output_dir = doc.get("outputDir")
    if isinstance(output_dir, str) and output_dir:
        out.output_dir = output_dir
    elif output_dir is not None:
        out.problems.append(("outputDir must be a non-empty string (a folder); not used", "error"))
    block = doc.get("eval")
    if block is None:
        return out
    if not isinstance(block, dict):
        out.problems.append(("\"eval\" must be an object; its settings are not used", "error"))
        return out
    _read_eval_block(block, out)
    return out


def _read_eval_block(block: dict[str, Any], out: RcValues) -> None:
    """Each known key checked by its field in `ScenariosConfig` (the value never quoted: the file holds secrets)."""
    known = list(RC_KEYS)
    for key, value in block.items():
        if key not in RC_KEYS:
            out.problems.append((f"eval.{key} is not a scenario setting; {did_you_mean(str(key), known)}known: "
                                 f"{', '.join(known)}", "warning"))
            continue
        facts = field_of(SECTION, ScenariosConfig, RC_KEYS[key])
        checked, problem = facts.check(float(value) if isinstance(value, Decimal) else value, quote=False)
        if problem:
            out.problems.append((f"eval.{key} {problem}; not used", "error"))
        else:
            out.values[key] = checked


def resolve_settings(root: Path, config: Config | None) -> tuple[ScenarioSettings, RcValues]:
    """The settings for the project at `root`, and what `.appilotsrc` said (for its problems)."""
    rc = read_rc(root)
    out_dir = rc.output_dir or APPILOTS_DIR
    sources: dict[str, str] = {}

    def pick(name: str, rc_key: str, toml_value: Any, default: Any, flag: bool = False) -> Any:
        if toml_value is not None:
            sources[name] = FLAG if flag else TOML
            return toml_value
        if rc_key in rc.values:
            sources[name] = RC
            return rc.values[rc_key]
        sources[name] = DEFAULT
        return default

    toml = config.section(ScenariosConfig) if config is not None else None
    flags = config.overrides.settings if config is not None else {}
    folder = pick("dir", "scenariosDir", toml.dir if toml else None, f"{out_dir}/scenarios", f"{SECTION}.dir" in flags)
    baseline = pick("baseline", "baselinePath", toml.baseline if toml else None, f"{out_dir}/eval-baseline.json")
    min_rate = pick("min_pass_rate", "minPassRate", toml.min_pass_rate if toml else None, DEFAULT_MIN_PASS_RATE,
                    f"{SECTION}.min_pass_rate" in flags)
    max_tokens = pick("max_token_regression", "maxTokenRegression", toml.max_token_regression if toml else None,
                      DEFAULT_MAX_TOKEN_REGRESSION, f"{SECTION}.max_token_regression" in flags)
    settings = ScenarioSettings(
        dir=root / Path(folder).expanduser(), baseline=root / Path(baseline).expanduser(),
        min_pass_rate=float(min_rate), max_token_regression=float(max_tokens),
        model=toml.model if toml else None,
        dir_named=sources["dir"] != DEFAULT, sources=sources,
        baseline_origin=_baseline_origin(root, config, sources["baseline"], baseline, rc.output_dir))
    return settings, rc


def _baseline_origin(root: Path, config: Config | None, source: str, value: str, output_dir: str | None) -> str:
    """Where the baseline's path was set, as a refusal names it."""
    if source == TOML:
        where = config.describe_source() if config is not None else TOML
        return f"{where}: [scenarios] baseline = {value!r}"
    if source == RC:
        return f"{root / RC_FILE}: eval.baselinePath = {value!r}"
    if output_dir is not None:
        return f"{root / RC_FILE}: outputDir = {output_dir!r} (the scenario baseline {value})"
    return f"the default scenario baseline {value}"


__all__ = ["APPILOTS_DIR", "DEFAULT_MAX_TOKEN_REGRESSION", "DEFAULT_MIN_PASS_RATE", "DIALECT", "OPTIONS", "RC_FILE",
           "RC_KEYS", "SECTIONS", "RcValues", "ScenarioSettings", "ScenariosConfig", "read_rc", "resolve_settings"]
