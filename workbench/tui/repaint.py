"""RunState → panes: what the main screen repaints when the engine reports, and when the selection moves.

The app's engine-message handlers call these (downwards); nothing here calls back into the app."""

from __future__ import annotations

from rich.text import Text

from ..cluster import cluster_status
from ..model import RowKey
from ..textsafe import counted, one_line, printable
from .evaluators_pane import EvaluatorsTable
from .messages import IterationDone
from .panes import Panes
from .state import RunState
from .status_bar import StatusBar, Totals


def row_label(state: RunState, key: RowKey) -> str:
    """The row's display name for notices and the log title (its id if it is gone)."""
    found = state.find_row(key)
    return one_line(found[1].label, 60) if found else key[2]


class Repaint(Panes):
    def apply_changes(self) -> None:
        """Repaint only what changed since the last repaint: the tree's shape or some rows, the log, the status."""
        changes = self.state.drain()
        tree = self.sets_tree
        if changes.structure:
            tree.rebuild()
            self.query_one("#evaluators-table", EvaluatorsTable).show(self.state.project)
            self.show_selected()
        elif changes.rows or changes.sets:
            tree.refresh_rows(changes.rows, changes.sets)
            if tree.selected_row in changes.rows:
                self.detail.refresh_detail()
        log = self.run_log
        if log.row is not None and log.row in changes.logs:
            log.catch_up(log.row, self.state.logs, row_label(self.state, log.row))
        self.render_status()

    def render_status(self) -> None:
        tree, summary, session = self.sets_tree, self.last_summary, self.session
        self.query_one("#status", StatusBar).render_status(
            project=self.config.root.name, watching=self.watching, paused=session.paused,
            running=self.state.running, done=self.state.done_rows, total=self.state.total_rows,
            iteration=summary.number if summary else None, last=summary,
            failures_only=tree.failures_only, name_filter=tree.name_filter, watch_stopped=self.watch_stopped,
            cluster=cluster_status(session.config), totals=Totals(*self.state.totals()),
            waiting=len(session.pending_changes) if session.paused else 0, file_errors=self.state.file_errors())

    def watch_watch_stopped(self) -> None:
        self.render_status()

    def show_selected(self) -> None:
        """The detail and the log follow the tree's cursor (a row, or a file problem)."""
        key = self.sets_tree.selected_row
        problem = self.sets_tree.selected_problem
        if problem is not None:
            text = Text("File problem\n", "bold yellow")
            text.append(f"{printable(problem.file)}\n\n", "bold")
            text.append(printable(problem.message))
            self.detail.show_message(text)
        else:
            self.detail.show(self.state.find_row(key) if key else None)
        log = self.run_log
        if key is None or key != log.row:
            log.show(key, self.state.logs, row_label(self.state, key) if key else "")
        else:
            log.catch_up(key, self.state.logs, row_label(self.state, key))

    def iteration_done(self, message: IterationDone) -> None:
        """An iteration was recorded: count it, list it in the history, say what needs attention."""
        self.last_summary = message.summary
        self.iterations_done += 1
        self.history_pane.reload(self.session.history)
        self._mark_flaky(message)
        self._report_problems(message)
        self._end_failures_only()
        tree = self.sets_tree
        if self.iterations_done == 1 and not tree.moved_by_user:  # open where the work is, once
            tree.defer(tree.select_first_failure)  # after any rebuild has put its cursor back
        self.render_status()

    def _mark_flaky(self, message: IterationDone) -> None:
        """History found rows flaky over time as it recorded the iteration: their rows show it now."""
        flaky: set[RowKey] = set()
        for result in message.report.results:
            shown = self.state.results.get(result.key)
            # the shown result may be the report's own object, which history marked after its row was drawn: a
            # row marked flaky is drawn again either way (comparing the two would miss it)
            if shown is not None and (shown.flaky_since != result.flaky_since or result.flaky_since is not None):
                shown.flaky_since = result.flaky_since
                flaky.add(result.row_key)
        if flaky:
            self.sets_tree.refresh_rows(flaky)
            self.detail.refresh_detail()

    def _report_problems(self, message: IterationDone) -> None:
        errors = [p for p in message.report.problems if p.severity == "error"]
        if errors:
            self.notify(f"{len(errors)} file problem{'s' if len(errors) != 1 else ''}: "
                        f"{one_line(errors[0].file, 60)} — {one_line(errors[0].message, 120)}",
                        severity="error", timeout=6)
        if message.summary.stalled_for:
            self.notify(f"Stalled: no improvement in passes for {counted(message.summary.stalled_for, 'iteration')}",
                        severity="warning", timeout=6)

    def _end_failures_only(self) -> None:
        """A failures-only view shows the rows that fail now; once every shown row passes it ends."""
        tree = self.sets_tree
        if not tree.failures_only:
            return
        shown = [self.state.find_row(key) for key in tree.visible_rows()]
        if all(found is None or not self.state.is_failing(*found) for found in shown):
            self.notify("Every shown row passes — showing all rows again", timeout=4)
            tree.failures_only = False  # its watcher rebuilds the tree
        else:
            tree.rebuild()
