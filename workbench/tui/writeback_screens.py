"""`a` and `+`: the two edits of the user's eval-set files the TUI makes, each behind a confirmation
that shows exactly what will change. The editing itself is `workbench.writeback` (shared with the CLI)."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static

from .. import jsonio
from ..config import Config
from ..engine import RunnerFactory
from ..model import EvalSet, EvaluatorDef
from ..textsafe import one_line, printable
from ..writeback import WritebackError, WritePlan, apply_plan
from ..writeback.add_row import build_row, parse_inputs, plan_add_row, run_target_on


def diff_text(plan: WritePlan) -> Text:
    """The plan's unified diff, coloured like `git diff`, shown literally."""
    text = Text()
    for line in plan.diff().splitlines():
        style = ("bold" if line.startswith(("+++", "---")) else "green" if line.startswith("+")
                 else "red" if line.startswith("-") else "cyan" if line.startswith("@@") else "")
        text.append(printable(line, keep_newlines=False) + "\n", style)
    return text


class AcceptScreen(ModalScreen[bool]):
    """Confirm writing a row's actual output as its expected output. Dismisses True once written."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y,enter", "confirm", "Write", show=False),
        Binding("n,escape", "cancel", "Cancel", show=False),
    ]

    def __init__(self, plan: WritePlan, label: str, notes: list[str]) -> None:
        super().__init__()
        self.plan = plan
        self.label = label
        self.notes = notes

    def compose(self) -> ComposeResult:
        with Vertical(id="accept-box", classes="dialog"):
            title = Text("Accept the actual output as expected\n", "bold")
            title.append(f"row {one_line(self.label, 80)} · {self.plan.display}", "dim")
            yield Static(title)
            with VerticalScroll(classes="dialog-scroll"):
                yield Static(diff_text(self.plan), id="accept-diff")
                if self.notes:
                    yield Static(Text("\n".join(f"note: {printable(n)}" for n in self.notes), "yellow"))
            yield Static(Text("Only these lines change; everything else in the file stays byte for byte.", "dim"))
            with Horizontal(classes="dialog-buttons"):
                yield Button("Write it (y)", variant="success", id="accept-write")
                yield Button("Cancel (n / Esc)", id="accept-cancel")

    @on(Button.Pressed, "#accept-write")
    def action_confirm(self) -> None:
        try:
            written = apply_plan(self.plan)
        except WritebackError as exc:
            self.app.notify(f"Not written: {exc}", severity="error", timeout=10)
            self.dismiss(False)
            return
        refs = ", ".join(change.label for change in written.changes) or "nothing"
        self.app.notify(f"Accepted as expected ({refs}) in {written.display}", timeout=4)
        self.dismiss(True)

    @on(Button.Pressed, "#accept-cancel")
    def action_cancel(self) -> None:
        self.dismiss(False)


class AddRowScreen(ModalScreen[bool]):
    """Name and inputs (JSON, validated as you type) → run the target → show the output → append."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", show=False),
        Binding("ctrl+r", "run", "Run", show=False),
    ]

    def __init__(self, config: Config, eval_set: EvalSet, evaluators: dict[str, EvaluatorDef],
                 runner_factory: RunnerFactory) -> None:
        super().__init__()
        self.config = config
        self.eval_set = eval_set
        self.evaluators = evaluators
        self.runner_factory = runner_factory
        self.plan: WritePlan | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="add-row-box", classes="dialog"):
            title = Text("New row\n", "bold")
            where = one_line(f"{self.eval_set.scope}/{self.eval_set.file_name}", 80)
            title.append(f"appended to {where} · its expectations are built from the output of one run", "dim")
            yield Static(title)
            yield Label("Name")
            yield Input(placeholder="what this case checks, e.g. score 64 is a pass", id="add-name")
            yield Label("Inputs (a JSON object)")
            yield Input(placeholder='{"score": 64}', id="add-inputs")
            yield Static(id="add-status")
            with VerticalScroll(classes="dialog-scroll"):
                yield Static(id="add-preview")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Run (ctrl+r)", variant="primary", id="add-run")
                yield Button("Append row", variant="success", id="add-append", disabled=True)
                yield Button("Cancel (Esc)", id="add-cancel")

    def on_mount(self) -> None:
        self.query_one("#add-name", Input).focus()

    def _status(self, text: str, style: str) -> None:
        self.query_one("#add-status", Static).update(Text(printable(text), style))

    def _problem(self) -> str | None:
        name = self.query_one("#add-name", Input).value.strip()
        if not name:
            return "give the row a name"
        if any(row.name == name for row in self.eval_set.rows):
            return f"{self.eval_set.file_name} already has a row named {name!r}"
        try:
            parse_inputs(self.query_one("#add-inputs", Input).value or "")
        except WritebackError as exc:
            return str(exc)
        return None

    @on(Input.Changed)
    def _validate(self, _event: Input.Changed) -> None:
        self.plan = None
        self.query_one("#add-append", Button).disabled = True
        problem = self._problem()
        self._status(problem or "ready: press Run to run the target on these inputs", "yellow" if problem else "green")

    @on(Input.Submitted)
    def _submitted(self, _event: Input.Submitted) -> None:
        self.action_run()

    @on(Button.Pressed, "#add-run")
    def action_run(self) -> None:
        problem = self._problem()
        if problem:
            self._status(problem, "bold red")
            return
        self._status("running the target…", "cyan")
        self.query_one("#add-run", Button).disabled = True
        self._run(self.query_one("#add-name", Input).value.strip(), parse_inputs(self.query_one("#add-inputs",
                                                                                                Input).value))

    @work(exclusive=True, group="add-row", exit_on_error=False)
    async def _run(self, name: str, inputs: dict[str, Any]) -> None:
        try:
            outcome = await run_target_on(self.config, self.eval_set, name, inputs, runner_factory=self.runner_factory)
        finally:
            self.query_one("#add-run", Button).disabled = False
        preview = self.query_one("#add-preview", Static)
        if not outcome.ok:
            self._status("the run failed, so there is no output to build the row from", "bold red")
            preview.update(Text(printable(outcome.error or ""), "red"))
            return
        try:
            row, notes = build_row(name, inputs, outcome.output, self.eval_set.evaluator_refs, self.evaluators)
            self.plan = plan_add_row(self.config.root, self.eval_set.path, row)
        except WritebackError as exc:
            self._status(str(exc), "bold red")
            return
        text = Text("output\n", "bold")
        text.append(printable(jsonio.dumps(outcome.output, indent=True)) + "\n\n")
        text.append("the row to append\n", "bold")
        text.append_text(diff_text(self.plan))
        for note in notes:
            text.append(f"\nnote: {printable(note)}", "yellow")
        preview.update(text)
        self._status("check the output; Append writes the row", "green")
        self.query_one("#add-append", Button).disabled = False

    @on(Button.Pressed, "#add-append")
    def _append(self) -> None:
        if self.plan is None:
            return
        try:
            written = apply_plan(self.plan)
        except WritebackError as exc:
            self._status(f"not written: {exc}", "bold red")
            return
        self.app.notify(f"Row appended to {written.display}", timeout=4)
        self.dismiss(True)

    @on(Button.Pressed, "#add-cancel")
    def action_cancel(self) -> None:
        self.dismiss(False)
