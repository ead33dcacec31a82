"""`A`: bless many failing rows after a deliberate behaviour change, like an interactive snapshot update.

The screen walks the failing rows one diff at a time — accept (y), skip (n), accept this and all the
remaining ones (a), stop and write what was accepted so far (q), or cancel everything (Esc). Nothing
is written during the walk; at its end `actions.accept_bulk.write_accepted` writes every accepted row
of one eval set in one surgical write of that file. It dismisses with the number of rows written."""

from __future__ import annotations

import asyncio
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.notifications import SeverityLevel
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from ..actions.accept import AcceptPreview
from ..actions.accept_bulk import BulkPreview, FileOutcome, write_accepted
from ..textsafe import one_line, printable
from .writeback_screens import diff_text


def outcome_message(outcomes: list[FileOutcome]) -> tuple[str, SeverityLevel]:
    """What the walk wrote, as a notification (text, severity)."""
    written = [o for o in outcomes if o.written is not None]
    refused = [o for o in outcomes if o.written is None]
    rows = sum(len(o.labels) for o in written)
    text = (f"Accepted {rows} row{'s' * (rows != 1)} in {len(written)} file{'s' * (len(written) != 1)}"
            if written else "Nothing was written")
    for outcome in refused:
        text += f"\nNot written to {outcome.display} ({len(outcome.labels)} rows): {outcome.refused}"
    return text, "error" if refused else "information"


class BulkAcceptScreen(ModalScreen[int]):
    """One failing row's diff at a time; the accepted rows are written when the walk ends."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y,enter", "accept", "Accept", show=False),
        Binding("n,s", "skip", "Skip", show=False),
        Binding("a", "accept_rest", "Accept all remaining", show=False),
        Binding("q", "stop", "Stop and write", show=False),
        Binding("escape", "cancel", "Cancel", show=False),
    ]

    def __init__(self, bulk: BulkPreview) -> None:
        super().__init__()
        self.bulk = bulk
        self.position = 0
        self.accepted: list[AcceptPreview] = []
        self.writing = False

    @property
    def current(self) -> AcceptPreview | None:
        previews = self.bulk.previews
        return previews[self.position] if self.position < len(previews) else None

    def compose(self) -> ComposeResult:
        with Vertical(id="bulk-box", classes="dialog"):
            yield Static(id="bulk-title")
            with VerticalScroll(id="bulk-scroll", classes="dialog-scroll"):
                yield Static(id="bulk-diff")
            yield Static(id="bulk-progress")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Accept (y)", variant="success", id="bulk-accept", compact=True)
                yield Button("Skip (n)", id="bulk-skip", compact=True)
                yield Button("All the rest (a)", variant="warning", id="bulk-rest", compact=True)
                yield Button("Stop (q)", variant="primary", id="bulk-stop", compact=True,
                             tooltip="stop here and write the rows accepted so far")
                yield Button("Cancel (Esc)", id="bulk-cancel", compact=True)

    def on_mount(self) -> None:
        self._show()

    def _show(self) -> None:
        preview = self.current
        if preview is None:
            return
        total = len(self.bulk.previews)
        title = Text(f"Accept failing rows · {self.position + 1} of {total}\n", "bold")
        title.append(f"{one_line(preview.label, 70)} · {preview.plan.display}", "dim")
        self.query_one("#bulk-title", Static).update(title)
        diff = diff_text(preview.plan)
        for note in preview.notes:
            diff.append(f"note: {printable(note)}\n", "yellow")
        self.query_one("#bulk-diff", Static).update(diff)
        self.query_one("#bulk-scroll", VerticalScroll).scroll_home(animate=False)
        progress = Text(f"accepted so far: {len(self.accepted)}", "green" if self.accepted else "dim")
        if self.bulk.skipped:
            progress.append(f" · {len(self.bulk.skipped)} failing row{'s' * (len(self.bulk.skipped) != 1)} "
                            "can't be accepted (an ERROR, no expectedOutput evaluator)", "dim")
        progress.append(" · written when the walk ends (q: stop and write now)", "dim")
        self.query_one("#bulk-progress", Static).update(progress)

    def _next(self) -> None:
        self.position += 1
        if self.current is None:
            self._finish()
        else:
            self._show()

    @on(Button.Pressed, "#bulk-accept")
    def action_accept(self) -> None:
        if self.current is not None and not self.writing:
            self.accepted.append(self.current)
            self._next()

    @on(Button.Pressed, "#bulk-skip")
    def action_skip(self) -> None:
        if self.current is not None and not self.writing:
            self._next()

    @on(Button.Pressed, "#bulk-rest")
    def action_accept_rest(self) -> None:
        if not self.writing:
            self.accepted += self.bulk.previews[self.position:]
            self.position = len(self.bulk.previews)
            self._finish()

    @on(Button.Pressed, "#bulk-stop")
    def action_stop(self) -> None:
        if not self.writing:
            self._finish()

    @on(Button.Pressed, "#bulk-cancel")
    def action_cancel(self) -> None:
        if not self.writing:
            self.app.notify("Bulk accept cancelled: nothing was written", timeout=4)
            self.dismiss(0)

    def _finish(self) -> None:
        if not self.accepted:
            self.app.notify("No row accepted: nothing was written", timeout=4)
            self.dismiss(0)
            return
        self.writing = True
        for button in self.query(Button):
            button.disabled = True
        self.query_one("#bulk-progress", Static).update(Text(f"writing {len(self.accepted)} rows…", "cyan"))
        self._write()

    @work(exclusive=True, group="bulk-accept-write", exit_on_error=False, description="writing the accepted rows")
    async def _write(self) -> None:
        try:
            outcomes = await asyncio.to_thread(write_accepted, self.bulk.project, self.accepted)
        finally:
            self.writing = False
        text, severity = outcome_message(outcomes)
        self.app.notify(text, severity=severity, timeout=10 if severity == "error" else 5)
        self.dismiss(sum(len(o.labels) for o in outcomes if o.written is not None))
