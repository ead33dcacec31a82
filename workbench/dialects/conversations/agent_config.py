"""The agent-level eval defaults of a Botpress project: `agent.config.ts`'s `evals: { idleTimeout,
judgePassThreshold }`, read as a literal (`ts_literals.read_config_evals`) without running Node.

They are one step of each cascade (`defaults.py`): an eval's `options`, then workbench.toml's `[evals]`,
then these, then the ADK's defaults. The config's other keys (`judgeModel`, dependencies, code) are not
workbench's and are skipped whatever they hold. A value that is not a literal, or not a value the ADK
takes, is an ERROR of agent.config.ts: a timeout or threshold workbench can't read would change verdicts.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ...compare import is_number
from ...scoring.common import show
from ..base import LoadContext
from .sources import read_source
from .ts_literals import read_config_evals

AGENT_CONFIG = "agent.config.ts"
READ_KEYS = ("idleTimeout", "judgePassThreshold")


@dataclass(frozen=True, slots=True)
class AgentDefaults:
    """What agent.config.ts says (None: not said, or not readable)."""

    idle_timeout_ms: float | None = None
    judge_pass_threshold: float | None = None

    def to_json(self) -> dict[str, float]:
        found = {"idleTimeout": self.idle_timeout_ms, "judgePassThreshold": self.judge_pass_threshold}
        return {key: value for key, value in found.items() if value is not None}


def read_agent_defaults(ctx: LoadContext) -> AgentDefaults:
    """agent.config.ts at the project root, when there is one; every problem is recorded on `ctx`."""
    path: Path = ctx.root / AGENT_CONFIG
    if not path.exists() and not path.is_symlink():
        return AgentDefaults()
    text = read_source(ctx, path, inside=ctx.root)
    if text is None:
        return AgentDefaults()
    found, read = read_config_evals(text, READ_KEYS)
    for problem in read.problems:
        ctx.problem(path, f"line {problem.line}: {problem.message}")
    timeout = found.get("idleTimeout")
    if timeout is not None and (not is_number(timeout) or timeout <= 0):
        ctx.problem(path, f"evals.idleTimeout must be a number of milliseconds above 0, not {show(timeout)}")
        timeout = None
    threshold = found.get("judgePassThreshold")
    if threshold is not None and (not is_number(threshold) or not 1 <= threshold <= 5):
        ctx.problem(path, f"evals.judgePassThreshold must be a number from 1 to 5, not {show(threshold)}")
        threshold = None
    return AgentDefaults(float(timeout) if timeout is not None else None,
                         float(threshold) if threshold is not None else None)
