"""The conversation format's section of workbench.toml, `[evals]` (found by `settings/discovery.py`)."""

from __future__ import annotations

from pydantic import Field

from ...settings.base import Section


class ConversationsConfig(Section):
    """Conversation evals (evals/**/*.eval.json)."""

    judge_pass_threshold: float = Field(default=3.0, ge=1, le=5, allow_inf_nan=False,
                                        description="An llm_judge assertion's 1-5 score passes at this or above, "
                                                    "unless the eval's options.judgePassThreshold says otherwise")


SECTIONS = {"evals": ConversationsConfig}

__all__ = ["SECTIONS", "ConversationsConfig"]
