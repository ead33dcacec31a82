"""`workbench run --brief`: the agent digest of the iteration `run` just ran, for agents without MCP."""

from __future__ import annotations

import shlex

from ..config import Config
from ..events import IterationReport
from ..history import DB_NAME, HistoryError, HistoryStore
from .digest import Digest, build_digest
from .recorded import digest_of


def brief_text(config: Config, report: IterationReport) -> str:
    """The digest's text; the flips and loop status come from history when the run was recorded. Its hints
    name workbench commands, not MCP tools: an agent reading `--brief` has no `row()` to call."""
    stall_after = config.watch.stall_after
    digest: Digest | None = None
    if report.number is not None and (config.state_dir / DB_NAME).is_file():
        try:
            with HistoryStore.open(config) as store:
                digest = digest_of(store, report.number, report.project, stall_after, results=report.results,
                                   problems=report.problems, rescored=report.reused_rows,
                                   duration_s=report.duration_s, trigger=report.trigger.describe())
        except HistoryError:
            digest = None
    if digest is None:
        digest = build_digest(report.results, report.project, iteration=report.number, problems=report.problems,
                              rescored=report.reused_rows, duration_s=report.duration_s,
                              trigger=report.trigger.describe())
    digest.for_cli = True
    digest.next = cli_next(digest)
    return digest.text()


def cli_next(digest: Digest) -> str:
    """The `next` hint as a command: the first failing row's whole result through `run --row --reuse --json`
    (re-scored, not run, when nothing it depends on changed)."""
    if digest.next.startswith("row(") and digest.failing:
        first = digest.failing[0]
        return (f"workbench run --set {shlex.quote(first.set)} --row {shlex.quote(first.row)} --reuse --json for "
                "the first failing row's expected, actual and every difference")
    if digest.next.startswith("the selected rows pass"):
        return digest.next.replace("run() with no sets, rows, tags or failing_only",
                                   "`workbench run` with no --set, --row or --tag")
    return digest.next.replace("(check() lists them all)", "(`workbench check` lists them all)")
