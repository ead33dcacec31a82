"""The sections of workbench.toml every project has. A format's own section is declared in its dialect
package (`dialects/<name>/settings.py`, found by `discovery.py`)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BeforeValidator, Field, model_validator

from ..secret_files import PatternError, check_patterns
from .base import (
    Argv,
    Increase,
    Note,
    PathText,
    Rate,
    Seconds,
    Section,
    Text,
    TextList,
    TextTable,
    empty_list,
    empty_table,
    refuse,
)

RunnerKind = Literal["command", "uip", "worker", "python"]


class RunnerConfig(Section):
    """How the target runs: one row's inputs in, its output out."""

    kind: RunnerKind | None = Field(default=None, description=(
        "command (a process per row), worker (one process for many rows), python (a callable) or uip; unset: "
        "chosen from command, callable or a Workflow.json"))
    command: Argv | None = Field(default=None, description=(
        "The target's argv: a row's inputs as JSON on stdin, its output JSON on stdout (\"{python}\" is "
        "workbench's interpreter)"))
    callable: Text | None = Field(default=None, description=(
        "kind = \"python\": the package.module:function called with each row's inputs"))
    timeout: Seconds = Field(default=60.0, description="Per-row time limit; the row's process group is killed after it")
    concurrency: int | None = Field(default=None, ge=1, le=1024, json_schema_extra={
        "x-unset-means": "one per core, at least 4; uip: 8 per core, 16 to 32"}, description=(
        "Rows in flight at once; unset: one per core, at least 4 (command, worker, python), or 8 per core, 16 to "
        "32, for uip, whose runs mostly wait"))
    workflow: Text = Field(default="Workflow.json", description="The API workflow file the uip runner runs")
    uip: Argv = Field(default_factory=lambda: ["uip"], description="The uip program (and arguments before its own)")
    env: TextTable = Field(default_factory=empty_table, description=(
        "Environment variables the target gets on top of workbench's own"))
    max_output_mb: float = Field(default=16.0, gt=0, le=4096, allow_inf_nan=False, description=(
        "A row printing more than this many MiB on stdout is stopped and killed"))
    auth: bool = Field(default=False, description=(
        "uip: run authenticated (drop --no-auth; every iteration re-runs side effects)"))
    preload: bool = Field(default=True, description=(
        "Fork Python script targets from a warm parent instead of starting each afresh"))
    repeat: int = Field(default=1, ge=1, le=1000, description=(
        "Independent runs of every row (samples); the row passes when [gate] row_pass_rate of them pass"))


def _something_watched(paths: list[str]) -> list[str]:
    if not paths:
        raise refuse("is empty, so nothing would be watched; list at least one folder or file (\".\" is the "
                     "project root)")
    return paths


class WatchConfig(Section):
    """What the loop watches, and when it reruns."""

    paths: Annotated[TextList, AfterValidator(_something_watched)] = Field(
        default_factory=lambda: ["."], json_schema_extra={"minItems": 1}, description=(
            "Folders and files watched (and fingerprinted), relative to the project root"))
    ignore: TextList = Field(default_factory=empty_list, description=(
        "Globs left out of watching, on top of the defaults"))
    ignore_defaults: bool = Field(default=True, description=(
        "false: watch and fingerprint bytecode, tool caches and editor files too"))
    debounce_ms: Annotated[int, Note("(10 seconds)")] = Field(default=50, ge=0, le=10_000, description=(
        "Milliseconds of quiet after a save before the loop reruns (stopping a watch is immediate whatever it is)"))
    stall_after: int = Field(default=3, ge=1, le=10_000, description=(
        "Iterations in a row without more rows passing before the loop says it is stalled"))


def _gitignore_patterns(patterns: list[str]) -> list[str]:
    try:
        check_patterns(patterns)
    except PatternError as exc:
        raise refuse(f"holds a pattern that is {exc}") from None
    return patterns


class HistoryConfig(Section):
    """What `.workbench/` history keeps."""

    retention: Annotated[int, Note("iterations")] = Field(default=500, ge=1, le=1_000_000, description=(
        "Iterations kept; older ones are dropped"))
    keep_files_mb: Annotated[float, Note("MiB")] = Field(
        default=20.0, ge=0, le=100_000, allow_inf_nan=False, description=(
            "MiB of changed project files kept (compressed) for `workbench compare`; the oldest go first (0: none)"))
    secret_files: Annotated[TextList, AfterValidator(_gitignore_patterns)] = Field(
        default_factory=empty_list, description=(
            "gitignore-style patterns of more secret files, on top of the built-in list: compare notes their "
            "changes, their contents are never kept"))


class BaselineConfig(Section):
    """The CI gate of `workbench run` against a committed baseline."""

    path: PathText = Field(default="workbench-baseline.json", description="The baseline file, inside the project")
    min_pass_rate: Rate = Field(default=1.0, description="Fraction of results that must pass (1.0: all)")
    max_slowdown: Increase | None = Field(default=None, description=(
        "Fail when a passing result is slower than the baseline by more than this fraction (unset: report at "
        "+100%)"))
    max_token_increase: Increase | None = Field(default=None, description=(
        "Fail when a passing result uses more tokens than the baseline by more than this fraction (unset: report "
        "at +25%)"))


class GateConfig(Section):
    """How samples and verdicts over time decide a row."""

    row_pass_rate: Rate = Field(default=1.0, description=(
        "With [runner] repeat: the fraction of a row's samples that must pass for the row to pass (1.0: every one)"))
    flaky: Literal["fail", "warn"] = Field(default="fail", description=(
        "A row whose verdict changed while nothing it depends on did: \"fail\" fails the gate, \"warn\" only says so"))


class ScoringConfig(Section):
    """How scores become verdicts."""

    pass_threshold: Rate = Field(default=1.0, description=(
        "A score passes at this or above, unless the evaluator's passThreshold says otherwise"))


class JudgeConfig(Section):
    """The LLM judge: a command, or an OpenAI-compatible endpoint."""

    command: Argv | None = Field(default=None, description=(
        "A judge program: the prompt on stdin, {\"score\": 0-100, \"justification\": ...} on stdout"))
    url: Text | None = Field(default=None, description=(
        "An OpenAI-compatible endpoint (/chat/completions is added when missing)"))
    model: Text | None = Field(default=None, description=(
        "The endpoint's model (else the evaluator's evaluatorConfig.model)"))
    api_key_env: Text = Field(default="OPENAI_API_KEY", description=(
        "The environment variable sent as a Bearer token, when set"))
    timeout: Seconds = Field(default=60.0, description="Deadline for one judge call, retries included")
    concurrency: int = Field(default=4, ge=1, le=256, description="Judge calls in flight at once")
    cache: bool = Field(default=True, description="Remember answers under .workbench/ across iterations and processes")


class CacheConfig(Section):
    """Re-scoring a row from its recorded run when nothing it depends on changed."""

    reuse: bool = Field(default=True, description="false: every row runs every iteration")
    inputs: TextList = Field(default_factory=empty_list, description=(
        "Globs of files outside the project (or unseen) whose change must re-run rows, e.g. \"../data/**\""))
    ignore_env: TextList = Field(default_factory=empty_list, description=(
        "Environment variables left out of the fingerprint"))
    trust_subprocesses: bool = Field(default=False, description=(
        "A Python target that starts a program may be re-scored (the program is fingerprinted; inputs covers what "
        "it reads)"))


def _stripped(value: Any) -> Any:
    return value.strip() if isinstance(value, str) else value


def _an_address(value: str) -> str:
    if not value:
        raise refuse("is empty; give the cluster's address: \"local\", \"auto\" or \"ray://head:10001\"")
    return value


Address = Annotated[Text, BeforeValidator(_stripped), AfterValidator(_an_address)]


class ClusterConfig(Section):
    """Rows run on a Ray cluster instead of this machine."""

    engine: Literal["ray"] | None = Field(default=None, description="\"ray\": run the rows on a Ray cluster")
    address: Address | None = Field(default=None, description=(
        "local (start one on this machine), auto (the one this machine belongs to) or ray://head:10001"))
    cpus_per_row: float = Field(default=1.0, gt=0, le=1024, allow_inf_nan=False, description=(
        "CPUs Ray reserves for each row (0.5 is allowed)"))
    max_in_flight: int | None = Field(default=None, ge=1, le=100_000, description=(
        "Rows at once (unset: as many as the cluster's CPUs hold)"))
    retries: int = Field(default=0, ge=0, le=10, description="Runs more for a row whose Ray worker or node died")
    ship_ignore: TextList = Field(default_factory=empty_list, description=(
        "gitignore-style patterns never shipped to the cluster, on top of those always left out"))

    @model_validator(mode="after")
    def _engine_for_the_address(self) -> ClusterConfig:
        if self.address is not None and self.engine is None:
            raise refuse("address is set but engine is not; add engine = \"ray\" to run the rows on that cluster")
        return self


class AgentConfig(Section):
    """Guard rails for a coding agent driving the loop through `workbench mcp`."""

    max_iterations: int | None = Field(default=None, ge=1, le=1_000_000, description=(
        "Iterations an agent's `run` may start in one `workbench mcp` session; beyond it `run` refuses "
        "(unset: no limit)"))


# The sections every project has, in the order docs/settings.md and `unknown section` list them.
CORE_SECTIONS: dict[str, type[Section]] = {
    "runner": RunnerConfig,
    "watch": WatchConfig,
    "history": HistoryConfig,
    "baseline": BaselineConfig,
    "gate": GateConfig,
    "scoring": ScoringConfig,
    "judge": JudgeConfig,
    "cache": CacheConfig,
    "cluster": ClusterConfig,
    "agent": AgentConfig,
}

__all__ = ["CORE_SECTIONS", "AgentConfig", "BaselineConfig", "CacheConfig", "ClusterConfig", "GateConfig",
           "HistoryConfig", "JudgeConfig", "RunnerConfig", "RunnerKind", "ScoringConfig", "WatchConfig"]
