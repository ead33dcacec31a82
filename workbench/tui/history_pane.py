"""Iteration history: one line per iteration, a sparkline of passes, and the selected iteration's
flips and results.

SQLite is read in thread workers, never on the UI thread: the session may be writing a large
iteration at that moment (the store serialises the two), and keys must keep answering meanwhile.
Each read posts its result back as a message; a read that a newer one replaced is dropped."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult, RenderResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.visual import VisualType
from textual.widgets import DataTable, Static
from textual.worker import Worker, WorkerState, get_current_worker

from ..history import HistoryError, HistoryStore, IterationInfo, compare_results
from ..model import Result
from ..textsafe import counted, one_line, printable
from .columns import Column, FittedTable
from .labels import plain, verdict_text
from .path_text import shown_path

SPARK_ITERATIONS = 120
# At 80 columns the trigger is cut (with …) to 12, then the time taken goes, then the change, then the clock time.
COLUMNS = (Column("#"), Column("when", drop=2), Column("rows ✔"), Column("results ✔"),
           Column("±", drop=3), Column("took", drop=4), Column("trigger", shrink_to=12, give=5))
_BARS = "▁▂▃▄▅▆▇█"


def sparkline(counts: list[tuple[int, int, int]]) -> Text:
    """One bar per iteration, height = share of results passing (absolute, not min-max scaled)."""
    text = Text()
    for _, passed, total in counts:
        share = passed / total if total else 0.0
        bar = _BARS[min(len(_BARS) - 1, int(share * (len(_BARS) - 1) + 0.5))]
        text.append(bar, "green" if total and passed == total else "red")
    return text


def summary_wordings(counts: list[tuple[int, int, int]]) -> list[str]:
    """What the sparkline shows, longest first: the narrow pane takes the first that fits, never a cut one."""
    _, passed, total = counts[-1]
    span = counted(len(counts), "iteration")
    return [f"now {passed}/{total} results pass · the last {span}:",
            f"now {passed}/{total} results pass · last {span}:",
            f"{passed}/{total} results pass · last {span}:",
            f"{passed}/{total} pass · last {span}:",
            f"{passed}/{total} pass"]


def _change(info: IterationInfo) -> Text:
    if info.partial:
        return Text("partial", "dim")
    if info.change is None or info.change == 0:
        return Text("=" if info.change == 0 else "", "dim")
    return Text(f"{info.change:+d}", "green" if info.change > 0 else "red")


def iteration_text(info: IterationInfo, results: list[Result], previous: list[Result], *, first: bool) -> Text:
    """What flipped in an iteration (vs the one before) and its results."""
    flips = compare_results(previous, results, only_current=info.partial)
    several = len({r.row_key for r in results}) < len(results)  # some row has more than one evaluator

    def which(result: Result) -> str:
        """The evaluator, first (a narrow pane cuts a line's end), when a row's results must be told apart."""
        return f"[{one_line(result.evaluator, 30)}] " if several else ""

    text = Text(f"iteration {info.number}", "bold")
    text.append(f" · {one_line(info.trigger.describe(), 80)}\n", "dim")  # lines are cut with …, never wrapped:
    text.append(f"{info.rows_passed}/{info.rows_total} rows pass · {info.passed}/{info.total} results pass\n", "dim")
    for title, items, style in (("newly passing", flips.newly_passing, "green"),
                                ("newly failing", flips.newly_failing, "red"),
                                ("new", flips.added, "cyan"), ("gone", flips.removed, "dim")):
        if items and (not first or title != "new"):
            text.append(f"{title} ({len(items)})\n", f"bold {style}")
            for result in items[:50]:
                text.append(f"  {which(result)}{one_line(result.label, 60)}\n")
    if first:
        text.append("(first recorded iteration)\n", "dim")
    elif not (flips.newly_passing or flips.newly_failing or flips.removed):
        text.append("nothing flipped since the iteration before\n", "dim")
    text.append("\nresults\n", "bold")
    for result in results[:500]:
        text.append_text(verdict_text(result.verdict))
        text.append(f" {which(result)}{one_line(result.label, 60)} · {shown_path(result.set_file, 30)}\n")
    if len(results) > 500:
        text.append(f"… and {len(results) - 500} more\n", "dim")
    return text


class SummaryLine(Static):
    """The line above the sparkline: of its wordings, the longest that fits the width it is drawn at (so a
    resize, or the first layout after the history was read, never leaves a cut one)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._wordings: list[str] = []

    def show_wordings(self, wordings: list[str]) -> None:
        self._wordings = wordings
        self.refresh()

    def update(self, content: VisualType = "", *, layout: bool = True) -> None:
        self._wordings = []  # a note (history off, unreadable) instead of counts
        super().update(content, layout=layout)

    @property
    def shown(self) -> str:
        """The text drawn now, at the line's width."""
        return self._fitted() if self._wordings else str(self.content)

    def _fitted(self) -> str:
        width = self.size.width or 10_000
        return next((text for text in self._wordings if len(text) <= width), self._wordings[-1])

    def render(self) -> RenderResult:
        return Text(self._fitted(), "dim") if self._wordings else super().render()


class HistoryPane(Horizontal):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("d", "compare", "Compare", show=False, tooltip="compare the highlighted iteration with the one "
                "before it: the code diff, then the rows it flipped with their output before and after")]

    class Listed(Message):
        """The iteration list and sparkline were read (or `error` says why not)."""

        def __init__(self, asked: int, infos: list[IterationInfo], counts: list[tuple[int, int, int]],
                     error: str | None = None) -> None:
            super().__init__()
            self.asked, self.infos, self.counts, self.error = asked, infos, counts, error

    class Detailed(Message):
        """One iteration's flips and results were read and drawn."""

        def __init__(self, asked: int, text: Text) -> None:
            super().__init__()
            self.asked, self.text = asked, text

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.store: HistoryStore | None = None
        self.infos: dict[int, IterationInfo] = {}
        self._counts: list[tuple[int, int, int]] = []  # the sparkline's (number, passed, total), oldest first
        self._asked = {"list": 0, "detail": 0}  # reads asked for, per kind; a reply for an older one is dropped
        self._answered = {"list": 0, "detail": 0}

    @property
    def busy(self) -> bool:
        """A read was asked for and its answer is not on screen yet."""
        return self._asked != self._answered

    def compose(self) -> ComposeResult:
        with Vertical(id="history-left"):
            yield SummaryLine(id="history-spark-label")
            yield Static(id="history-spark")
            yield FittedTable(COLUMNS, id="history-table")
        with VerticalScroll(id="history-detail-scroll"):
            yield Static(Text("Select an iteration to see what flipped; d compares it with the one before.", "dim"),
                         id="history-detail")


    # -- the iteration list --------------------------------------------------------------------------

    def reload(self, store: HistoryStore | None) -> None:
        """Read the iterations again (after one was recorded); the table follows once they are read."""
        self.store = store
        if store is None:
            self.query_one("#history-table", FittedTable).set_rows([])
            self.query_one("#history-spark-label", Static).update(
                Text("History is off for this project (see the notification).", "yellow"))
            return
        self._asked["list"] += 1
        self._read_list(store, self._asked["list"])

    @work(thread=True, exclusive=True, group="history-list", exit_on_error=False,
          description="reading the iteration history")
    def _read_list(self, store: HistoryStore, asked: int) -> None:
        try:
            reply = self.Listed(asked, store.iterations(limit=200), store.pass_counts(SPARK_ITERATIONS))
        except HistoryError as exc:
            reply = self.Listed(asked, [], [], str(exc))
        if not get_current_worker().is_cancelled:
            self.post_message(reply)

    def on_history_pane_listed(self, message: Listed) -> None:
        message.stop()
        if message.asked != self._asked["list"]:
            return
        self._answered["list"] = message.asked
        label = self.query_one("#history-spark-label", Static)
        if message.error is not None:
            label.update(Text(one_line(message.error, 200), "yellow"))
            return
        self._fill(message.infos, message.counts)

    def _fill(self, infos: list[IterationInfo], counts: list[tuple[int, int, int]]) -> None:
        table = self.query_one("#history-table", FittedTable)
        selected = self._selected_number()
        self.infos = {info.number: info for info in infos}
        self.query_one("#history-spark", Static).update(sparkline(counts))
        self._counts = counts
        self._fit_summary()
        table.set_rows([((Text(str(info.number)), Text(info.started_at.astimezone().strftime("%H:%M:%S")),
                          Text(f"{info.rows_passed}/{info.rows_total}"), Text(f"{info.passed}/{info.total}"),
                          _change(info), Text(f"{info.duration_s:.1f}s"), plain(info.trigger.describe(), 50)),
                          str(info.number)) for info in reversed(infos)])
        if table.has_focus and selected is not None and str(selected) in table.rows:
            table.move_cursor(row=table.get_row_index(str(selected)))  # the user is browsing: stay put
        elif table.row_count:
            table.move_cursor(row=0)  # otherwise follow the newest iteration
        number = self._selected_number()
        if number is not None:
            self.show_iteration(number)

    def _fit_summary(self) -> None:
        label = self.query_one("#history-spark-label", SummaryLine)
        if self._counts:
            label.show_wordings(summary_wordings(self._counts))
        else:
            label.update(Text("no iterations recorded yet", "dim"))

    @property
    def selected_iteration(self) -> int | None:
        """The iteration highlighted in the table (the newest until the user moves), or None."""
        return self._selected_number()

    def _selected_number(self) -> int | None:
        table = self.query_one("#history-table", DataTable)
        if not table.row_count:
            return None
        try:
            key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        except Exception:
            return None
        return int(key) if key is not None else None

    def action_compare(self) -> None:
        """`d`: the highlighted iteration against the one before it (compare_screen.py)."""
        number = self._selected_number()
        if self.store is None:
            self.app.notify("History is off for this project: there are no iterations to compare", severity="warning")
            return
        if number is None:
            self.app.notify("No iteration is recorded yet: once one has run, d compares it with the one before",
                            severity="warning")
            return
        earlier = [n for n in self.infos if n < number]
        if not earlier:
            self.app.notify(f"iteration {number} is the first one recorded: there is nothing before it to compare with")
            return
        config = self.store.files.config if self.store.files is not None else None
        if config is None:
            self.app.notify("This history keeps no project files, so iterations can't be compared here "
                            "(workbench compare can)", severity="warning")
            return
        from .compare_screen import CompareScreen

        self.app.push_screen(CompareScreen(config, self.store, max(earlier), number))

    # -- one iteration -------------------------------------------------------------------------------

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        if event.row_key.value is not None:
            self.show_iteration(int(event.row_key.value))

    def show_iteration(self, number: int) -> None:
        """Show what flipped in iteration `number`, once read."""
        info = self.infos.get(number)
        if self.store is None or info is None:
            self.query_one("#history-detail", Static).update("")
            return
        earlier = [n for n in self.infos if n < number]
        self._asked["detail"] += 1
        self._read_iteration(self.store, info, max(earlier) if earlier else None, self._asked["detail"])

    @work(thread=True, exclusive=True, group="history-iteration", exit_on_error=False,
          description="reading an iteration from the history")
    def _read_iteration(self, store: HistoryStore, info: IterationInfo, previous: int | None, asked: int) -> None:
        try:
            results = store.results(info.number)
            before = store.results(previous) if previous is not None else []
            text = iteration_text(info, results, before, first=previous is None)
        except HistoryError as exc:
            text = Text(printable(str(exc)), "yellow")
        if not get_current_worker().is_cancelled:
            self.post_message(self.Detailed(asked, text))

    def on_history_pane_detailed(self, message: Detailed) -> None:
        message.stop()
        if message.asked == self._asked["detail"]:
            self._answered["detail"] = message.asked
            self.query_one("#history-detail", Static).update(message.text)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """A read that failed outright will not answer: stop waiting for it. The event goes on to the
        app, which tells the user what failed."""
        if event.state is WorkerState.ERROR:
            kind = "list" if event.worker.group == "history-list" else "detail"
            self._answered[kind] = self._asked[kind]
