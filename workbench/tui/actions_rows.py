"""The TUI's row actions (re-run, failures only, next failure, edit, copy): each reads the selection,
asks the Session or a pane to act, and tells the user what happened."""

from __future__ import annotations

import subprocess

from .. import jsonio
from ..engine import RowFilter
from ..events import Trigger
from ..model import RowKey
from ..runners.strays import unmarked_environ
from ..textsafe import one_line
from .editor import EDITOR_TIMEOUT_S, editor_argv, row_line
from .host import WorkbenchHost
from .repaint import render_status, row_label


def rerun_rows(app: WorkbenchHost, keys: frozenset[RowKey], what: str) -> None:
    """Queue an iteration of just these rows after whatever runs now."""
    app.session.request(Trigger("row", (what,)), RowFilter(row_keys=keys), replace=False)


def rerun_selected(app: WorkbenchHost) -> None:
    """`r`: the selected row, or every row of the selected set."""
    tree = app.sets_tree
    key = tree.selected_row
    if key is not None:
        rerun_rows(app, frozenset({key}), key[1])
        app.notify(f"Re-running '{row_label(app.state, key)}'", timeout=2)
    elif tree.selected_set is not None:
        scope, file_name = tree.selected_set
        rerun_rows(app, app.state.set_row_keys(scope, file_name), file_name)
        app.notify(f"Re-running {one_line(file_name, 60)}", timeout=2)
    else:
        app.notify("Select a row or a set to re-run it (R re-runs everything)", severity="warning")


def rerun_all(app: WorkbenchHost) -> None:
    app.session.request(Trigger("manual"))
    app.notify("Re-running every row", timeout=2)


def rerun_failures(app: WorkbenchHost) -> None:
    keys = app.state.failing_keys()
    if not keys:
        app.notify("No failing rows to re-run")
        return
    rerun_rows(app, keys, "failing rows")


def toggle_failures(app: WorkbenchHost) -> None:
    """`f`: show failing rows only (refused while nothing fails)."""
    tree = app.sets_tree
    tree.failures_only = not tree.failures_only
    if tree.failures_only and not app.state.any_failing():
        tree.failures_only = False
        app.notify("No failing rows: every row passes (or has not run yet)")
    tree.rebuild()
    render_status(app)


def jump_to_failure(app: WorkbenchHost, *, forward: bool) -> None:
    if app.sets_tree.jump_to_failure(forward=forward) is None:
        app.notify("No failing rows")


def edit_selected(app: WorkbenchHost) -> None:
    """`e`: suspend the TUI and open the row's file in $EDITOR at the row."""
    key = app.sets_tree.selected_row
    found = app.state.find_row(key) if key else None
    if found is None:
        app.notify("Select a row to open its eval-set file", severity="warning")
        return
    eval_set, row = found
    path = eval_set.source_of(row)
    argv = editor_argv(path, row_line(path, row.id, row.index))
    try:
        with app.suspend():
            subprocess.run(argv, timeout=EDITOR_TIMEOUT_S, check=False, env=unmarked_environ())
    except FileNotFoundError:
        app.notify(f"Editor not found: {one_line(argv[0], 60)} (set $EDITOR)", severity="error")
    except subprocess.TimeoutExpired:
        app.notify("The editor was still open after 12 hours and was stopped", severity="warning")
    except Exception as exc:  # SuspendNotSupported and friends: say so instead of crashing
        app.notify(f"Cannot open an editor here: {one_line(str(exc), 100)}", severity="error")
    app.refresh()


def copy_selected(app: WorkbenchHost, field: str, what: str) -> None:
    """`y` (actual) / palette (expected): the selected result's value as JSON on the clipboard."""
    result = app.detail.current_result if app.sets_tree.selected_row else None
    value = None if result is None else getattr(result, field)
    if value is None:
        app.notify(f"No {what} to copy for the selected row", severity="warning")
        return
    text = jsonio.dumps(value, indent=True)
    app.copy_to_clipboard(text)
    app.notify(f"Copied the {what} ({len(text)} characters)", timeout=2)
