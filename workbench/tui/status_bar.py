"""The status line: watching, paused (and how many changes wait) or stopped by an error, progress, how
many rows and results pass (of the rows this session runs), files that could not be read, what a partial
re-run found, the stalled warning, the filters.

When the line is too narrow it gives way by one rule, the same at every width: first the filter and a long
project name take their short forms (`[tag:smoke]`, the name cut to 16 cells with …), then whole parts are
left out, the least telling first — the re-scored count, the cluster, `○ not watching` (the loop isn't live:
no `● watching` says so too), the results count, the change since the last iteration, `workbench ·`, the
iteration number, the project's name, and last the filters. Never left out: the rows' pass count,
`● watching` (the one word that says the loop is live), paused or stopped, running, file problems and the
stalled warning. So at 100 columns a filtered session with a broken file keeps
`workbench · <project>` and `· iteration N`, and at 80 the demo keeps `● watching` and its counts.

The bar reads the counts from RunState and the watch state from the Session whenever the screen says
RunState changed (`state_changed`); what only it shows is its own state: the filters the sets pane last
announced (`SetsTree.FiltersChanged`) and whether the watcher stopped, as reactives that repaint it."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from ..cluster import ClusterStatus, cluster_status
from ..progress import IterationSummary
from ..session import Session
from ..textsafe import counted, one_line
from .state import Changes, RunState

# Ranks: when the line is too narrow, the part with the highest rank is left out first (the module's rule).
ESSENTIAL = 0  # the pass counts, watching (or paused, stopped, not watching), running, file problems, stalled
FILTERS, PROJECT, ITERATION, BRAND, CHANGE, RESULTS, NOT_WATCHING, CLUSTER, REUSED = 1, 2, 3, 4, 5, 6, 7, 8, 9
SHORT_PROJECT = 16  # a longer project name is cut to this (with …) before any part is left out


@dataclass(frozen=True, slots=True)
class Totals:
    """What the screen shows passing now: rows (every result of the row passes) and single results."""

    rows_passed: int
    rows_total: int
    results_passed: int
    results_total: int


def _counts(totals: Totals, last: IterationSummary | None, file_errors: int) -> list[tuple[int, Text]]:
    green = totals.rows_total and totals.rows_passed == totals.rows_total and not file_errors
    style = "green" if green else "red"
    parts = [(ESSENTIAL, Text(f"  {totals.rows_passed}/{totals.rows_total} rows pass", style))]
    if last is not None and not last.partial and last.change:
        parts.append((CHANGE, Text(f" ({last.change:+d})", style)))
    parts.append((RESULTS, Text(f" · {totals.results_passed}/{totals.results_total} results", style)))
    if last is not None and last.partial:  # `r` re-ran a few rows: say what they did, keep the totals
        rerun = "green" if last.rows_passed == last.rows_total else "red"
        parts.append((FILTERS, Text(f"  · re-run: {last.rows_passed}/{last.rows_total} rows pass", rerun)))
    return parts


class StatusBar(Widget):
    """One line; repainted in place (no layout pass) because it changes many times a second."""

    name_filter = reactive("", init=False)  # the sets pane's filter, as it last said (`SetsTree.FiltersChanged`)
    failures_only = reactive(False, init=False)
    watch_stopped = reactive(False, init=False)  # the watcher died and was not restarted: the line says so

    def __init__(self, state: RunState, session: Session, *, project: str, watching: bool,
                 id: str | None = None) -> None:
        super().__init__(id=id)
        self.state = state
        self.session = session
        self.project = project
        self.watching = watching  # this TUI watches files (`workbench open` without --no-watch)
        self._parts: list[tuple[int, Text]] = []
        self._shorter: list[tuple[int, Text]] = []  # (index in _parts, its short form), in the order they give way

    def watch_name_filter(self) -> None:
        self.update_status()

    def watch_failures_only(self) -> None:
        self.update_status()

    def watch_watch_stopped(self) -> None:
        self.update_status()

    def state_changed(self, _changes: Changes) -> None:
        """RunState changed (rows ran, an iteration began or was recorded): the counts follow."""
        self.update_status()

    def update_status(self) -> None:
        """Draw the line from RunState, the Session (paused, changes waiting, the cluster) and the bar's own state."""
        state, session = self.state, self.session
        summary = state.last_summary
        self.render_status(
            project=self.project, watching=self.watching, paused=session.paused, running=state.running,
            done=state.done_rows, total=state.total_rows, iteration=summary.number if summary else None,
            last=summary, failures_only=self.failures_only, name_filter=self.name_filter,
            watch_stopped=self.watch_stopped, cluster=cluster_status(session.config), totals=Totals(*state.totals()),
            waiting=len(session.pending_changes) if session.paused else 0, file_errors=state.file_errors())

    def render(self) -> Text:
        return self.fitted(self.size.width)

    def fitted(self, width: int) -> Text:
        """The parts that fit in `width` cells, leaving out the least important ones first."""
        parts = list(self._parts)
        for index, short in self._shorter:
            if sum(text.cell_len for _, text in parts) <= width:
                break
            parts[index] = (parts[index][0], short)
        while sum(text.cell_len for _, text in parts) > width and any(rank for rank, _ in parts):
            drop = max(range(len(parts)), key=lambda index: (parts[index][0], index))
            del parts[drop]
        line = Text()
        for _, text in parts:
            line.append_text(text)
        line.truncate(max(width, 0), overflow="ellipsis")
        return line

    @property
    def text(self) -> Text:
        """The whole line, as it shows on a wide terminal."""
        return self.fitted(10_000)

    def render_status(self, *, project: str, watching: bool, paused: bool, running: bool, done: int, total: int,
                      iteration: int | None, last: IterationSummary | None, failures_only: bool,
                      name_filter: str, watch_stopped: bool = False, cluster: ClusterStatus | None = None,
                      totals: Totals | None = None, waiting: int = 0, file_errors: int = 0) -> None:
        """`file_errors`: files the project could not read (a broken eval set): marked as file problems (the
        sets pane's word), never left out, since the counts then leave that file's rows out."""
        parts: list[tuple[int, Text]] = [(BRAND, Text(" workbench ·", "bold")),
                                         (PROJECT, Text(f" {one_line(project, 40)}", "bold"))]
        shorter: list[tuple[int, Text]] = []
        if len(project) > SHORT_PROJECT:
            shorter.append((1, Text(f" {one_line(project, SHORT_PROJECT)}", "bold")))
        if watch_stopped:
            parts.append((ESSENTIAL, Text.assemble(" ", (" ✖ watching stopped by an error — w restarts ",
                                                         "bold white on red"))))
        elif not watching:
            parts.append((NOT_WATCHING, Text("  ○ not watching", "dim")))
        elif paused:
            parts.append((ESSENTIAL, Text.assemble(" ", (" ⏸ paused ", "bold black on yellow"))))
            if waiting:
                parts.append((ESSENTIAL, Text(f" {waiting} change{'s' * (waiting != 1)} waiting (w runs them)",
                                              "yellow")))
        else:
            parts.append((ESSENTIAL, Text("  ● watching", "bold green")))
        if running:
            parts.append((ESSENTIAL, Text(f"  ◐ running {done}/{total} rows", "bold cyan")))
        if cluster is not None:  # rows on a Ray cluster: where, and how many of its CPUs they hold
            parts.append((CLUSTER, Text(f"  · {one_line(cluster.describe(), 60)}", "cyan")))
        if iteration is not None:
            parts.append((ITERATION, Text(f" · iteration {iteration}")))
        if totals is not None and totals.rows_total:
            parts += _counts(totals, last, file_errors)
        if file_errors:
            parts.append((ESSENTIAL, Text(f"  ⚠ {counted(file_errors, 'file problem')}", "bold yellow")))
        if last is not None and last.reused and not running:  # the next iteration's start clears it
            parts.append((REUSED, Text(f"  ↺ {last.reused} re-scored, {last.ran} run", "dim")))
        if last is not None and last.stalled_for:
            parts.append((ESSENTIAL, Text(f"  ⚠ stalled: no gain in {counted(last.stalled_for, 'iteration')}",
                                          "bold yellow")))
        if failures_only:
            parts.append((FILTERS, Text("  [failures only]", "bold magenta")))
        if name_filter:
            parts.append((FILTERS, Text(f"  [filter: {one_line(name_filter, 30)}]", "bold magenta")))
            shorter.insert(0, (len(parts) - 1, Text(f"  [{one_line(name_filter, 30)}]", "bold magenta")))
        if parts != self._parts or shorter != self._shorter:
            self._parts, self._shorter = parts, shorter
            self.refresh()
