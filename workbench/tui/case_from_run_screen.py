"""The history tab's `c`: turn the selected row's run in the highlighted iteration into a scripted case
(`evals/<name>.script.json`), previewed first. The use case is `workbench.actions.from_run` (shared
with `workbench add-row --from-run --script`); this screen only names, shows and confirms."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static

from ..actions.from_run import NewCase, RecordedRow, write_case
from ..actions.writing import Refused
from ..errors import WorkbenchError
from ..textsafe import one_line, printable, slug
from .write_worker import write_in_thread

Planner = Callable[[str], NewCase]  # the case for a name, or Refused


def default_case_name(recorded: RecordedRow) -> str:
    """A readable slug of the row's name (`score-50-passes-boundary`), not its UUID; the id when the name
    leaves nothing."""
    return slug(recorded.result.label) or recorded.result.row_id


class CaseFromRunScreen(ModalScreen[bool]):
    """Name (a slug of the row's name by default) → the case file as it will be written → Write. Dismisses
    True once written."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "confirm", "Write", show=False),
        Binding("escape", "cancel", "Cancel", show=False),
    ]

    def __init__(self, recorded: RecordedRow, plan: Planner) -> None:
        super().__init__()
        self.recorded = recorded
        self.plan = plan
        self.case: NewCase | None = None
        self.writing = False  # the case is being written (in a thread worker): cancel waits for it

    def compose(self) -> ComposeResult:
        with Vertical(id="case-from-run-box", classes="dialog"):
            title = Text("New scripted case from a recorded run\n", "bold")
            title.append(f"{one_line(self.recorded.where, 100)} · nothing runs again", "dim")
            yield Static(title)
            yield Label("Name (the file is evals/<name>.script.json)")
            yield Input(value=default_case_name(self.recorded), id="case-name")
            yield Static(id="case-status")
            with VerticalScroll(classes="dialog-scroll"):
                yield Static(id="case-preview")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Write it (ctrl+s)", variant="success", id="case-write", compact=True)
                yield Button("Cancel (Esc)", id="case-cancel", compact=True)

    def on_mount(self) -> None:
        self._replan(default_case_name(self.recorded))

    @on(Input.Changed, "#case-name")
    def _name_changed(self, event: Input.Changed) -> None:
        self._replan(event.value)

    def _replan(self, name: str) -> None:
        status = self.query_one("#case-status", Static)
        preview = self.query_one("#case-preview", Static)
        try:
            self.case = self.plan(name)
        except WorkbenchError as exc:
            self.case = None
            status.update(Text(printable(str(exc)), "red"))
            preview.update("")
        else:
            notes = "\n".join(f"note: {printable(note)}" for note in self.case.notes)
            status.update(Text(f"new file {printable(self.case.display)}" + (f"\n{notes}" if notes else ""),
                               "yellow" if notes else "green"))
            preview.update(Text(printable(self.case.text)))
        self.query_one("#case-write", Button).disabled = self.case is None

    @on(Button.Pressed, "#case-write")
    def action_confirm(self) -> None:
        case = self.case
        if case is None or self.writing:
            return
        self.writing = True
        self.query_one("#case-write", Button).disabled = True
        write_in_thread(self, partial(write_case, case), done=lambda _path: self._written(case),
                        refused=lambda exc: self._refused(case, exc), description="writing the new case")

    def _written(self, case: NewCase) -> None:
        self.writing = False
        self.app.notify(f"Added case {case.name!r} as {case.display}", timeout=4)
        self.dismiss(True)

    def _refused(self, case: NewCase, exc: Refused) -> None:
        self.writing = False
        self.app.notify(f"Not written: {exc}", severity="error", timeout=10)
        self._replan(case.name)

    @on(Button.Pressed, "#case-cancel")
    def action_cancel(self) -> None:
        if not self.writing:  # a write under way finishes first: its outcome is shown
            self.dismiss(False)
