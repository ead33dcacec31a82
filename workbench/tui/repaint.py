"""RunState → panes: what the app repaints when the engine reports, and when the selection moves.

Plain functions over the app's public parts (its panes, `state`, `session`), so `app.py` only wires
messages to them."""

from __future__ import annotations

from rich.text import Text

from ..cluster import cluster_status
from ..model import RowKey
from ..textsafe import one_line, printable
from .evaluators_pane import EvaluatorsTable
from .host import WorkbenchHost
from .log_pane import RunLog
from .messages import IterationDone
from .state import RunState
from .status_bar import StatusBar, Totals


def row_label(state: RunState, key: RowKey) -> str:
    """The row's display name for notices and the log title (its id if it is gone)."""
    found = state.find_row(key)
    return one_line(found[1].label, 60) if found else key[2]


def apply_changes(app: WorkbenchHost) -> None:
    """Repaint only what changed since the last repaint: the tree's shape or some rows, the log, the status."""
    changes = app.state.drain()
    tree = app.sets_tree
    if changes.structure:
        tree.rebuild()
        app.query_one("#evaluators-table", EvaluatorsTable).show(app.state.project)
        show_selected(app)
    elif changes.rows or changes.sets:
        tree.refresh_rows(changes.rows, changes.sets)
        if tree.selected_row in changes.rows:
            app.detail.refresh_detail()
    log = app.query_one("#run-log", RunLog)
    if log.row is not None and log.row in changes.logs:
        log.catch_up(log.row, app.state.logs, row_label(app.state, log.row))
    render_status(app)


def render_status(app: WorkbenchHost) -> None:
    tree, summary = app.sets_tree, app.last_summary
    app.query_one("#status", StatusBar).render_status(
        project=app.config.root.name, watching=app.watching, paused=app.session.paused,
        running=app.state.running, done=app.state.done_rows, total=app.state.total_rows,
        iteration=summary.number if summary else None, last=summary,
        failures_only=tree.failures_only, name_filter=tree.name_filter, watch_stopped=app.watch_stopped,
        cluster=cluster_status(app.session.config), totals=Totals(*app.state.totals()),
        waiting=len(app.session.pending_changes) if app.session.paused else 0)


def show_selected(app: WorkbenchHost) -> None:
    """The detail and the log follow the tree's cursor (a row, or a file problem)."""
    key = app.sets_tree.selected_row
    problem = app.sets_tree.selected_problem
    if problem is not None:
        text = Text("File problem\n", "bold yellow")
        text.append(f"{printable(problem.file)}\n\n", "bold")
        text.append(printable(problem.message))
        app.detail.show_message(text)
    else:
        app.detail.show(app.state.find_row(key) if key else None)
    log = app.query_one("#run-log", RunLog)
    if key is None or key != log.row:
        log.show(key, app.state.logs, row_label(app.state, key) if key else "")
    else:
        log.catch_up(key, app.state.logs, row_label(app.state, key))


def after_iteration(app: WorkbenchHost, message: IterationDone) -> None:
    """Say what an iteration found that needs attention, and end a failures-only view once all pass."""
    errors = [p for p in message.report.problems if p.severity == "error"]
    if errors:
        app.notify(f"{len(errors)} file problem{'s' if len(errors) != 1 else ''}: "
                   f"{one_line(errors[0].file, 60)} — {one_line(errors[0].message, 120)}",
                   severity="error", timeout=6)
    if message.summary.stalled_for:
        app.notify(f"Stalled: no improvement in passes for {message.summary.stalled_for} iterations",
                   severity="warning", timeout=6)
    tree = app.sets_tree
    if tree.failures_only:
        shown = [app.state.find_row(key) for key in tree.visible_rows()]
        if all(found is None or not app.state.is_failing(*found) for found in shown):
            tree.failures_only = False
            app.notify("Every shown row passes — showing all rows again", timeout=4)
        tree.rebuild()
    if app.iterations_done == 1 and not tree.moved_by_user:  # open where the work is, once
        tree.defer(tree.select_first_failure)  # after any rebuild has put its cursor back
