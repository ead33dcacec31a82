"""`a` and `+`: the two edits of the user's eval-set files the TUI makes, each behind a confirmation
that shows exactly what will change. The use cases themselves are `workbench.actions` (shared with the
CLI); these screens only ask, show and confirm."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static

from .. import jsonio
from ..actions.accept import AcceptPreview
from ..actions.add_row import (
    NewRow,
    RunFailed,
    check_new_criteria,
    check_new_row,
    criteria_to_ask,
    example_criterion,
    example_inputs,
    try_new_row,
)
from ..actions.writing import Refused, write_plan
from ..config import Config
from ..engine import RunnerFactory
from ..errors import WorkbenchError
from ..model import EvalSet, Project
from ..textsafe import one_line, printable
from ..writeback import WritePlan
from ..writeback.add_row import parse_criterion
from .labels import project_file
from .write_worker import write_in_thread


def diff_text(plan: WritePlan) -> Text:
    """The plan's unified diff, coloured like `git diff`, shown literally."""
    text = Text()
    for line in plan.diff().splitlines():
        style = ("bold" if line.startswith(("+++", "---")) else "green" if line.startswith("+")
                 else "red" if line.startswith("-") else "cyan" if line.startswith("@@") else "")
        text.append(printable(line, keep_newlines=False) + "\n", style)
    return text


def accept_written(written: WritePlan) -> str:
    """The notification once an accepted output is in its file."""
    refs = ", ".join(change.label for change in written.changes) or "nothing"
    return f"Accepted as expected ({refs}) in {written.display}"


class AcceptScreen(ModalScreen[bool]):
    """Confirm writing a row's actual output as its expected output. Dismisses True when confirmed."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y,enter", "confirm", "Write", show=False),
        Binding("n,escape", "cancel", "Cancel", show=False),
    ]

    def __init__(self, preview: AcceptPreview) -> None:
        super().__init__()
        self.preview = preview

    def compose(self) -> ComposeResult:
        preview = self.preview
        with Vertical(id="accept-box", classes="dialog"):
            title = Text("Accept the actual output as expected\n", "bold")
            title.append(f"row {one_line(preview.label, 80)} · {preview.plan.display}", "dim")
            yield Static(title)
            with VerticalScroll(classes="dialog-scroll"):
                yield Static(diff_text(preview.plan), id="accept-diff")
                if preview.notes:
                    yield Static(Text("\n".join(f"note: {printable(n)}" for n in preview.notes), "yellow"))
            yield Static(Text("Only these lines change; everything else in the file stays byte for byte.", "dim"))
            with Horizontal(classes="dialog-buttons"):
                yield Button("Write it (y)", variant="success", id="accept-write", compact=True)
                yield Button("Cancel (n / Esc)", id="accept-cancel", compact=True)

    @on(Button.Pressed, "#accept-write")
    def action_confirm(self) -> None:
        """Confirmed: the caller writes (in a thread worker: `accept_written` / `accept_refused` say how it went)."""
        self.dismiss(True)

    @on(Button.Pressed, "#accept-cancel")
    def action_cancel(self) -> None:
        self.dismiss(False)


class AddRowScreen(ModalScreen[bool]):
    """Name and inputs (JSON, validated as you type) → run the target → show the output → append.

    The placeholders come from the set's own rows, and an evaluator that doesn't compare with
    expectedOutput (uipath-contains, ...) gets a field of its own for the new row's criterion: none
    can be built from the output. The run uses the settings as they are when Run is pressed
    (`settings()` is the session's current config, and the use case re-reads workbench.toml on top).

    Tab and Shift+Tab are priority bindings here. Textual hands each key to the focused widget's own
    queue when the app takes it, and an ordinary Tab binding only runs once that widget has passed the
    Tab back up: keys typed right after a quick Tab were by then already queued for the name field, so
    the inputs landed in the name about one time in three. A priority binding moves the focus when the
    app takes the Tab, before the next key is handed on. (The name field also gets the focus as the
    screen is composed, not from a deferred `focus()` in `on_mount`.)"""

    AUTO_FOCUS = "#add-name"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", show=False),
        Binding("ctrl+r", "run", "Run", show=False),
        Binding("tab", "app.focus_next", "Next field", show=False, priority=True),
        Binding("shift+tab", "app.focus_previous", "Previous field", show=False, priority=True),
    ]

    def __init__(self, settings: Callable[[], Config], project: Project, eval_set: EvalSet,
                 runner_factory: RunnerFactory) -> None:
        super().__init__()
        self.settings = settings
        self.project = project
        self.eval_set = eval_set
        self.runner_factory = runner_factory
        self.new_row: NewRow | None = None
        self.ran = False  # the target ran (or runs) on the values as they are: Enter won't run it again
        self.writing = False  # the row is being written (in a thread worker): cancel waits for it
        self.asked = criteria_to_ask(project, eval_set)  # evaluators whose criterion the user types

    def compose(self) -> ComposeResult:
        with Vertical(id="add-row-box", classes="dialog"):
            title = Text("New row", "bold")
            where = project_file(self.project.root, self.eval_set.path, 60)
            title.append(f"  appended to {where}; expectations built from one run's output", "dim")
            yield Static(title)
            with Horizontal(classes="form-row"):
                yield Label("Name", classes="form-label")
                yield Input(placeholder="what this case checks", id="add-name")
            with Horizontal(classes="form-row"):
                yield Label("Inputs", classes="form-label")
                yield Input(placeholder=example_inputs(self.eval_set), id="add-inputs")
            for index, evaluator in enumerate(self.asked):
                with Horizontal(classes="form-row"):
                    yield Label(one_line(evaluator.ref, 14), classes="form-label")
                    yield Input(placeholder=example_criterion(self.eval_set, evaluator.ref),
                                id=f"add-criterion-{index}",
                                tooltip=f"the new row's criterion for {evaluator.ref} ({evaluator.type_id})")
            yield Static(id="add-status")
            with VerticalScroll(classes="dialog-scroll"):
                yield Static(id="add-preview")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Run (ctrl+r)", variant="primary", id="add-run", compact=True)
                yield Button("Append row", variant="success", id="add-append", disabled=True, compact=True)
                yield Button("Cancel (Esc)", id="add-cancel", compact=True)

    def _status(self, text: str, style: str) -> None:
        self.query_one("#add-status", Static).update(Text(printable(text), style))

    def _checked(self) -> tuple[str, dict[str, Any], dict[str, Any]]:
        """The name, the parsed inputs and the typed criteria, or a WorkbenchError saying what to fix."""
        name = self.query_one("#add-name", Input).value.strip()
        inputs = check_new_row(self.eval_set, name, self.query_one("#add-inputs", Input).value or "")
        criteria = {evaluator.ref: parse_criterion(evaluator.ref, text)
                    for index, evaluator in enumerate(self.asked)
                    if (text := self.query_one(f"#add-criterion-{index}", Input).value.strip())}
        check_new_criteria(self.project, self.eval_set, criteria)
        return name, inputs, criteria

    @on(Input.Changed)
    def _validate(self, _event: Input.Changed) -> None:
        self.new_row = None
        self.ran = False  # new values: Enter may run them
        self.query_one("#add-append", Button).disabled = True
        try:
            self._checked()
        except WorkbenchError as exc:
            self._status(str(exc), "yellow")
            return
        self._status("ready: press Run to run the target on these inputs", "green")

    @on(Input.Submitted)
    def _submitted(self, _event: Input.Submitted) -> None:
        """Enter in a field runs the target only when nothing has run on these values yet: after a run (or
        during one) it never runs it again — ctrl+r or the Run button does that."""
        if self.running:
            self._status("the target is running on these inputs…", "cyan")
        elif self.ran:
            self._status("already run on these inputs: Append writes the row, ctrl+r runs the target again", "green")
        else:
            self.action_run()

    @property
    def running(self) -> bool:
        return any(worker.group == "add-row" and not worker.is_finished for worker in self.workers)

    @on(Button.Pressed, "#add-run")
    def action_run(self) -> None:
        if self.running:
            return  # one run at a time: a second would cancel the first
        try:
            name, inputs, criteria = self._checked()
        except WorkbenchError as exc:
            self._status(str(exc), "bold red")
            return
        self._status("running the target…", "cyan")
        self.ran = True
        self.query_one("#add-run", Button).disabled = True
        self._run(name, inputs, criteria)

    @work(exclusive=True, group="add-row", exit_on_error=False, description="running the target for a new row")
    async def _run(self, name: str, inputs: dict[str, Any], criteria: dict[str, Any]) -> None:
        preview = self.query_one("#add-preview", Static)
        try:
            self.new_row = await try_new_row(self.settings(), self.project, self.eval_set, name, inputs,
                                             runner_factory=self.runner_factory, criteria=criteria)
        except RunFailed as exc:
            self._status("the run failed, so there is no output to build the row from", "bold red")
            preview.update(Text(printable(exc.detail), "red"))
            return
        except WorkbenchError as exc:
            self._status(str(exc), "bold red")
            return
        finally:
            self.query_one("#add-run", Button).disabled = False
        preview.update(self._preview(self.new_row))
        self._status("check the output; Append writes the row", "green")
        self.query_one("#add-append", Button).disabled = False

    @staticmethod
    def _preview(new_row: NewRow) -> Text:
        text = Text("output\n", "bold")
        text.append(printable(jsonio.dumps(new_row.run.output, indent=True)) + "\n\n")
        text.append("the row to append\n", "bold")
        text.append_text(diff_text(new_row.plan))
        for note in new_row.notes:
            text.append(f"\nnote: {printable(note)}", "yellow")
        return text

    @on(Button.Pressed, "#add-append")
    def _append(self) -> None:
        if self.new_row is None or self.writing:
            return
        self.writing = True
        self.query_one("#add-append", Button).disabled = True
        self._status("writing the row…", "cyan")
        write_in_thread(self, partial(write_plan, self.new_row.plan), done=self._appended, refused=self._refused,
                        description="appending the new row")

    def _appended(self, written: WritePlan) -> None:
        self.writing = False
        self.app.notify(f"Row appended to {written.display}", timeout=4)
        self.dismiss(True)

    def _refused(self, exc: Refused) -> None:
        self.writing = False
        self.query_one("#add-append", Button).disabled = False
        self._status(f"not written: {exc}", "bold red")

    @on(Button.Pressed, "#add-cancel")
    def action_cancel(self) -> None:
        if not self.writing:  # a write under way finishes first: its outcome is shown here
            self.dismiss(False)
