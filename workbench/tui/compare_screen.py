"""`d` in the history tab: an iteration compared with the one before it — the code diff first (the files
that changed between them, from the snapshots history keeps), then the rows that flipped with their output
before and after, then the rows whose output changed while the verdict held (`actions/compare.py`).

The comparison is read in a thread worker (SQLite and the blobs, never on the UI thread); `loaded` is set
and `Loaded` posted once it is on screen."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Static
from textual.worker import get_current_worker

from .. import jsonio
from ..actions.compare import CompareError, Comparison, RowChange, compare_in
from ..config import Config
from ..history import HistoryError, HistoryStore
from ..textsafe import one_line, printable

_OUTPUT_LINES = 12
_STYLE = {"PASS": "green", "FAIL": "red", "ERROR": "yellow"}


def _output(value: Any) -> list[str]:
    text = "(no output)" if value is None else jsonio.dumps(value, indent=True)
    lines = text.splitlines()
    if len(lines) > _OUTPUT_LINES:
        lines = [*lines[:_OUTPUT_LINES], f"… {len(lines) - _OUTPUT_LINES} more lines"]
    return lines


def append_row_change(text: Text, change: RowChange) -> None:
    """One flipped row in the dialog: its label, before → after, and what changed said once."""
    text.append(f"  {one_line(change.label, 70)}  ")
    text.append(change.before.value, _STYLE.get(change.before.value, ""))
    text.append(" → ")
    text.append(change.after.value, _STYLE.get(change.after.value, ""))
    text.append("\n")
    if change.detail_after and change.after.value != "PASS":  # said once: the evaluator's words, else deepdiff's
        text.append(f"    {one_line(change.detail_after, 110)}\n", "dim")
    else:
        for line in change.output_diff:
            text.append(f"    {one_line(line, 110)}\n", "cyan")
    for title, value in (("before", change.output_before), ("after", change.output_after)):
        text.append(f"    {title}:\n", "bold")
        for line in _output(value):
            text.append(f"      {printable(line)[:120]}\n")


def comparison_text(comparison: Comparison) -> Text:
    """The comparison as the screen shows it: files and their diffs, then flipped rows, then the rest."""
    text = Text(f"{comparison.before.label} → {comparison.after.label}\n", "bold")
    text.append(f"{len(comparison.fixed)} fixed · {len(comparison.newly_failing)} newly failing · "
                f"{len(comparison.still_failing)} still failing · {len(comparison.output_changed)} output changed\n",
                "dim")
    text.append("\ncode\n", "bold")
    if comparison.files is None:
        text.append(f"  {one_line(comparison.files_note, 200)}\n", "dim")
    elif not comparison.files:
        text.append("  no project file changed\n", "dim")
    for diff in comparison.files or []:
        text.append(f"  {one_line(diff.summary, 110)}\n", "bold")
        for line in diff.diff.splitlines()[2:]:  # the ---/+++ header repeats the name
            style = "green" if line.startswith("+") else "red" if line.startswith("-") else \
                "cyan" if line.startswith("@@") else ""
            text.append(f"    {printable(line)[:160]}\n", style)
    if comparison.files is not None and comparison.files_note:
        text.append(f"  left out: {one_line(comparison.files_note, 200)}\n", "dim")
    for title, changes in (("fixed", comparison.fixed), ("newly failing", comparison.newly_failing),
                           ("still failing", comparison.still_failing),
                           ("output changed, verdict held", comparison.output_changed)):
        if changes:
            text.append(f"\n{title} ({len(changes)})\n", "bold")
            for change in changes[:100]:
                append_row_change(text, change)
            if len(changes) > 100:
                text.append(f"  … and {len(changes) - 100} more\n", "dim")
    if not (comparison.flipped or comparison.still_failing or comparison.output_changed):
        text.append("\nno row flipped or changed its output\n", "dim")
    return text


class CompareScreen(ModalScreen[None]):
    """One iteration against the one before it."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q,d", "dismiss", "Close", show=False)]
    DEFAULT_CSS = """
    CompareScreen { align: center middle; }
    CompareScreen #compare-scroll { width: 94%; height: 92%; border: round $accent; background: $surface;
                                    padding: 0 1; }
    CompareScreen #compare-body { text-wrap: nowrap; text-overflow: ellipsis; }  /* cut with …, never wrapped */
    """

    class Loaded(Message):
        """The comparison (or why there is none) is on screen."""

    def __init__(self, config: Config, store: HistoryStore, before: int, after: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.config, self.store, self.before, self.after = config, store, before, after
        self.loaded = False
        self.plain_text = ""  # what the screen says, once loaded (for tests and screen readers)

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="compare-scroll"):
            yield Static(Text(f"comparing iteration {self.before} with {self.after}…", "dim"), id="compare-body")

    def on_mount(self) -> None:
        scroll = self.query_one("#compare-scroll", VerticalScroll)
        scroll.border_title = f"iteration {self.before} → {self.after} · Esc closes"
        self._read()

    @work(thread=True, exclusive=True, group="compare", exit_on_error=False, description="comparing two iterations")
    def _read(self) -> None:
        try:
            text = comparison_text(compare_in(self.config, self.store, str(self.before), str(self.after)))
        except (CompareError, HistoryError) as exc:
            text = Text(printable(str(exc)), "yellow")
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._show, text)

    def _show(self, text: Text) -> None:
        self.query_one("#compare-body", Static).update(text)
        self.plain_text = text.plain
        self.loaded = True
        self.post_message(self.Loaded())
