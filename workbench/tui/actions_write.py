"""`a` (accept) and `+` (add a row): pick what the user pointed at, ask `workbench.actions` for the
change, and show it in a confirmation screen. After a write the watcher re-runs what changed; without
one, the app asks for that run itself."""

from __future__ import annotations

import asyncio

from ..actions.accept import preview_accept
from ..actions.accept_bulk import BulkPreview, preview_failing
from ..engine import RowFilter
from ..errors import WorkbenchError
from ..events import Trigger
from ..model import Project, Result, RowKey, Verdict
from .bulk_accept_screen import BulkAcceptScreen
from .host import WorkbenchHost
from .writeback_screens import AcceptScreen, AddRowScreen


def accept_selected(app: WorkbenchHost) -> None:
    key = app.sets_tree.selected_row
    found = app.state.find_row(key) if key else None
    project = app.state.project
    if key is None or found is None or project is None:
        app.notify("Select a failing row to accept its actual output", severity="warning")
        return
    eval_set, row = found
    if app.state.row_verdict(eval_set, row) is Verdict.PASS:
        app.notify("This row passes: its expectation already matches the output")
        return
    try:
        preview = preview_accept(project, eval_set, row, app.state.row_results(eval_set, row))
    except WorkbenchError as exc:
        app.notify(f"Cannot accept: {exc}", severity="error", timeout=10)
        return
    if not preview.changed:
        app.notify("Nothing to change: the file already holds this output as the expectation")
        return
    app.push_screen(AcceptScreen(preview), lambda written: after_write(app, bool(written), key))


def bulk_accept(app: WorkbenchHost) -> None:
    """`A`: walk the failing rows shown (every one, or those the filters leave), one diff at a time."""
    project, state = app.state.project, app.state
    failing = {key for key in app.sets_tree.visible_rows()
               if (found := state.find_row(key)) and state.is_failing(*found)}
    if project is None or not failing:
        app.notify("No failing rows to accept" + (" among the rows shown" if app.sets_tree.filtering else ""))
        return
    results = [result for result in state.results.values() if result.row_key in failing]
    app.run_worker(_preview_then_walk(app, project, results), group="bulk-accept", exclusive=True,
                   exit_on_error=False, description="previewing the failing rows")


async def _preview_then_walk(app: WorkbenchHost, project: Project, results: list[Result]) -> None:
    bulk: BulkPreview = await asyncio.to_thread(preview_failing, project, results)
    if bulk.skipped:
        reasons = "\n".join(f"skipped {reason}" for reason in bulk.skipped[:5])
        more = f"\n… and {len(bulk.skipped) - 5} more" if len(bulk.skipped) > 5 else ""
        app.notify(reasons + more, title="Not offered", severity="warning", timeout=12)
    if not bulk.previews:
        app.notify("None of the failing rows can be accepted", severity="warning")
        return
    app.push_screen(BulkAcceptScreen(bulk), lambda written: after_write(app, bool(written), None))


def add_row(app: WorkbenchHost) -> None:
    """`+`: a new row in the selected set (the first set when none is selected)."""
    project = app.state.project
    if project is None or not project.sets:
        app.notify("There is no eval set to add a row to", severity="warning")
        return
    selected = app.sets_tree.selected_set
    eval_set = next((s for s in project.sets if (s.scope, s.file_name) == selected), project.sets[0])
    session = app.session
    screen = AddRowScreen(lambda: session.config, project, eval_set, session.engine.runner_factory)
    app.push_screen(screen, lambda written: after_write(app, bool(written), None))


def after_write(app: WorkbenchHost, written: bool, key: RowKey | None) -> None:
    """The watcher picks the change up by itself; without one, run what changed now."""
    if not written or (app.watching and not app.session.paused and not app.watch_stopped):
        return
    if key is not None:
        app.session.request(Trigger("row", (key[1],)), RowFilter(row_keys=frozenset({key})), replace=False)
    else:
        app.session.request(Trigger("manual"))
