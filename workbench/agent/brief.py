"""`workbench run --brief`: the agent digest of the iteration `run` just ran, for agents without MCP."""

from __future__ import annotations

from ..config import Config
from ..events import IterationReport
from ..history import DB_NAME, HistoryError, HistoryStore
from .digest import build_digest
from .recorded import digest_of


def brief_text(config: Config, report: IterationReport) -> str:
    """The digest's text; the flips and loop status come from history when the run was recorded."""
    stall_after = config.watch.stall_after
    if report.number is not None and (config.state_dir / DB_NAME).is_file():
        try:
            with HistoryStore.open(config) as store:
                return digest_of(store, report.number, report.project, stall_after, results=report.results,
                                 problems=report.problems, rescored=report.reused_rows,
                                 duration_s=report.duration_s, trigger=report.trigger.describe()).text()
        except HistoryError:
            pass
    return build_digest(report.results, report.project, iteration=report.number, problems=report.problems,
                        rescored=report.reused_rows, duration_s=report.duration_s,
                        trigger=report.trigger.describe()).text()
