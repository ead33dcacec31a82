"""The main screen's write keys: `a` (accept), `A` (accept every failing row shown), `+` (add a row) and `c`
(the row's recorded run as a scripted case). Each picks what the user pointed at, asks `workbench.actions`
for the change, and shows it in a confirmation screen; files are read and written in workers, off the UI
loop (a write waits for its set's lock). After a write, `Panes.Written` goes up: the app re-runs what
changed unless the watcher will."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import partial

from ..actions.accept import AcceptPreview, preview_accept
from ..actions.accept_bulk import BulkPreview, preview_failing
from ..actions.from_run import RecordedRow, plan_script_case, recorded_row
from ..actions.writing import Refused, write_plan
from ..config import Config
from ..errors import WorkbenchError
from ..model import Project, Result, RowKey, Verdict
from ..project import load_project
from ..writeback import WritePlan
from .bulk_accept_screen import BulkAcceptScreen
from .case_from_run_screen import CaseFromRunScreen
from .panes import Panes
from .write_worker import write_in_thread
from .writeback_screens import AcceptScreen, AddRowScreen, accept_written


class WriteKeys(Panes):
    def _written(self, written: bool | int | None, row: RowKey | None = None) -> None:
        if written:
            self.post_message(self.Written(row))

    # -- a -------------------------------------------------------------------------------------------

    def action_accept(self) -> None:
        key = self.sets_tree.selected_row
        found = self.state.find_row(key) if key else None
        project = self.state.project
        if key is None or found is None or project is None:
            self.notify("Select a failing row to accept its actual output", severity="warning")
            return
        eval_set, row = found
        if self.state.row_verdict(eval_set, row) is Verdict.PASS:
            self.notify("This row passes: its expectation already matches the output")
            return
        results = self.state.row_results(eval_set, row)
        self.run_worker(self._preview_accept(key, partial(preview_accept, project, eval_set, row, results)),
                        group="accept", exclusive=True, exit_on_error=False,
                        description="previewing the accepted output")

    async def _preview_accept(self, key: RowKey, preview_it: Callable[[], AcceptPreview]) -> None:
        """Read the file and plan the change in a thread, then ask (the file may be large, or on a slow disk)."""
        try:
            preview = await asyncio.to_thread(preview_it)
        except WorkbenchError as exc:
            self.notify(f"Cannot accept: {exc}", severity="error", timeout=10)
            return
        if not preview.changed:
            self.notify("Nothing to change: the file already holds this output as the expectation")
            return
        self.app.push_screen(AcceptScreen(preview), lambda confirmed: self._write_accepted(preview, key)
                             if confirmed else None)

    def _write_accepted(self, preview: AcceptPreview, key: RowKey) -> None:
        """Write the confirmed change in a thread worker (the set's lock may wait); say how it went."""

        def written(plan: WritePlan) -> None:
            self.notify(accept_written(plan), timeout=4)
            self._written(True, key)

        def refused(exc: Refused) -> None:
            self.notify(f"Not written: {exc}", severity="error", timeout=10)

        write_in_thread(self, partial(write_plan, preview.plan), done=written, refused=refused,
                        description="writing the accepted output")

    # -- A -------------------------------------------------------------------------------------------

    def action_bulk_accept(self) -> None:
        """`A`: walk the failing rows shown (every one, or those the filters leave), one diff at a time."""
        project, state, tree = self.state.project, self.state, self.sets_tree
        failing = {key for key in tree.visible_rows() if (found := state.find_row(key)) and state.is_failing(*found)}
        if project is None or not failing:
            self.notify("No failing rows to accept" + (" among the rows shown" if tree.filtering else ""))
            return
        results = [result for result in state.results.values() if result.row_key in failing]
        self.run_worker(self._preview_then_walk(project, results), group="bulk-accept", exclusive=True,
                        exit_on_error=False, description="previewing the failing rows")

    async def _preview_then_walk(self, project: Project, results: list[Result]) -> None:
        bulk: BulkPreview = await asyncio.to_thread(preview_failing, project, results)
        if bulk.skipped:
            reasons = "\n".join(f"skipped {reason}" for reason in bulk.skipped[:5])
            more = f"\n… and {len(bulk.skipped) - 5} more" if len(bulk.skipped) > 5 else ""
            self.notify(reasons + more, title="Not offered", severity="warning", timeout=12)
        if not bulk.previews:
            self.notify("None of the failing rows can be accepted", severity="warning")
            return
        self.app.push_screen(BulkAcceptScreen(bulk), self._written)

    # -- + -------------------------------------------------------------------------------------------

    def action_add_row(self) -> None:
        """`+`: a new row in the selected set (the first set when none is selected)."""
        project = self.state.project
        if project is None or not project.sets:
            self.notify("There is no eval set to add a row to", severity="warning")
            return
        selected = self.sets_tree.selected_set
        eval_set = next((s for s in project.sets if (s.scope, s.file_name) == selected), project.sets[0])
        session = self.session
        screen = AddRowScreen(lambda: session.config, project, eval_set, session.engine.runner_factory)
        self.app.push_screen(screen, self._written)

    # -- c -------------------------------------------------------------------------------------------

    def action_case_from_run(self) -> None:
        """`c`: the selected row's run in the history tab's highlighted iteration, as a new scripted case.
        History is read in a thread worker; the case is previewed in `CaseFromRunScreen` before it is
        written. The use case is `workbench.actions.from_run` (shared with `add-row --from-run --script`)."""
        key = self.sets_tree.selected_row
        iteration = self.history_pane.selected_iteration
        if key is None:
            self.notify("Select a row, then press c to turn its recorded run into a scripted case",
                        severity="warning")
            return
        if iteration is None:
            self.notify("No iteration is recorded yet: run once, then pick one in the history tab (2)",
                        severity="warning")
            return
        config = self.session.config
        self.run_worker(partial(self._read_run, config, iteration, RowKey(*key)), thread=True,
                        group="case-from-run", exit_on_error=False, description="reading the run from the history")

    def _read_run(self, config: Config, iteration: int, key: RowKey) -> None:
        try:
            recorded = recorded_row(config, iteration, key)
            project = load_project(config.root, config)
        except WorkbenchError as exc:
            self.app.call_from_thread(self.notify, f"No case made: {exc}", severity="error", timeout=10)
            return
        self.app.call_from_thread(self._open_case, config, project, recorded)

    def _open_case(self, config: Config, project: Project, recorded: RecordedRow) -> None:
        screen = CaseFromRunScreen(recorded, lambda name: plan_script_case(config, project, recorded, name))
        self.app.push_screen(screen, self._written)
