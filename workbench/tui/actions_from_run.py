"""`c`: the selected row's run in the history tab's highlighted iteration, as a new scripted case.
History is read in a thread worker; the case is previewed in `CaseFromRunScreen` before it is written.
The use case is `workbench.actions.from_run`, shared with `workbench add-row --from-run --script`."""

from __future__ import annotations

from ..actions.from_run import RecordedRow, plan_script_case, recorded_row
from ..config import Config
from ..errors import WorkbenchError
from ..model import Project, RowKey
from ..project import load_project
from .actions_write import after_write
from .case_from_run_screen import CaseFromRunScreen
from .host import WorkbenchHost


def case_from_run(app: WorkbenchHost) -> None:
    key = app.sets_tree.selected_row
    iteration = app.history_pane.selected_iteration
    if key is None:
        app.notify("Select a row, then press c to turn its recorded run into a scripted case", severity="warning")
        return
    if iteration is None:
        app.notify("No iteration is recorded yet: run once, then pick one in the history tab (2)", severity="warning")
        return
    app.run_worker(lambda: _read(app, iteration, RowKey(*key)), thread=True, group="case-from-run",
                   exit_on_error=False, description="reading the run from the history")


def _read(app: WorkbenchHost, iteration: int, key: RowKey) -> None:
    config = app.session.config
    try:
        recorded = recorded_row(config, iteration, key)
        project = load_project(config.root, config)
    except WorkbenchError as exc:
        app.call_from_thread(app.notify, f"No case made: {exc}", severity="error", timeout=10)
        return
    app.call_from_thread(_open, app, config, project, recorded)


def _open(app: WorkbenchHost, config: Config, project: Project, recorded: RecordedRow) -> None:
    screen = CaseFromRunScreen(recorded, lambda name: plan_script_case(config, project, recorded, name))
    app.push_screen(screen, lambda written: after_write(app, bool(written), None))
