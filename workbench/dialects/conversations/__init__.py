"""The conversation dialect: multi-turn evals in the Botpress ADK's format (seed 002).

`files.py` finds and reads `evals/**/*.eval.json` and `*.eval.ts` (`ts_literals.py` reads the TypeScript
literals, `agent_config.py` the agent-level defaults, `defaults.py` cascades them), `rules.py` checks
each eval against the seed's rules, `protocol.py` is what the target is asked per turn, `player.py`
plays the turns, `keep.py` caps what the transcript keeps. The assertions are scored by `scorer.py`
(`checks.py` compiles them, `judge.py` asks the judge) against the transcript the player records.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ...runners.base import RunOutcome
from ..base import EVALS_DIR, Dialect, LoadContext, RowRun, Scaffolded, Words, run_error
from .layout import DIALECT, SUFFIX, TS_SUFFIX, eval_files

if TYPE_CHECKING:
    from ...config import Config
    from ...model import EvalSet, Row
    from ...scoring.base import Scorer

# The reader, the player and the scorer are imported by the methods that use them: a project without
# conversation evals never loads them.


class ConversationsDialect(Dialect):
    """Core (a row is a conversation: several target calls); scaffolds, has a TUI view and an HTML detail,
    finds an `.eval.ts` row's line, and says when a conversation failed as a run."""

    name = DIALECT
    title = "conversation evals"
    words = Words(
        expects=f"{EVALS_DIR}/**/*{SUFFIX} or *{TS_SUFFIX}",
        init_help=(f"{EVALS_DIR}/greeting{SUFFIX} (a conversation eval), in a folder without a target also a "
                   "starter bot.py and the workbench.toml that runs it"),
        accept_refusal=("is a conversation eval: its assertions are checked turn by turn and there is no single "
                        "expected output to accept; edit the assertions in its .eval.json or .eval.ts file instead "
                        "(workbench never writes into a .eval.ts file)"),
    )
    markers = (EVALS_DIR,)
    view = "workbench.tui.detail_views.conversation:ConversationView"
    html_detail = "workbench.dialects.conversations.html:detail_blocks"
    init_name = "botpress"

    def scaffold(self, root: Path) -> Scaffolded:
        from . import scaffold

        created, kept, skipped = scaffold.init_conversations(root)
        return Scaffolded(created, kept, skipped, scaffold.next_steps(created))

    def scorers(self) -> tuple[Scorer, ...]:
        from .scorer import ConversationScorer

        return (ConversationScorer(),)

    def present(self, root: Path, config: Config | None) -> bool:
        return next(eval_files(root / EVALS_DIR), None) is not None

    def load(self, ctx: LoadContext) -> None:
        from .files import ConversationLoader

        ConversationLoader(ctx).load()

    def row_line(self, eval_set: EvalSet, row: Row) -> int | None:
        """An `.eval.ts` row's line: where its `new Eval(` is (the `.eval.json` ones are found as JSON)."""
        from .sources import ts_row_line

        return ts_row_line(eval_set.path, row.index, row.raw) if eval_set.path.name.endswith(TS_SUFFIX) else None

    async def execute(self, run: RowRun) -> RunOutcome:
        from .player import play

        return await play(run)

    def run_error(self, outcome: RunOutcome) -> str | None:
        """A conversation the target broke off (a turn timed out, crashed, broke the protocol) failed. One
        whose transcript had to be cut (`keep.py`) is never re-scored either: the cut record can't show a
        changed assertion what the whole turn showed."""
        stopped = outcome.output.get("stopped") if isinstance(outcome.output, dict) else None
        if isinstance(stopped, dict):
            return f"the conversation stopped: {stopped.get('error') or 'no reason given'}"
        if isinstance(outcome.output, dict) and outcome.output.get("cut"):
            return "its transcript was cut to keep it bounded (see the turns marked \"cut\")"
        return run_error(outcome)


__all__ = ["ConversationsDialect"]
