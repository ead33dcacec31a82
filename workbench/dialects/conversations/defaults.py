"""The two cascades of a conversation eval, as the ADK has them (seed 002: "eval options → agent config →
default"): an eval's `options`, then workbench.toml's `[evals]`, then `agent.config.ts`'s `evals`, then
30,000 ms per turn and a judge threshold of 3. One place, so the loader (a row's `idleTimeout` input), the
player (the turn's time limit and the words for it) and the scorer (the judge threshold) agree."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...compare import is_number
from .settings import DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_JUDGE_THRESHOLD, ConversationsConfig

if TYPE_CHECKING:
    from ...config import Config

AGENT_KEY = "agent.config.ts"  # the conversation evaluator's config: {AGENT_KEY: AgentDefaults.to_json()}


def _option(spec: Any, key: str) -> float | None:
    options = spec.get("options") if isinstance(spec, dict) else None
    value = options.get(key) if isinstance(options, dict) else None
    return float(value) if is_number(value) else None


def _section(config: Config | None) -> ConversationsConfig | None:
    return config.section(ConversationsConfig) if config is not None else None


def idle_timeout(spec: Any, config: Config | None, agent: dict[str, Any]) -> tuple[float, str]:
    """(milliseconds one turn may take, where that came from, in words)."""
    own = _option(spec, "idleTimeout")
    if own is not None and own > 0:
        return own, "options.idleTimeout"
    section = _section(config)
    if section is not None and section.idle_timeout_ms is not None:
        return float(section.idle_timeout_ms), "[evals] idle_timeout_ms"
    if is_number(agent.get("idleTimeout")):
        return float(agent["idleTimeout"]), "agent.config.ts's evals.idleTimeout"
    return float(DEFAULT_IDLE_TIMEOUT_MS), "the default idle timeout"


def judge_threshold(spec: Any, config: Config | None, agent: dict[str, Any]) -> float:
    """The 1-5 score an llm_judge assertion passes at."""
    own = _option(spec, "judgePassThreshold")
    if own is not None:
        return own
    section = _section(config)
    if section is not None and section.judge_pass_threshold is not None:
        return section.judge_pass_threshold
    if is_number(agent.get("judgePassThreshold")):
        return float(agent["judgePassThreshold"])
    return DEFAULT_JUDGE_THRESHOLD
