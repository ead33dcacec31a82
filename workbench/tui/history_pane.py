"""Iteration history: one line per iteration, a sparkline of passes, and the selected iteration's
flips and results."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import DataTable, Static

from ..history import HistoryError, HistoryStore, IterationInfo, compare_results
from ..textsafe import one_line, printable
from .labels import plain, verdict_text

SPARK_ITERATIONS = 120
_BARS = "▁▂▃▄▅▆▇█"


def sparkline(counts: list[tuple[int, int, int]]) -> Text:
    """One bar per iteration, height = share of results passing (absolute, not min-max scaled)."""
    text = Text()
    for _, passed, total in counts:
        share = passed / total if total else 0.0
        bar = _BARS[min(len(_BARS) - 1, int(share * (len(_BARS) - 1) + 0.5))]
        text.append(bar, "green" if total and passed == total else "red")
    return text


def _change(info: IterationInfo) -> Text:
    if info.partial:
        return Text("partial", "dim")
    if info.change is None or info.change == 0:
        return Text("=" if info.change == 0 else "", "dim")
    return Text(f"{info.change:+d}", "green" if info.change > 0 else "red")


class HistoryPane(Horizontal):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.store: HistoryStore | None = None
        self.infos: dict[int, IterationInfo] = {}

    def compose(self) -> ComposeResult:
        with Vertical(id="history-left"):
            yield Static(id="history-spark-label")
            yield Static(id="history-spark")
            yield DataTable(id="history-table", cursor_type="row", zebra_stripes=True)
        with VerticalScroll(id="history-detail-scroll"):
            yield Static(Text("Select an iteration to see what flipped.", "dim"), id="history-detail")

    def on_mount(self) -> None:
        table = self.query_one("#history-table", DataTable)
        table.add_columns("#", "when", "results passing", "change", "time", "trigger")

    def reload(self, store: HistoryStore | None) -> None:
        self.store = store
        table = self.query_one("#history-table", DataTable)
        selected = self._selected_number()
        table.clear()
        label = self.query_one("#history-spark-label", Static)
        if store is None:
            label.update(Text("History is off for this project (see the notification).", "yellow"))
            return
        try:
            infos = store.iterations(limit=200)
            counts = store.pass_counts(SPARK_ITERATIONS)
        except HistoryError as exc:
            label.update(Text(one_line(str(exc), 200), "yellow"))
            return
        self.infos = {info.number: info for info in infos}
        self.query_one("#history-spark", Static).update(sparkline(counts))
        if counts:
            _, passed, total = counts[-1]
            label.update(Text(f"results passing over the last {len(counts)} iterations · now {passed}/{total}",
                              "dim"))
        else:
            label.update(Text("no iterations recorded yet", "dim"))
        for info in reversed(infos):
            table.add_row(str(info.number), info.started_at.astimezone().strftime("%H:%M:%S"),
                          f"{info.passed}/{info.total}", _change(info), f"{info.duration_s:.1f}s",
                          plain(info.trigger.describe(), 50), key=str(info.number))
        if table.has_focus and selected is not None and str(selected) in table.rows:
            table.move_cursor(row=table.get_row_index(str(selected)))  # the user is browsing: stay put
        elif table.row_count:
            table.move_cursor(row=0)  # otherwise follow the newest iteration
        self.call_after_refresh(self._show_cursor)

    def _show_cursor(self) -> None:
        number = self._selected_number()
        if number is not None:
            self.show_iteration(number)

    def _selected_number(self) -> int | None:
        table = self.query_one("#history-table", DataTable)
        if not table.row_count:
            return None
        try:
            key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        except Exception:
            return None
        return int(key) if key is not None else None

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        if event.row_key.value is not None:
            self.show_iteration(int(event.row_key.value))

    def show_iteration(self, number: int) -> None:
        detail = self.query_one("#history-detail", Static)
        info = self.infos.get(number)
        if self.store is None or info is None:
            detail.update("")
            return
        try:
            results = self.store.results(number)
            earlier = [n for n in self.infos if n < number]
            previous = self.store.results(max(earlier)) if earlier else []
        except HistoryError as exc:
            detail.update(Text(printable(str(exc)), "yellow"))
            return
        flips = compare_results(previous, results, only_current=info.partial)
        text = Text(f"iteration {info.number}", "bold")
        text.append(f" · {one_line(info.trigger.describe(), 80)} · {info.passed}/{info.total} passed\n", "dim")
        for title, items, style in (("newly passing", flips.newly_passing, "green"),
                                    ("newly failing", flips.newly_failing, "red"),
                                    ("new", flips.added, "cyan"), ("gone", flips.removed, "dim")):
            if items and (earlier or title not in ("new",)):
                text.append(f"{title} ({len(items)})\n", f"bold {style}")
                for result in items[:50]:
                    name = one_line(result.label, 60)
                    text.append(f"  {name} [{one_line(result.evaluator, 30)}]\n")
        if not earlier:
            text.append("(first recorded iteration)\n", "dim")
        elif not (flips.newly_passing or flips.newly_failing or flips.removed):
            text.append("nothing flipped since the iteration before\n", "dim")
        text.append("\nresults\n", "bold")
        for result in results[:500]:
            text.append_text(verdict_text(result.verdict))
            text.append(f" {one_line(result.set_file, 30)} › {one_line(result.label, 60)} "
                        f"[{one_line(result.evaluator, 30)}]\n")
        if len(results) > 500:
            text.append(f"… and {len(results) - 500} more\n", "dim")
        detail.update(text)
