"""The conversation format's section of workbench.toml, `[evals]` (found by `settings/discovery.py`).

Each setting is the project-level step of a cascade, as the ADK has it: an eval's own `options` win,
then this section, then `agent.config.ts`'s `evals: {...}` (`agent_config.py`), then the ADK's default.
Unset (None) here means "not said in workbench.toml", so an `agent.config.ts` value still applies.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from ...settings.base import Note, Section

DEFAULT_IDLE_TIMEOUT_MS = 30_000
DEFAULT_JUDGE_THRESHOLD = 3.0

Threshold = Annotated[float, Field(ge=1, le=5, allow_inf_nan=False)]
Milliseconds = Annotated[int, Field(gt=0, le=86_400_000), Note("milliseconds (a day)")]


class ConversationsConfig(Section):
    """Conversation evals (evals/**/*.eval.json, evals/**/*.eval.ts)."""

    judge_pass_threshold: Threshold | None = Field(
        default=None, description="An llm_judge assertion's 1-5 score passes at this or above, unless the eval's "
                                  "options.judgePassThreshold says otherwise (unset: agent.config.ts's "
                                  "evals.judgePassThreshold, else 3)")
    idle_timeout_ms: Milliseconds | None = Field(
        default=None, description="How long one turn may take (ms), unless the eval's options.idleTimeout says "
                                  "otherwise (unset: agent.config.ts's evals.idleTimeout, else 30000)")


SECTIONS = {"evals": ConversationsConfig}

__all__ = ["DEFAULT_IDLE_TIMEOUT_MS", "DEFAULT_JUDGE_THRESHOLD", "SECTIONS", "ConversationsConfig"]
