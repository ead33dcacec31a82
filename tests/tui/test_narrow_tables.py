"""Issue 22 points 3 and 11: at 80 columns the history and evaluators tabs keep their columns readable —
they fit the pane (no sideways scrolling), a cut cell ends in `…`, a list of file names is cut between
names and never inside one, and the history's detail cuts its lines instead of wrapping them. A
trace-based evaluator says what of the trace it compares (the detail and the evaluators tab)."""

from __future__ import annotations

from pathlib import Path

from helpers.project import evaluator, row
from helpers.tui import (
    FakeTarget,
    app_for,
    example_project,
    screen_text,
    seed_history,
    settled,
    static_text,
    wait_idle,
    wait_until,
    write_project,
)
from rich.style import Style
from rich.text import Text
from textual.widgets import DataTable

from workbench.tui.columns import Column, FittedTable, clip_items, fit
from workbench.tui.evaluators_pane import EvaluatorsTable
from workbench.tui.history_pane import SummaryLine

SMALL = (80, 24)
LONG_REF = "exact-match-whole-output"
SETS = ("first-set-with-a-long-name", "second-set-with-a-long-name", "third-set")


def cells(table: DataTable) -> list[list[str]]:
    return [[cell.plain if isinstance(cell, Text) else str(cell) for cell in table.get_row_at(index)]
            for index in range(table.row_count)]


def fits(table: FittedTable) -> bool:
    return 0 < table.laid_out_width <= table.room


def test_shrinkable_columns_give_way_then_droppable_ones_go() -> None:
    columns = [Column("#"), Column("when", drop=1), Column("name", shrink_to=6, give=2)]
    assert fit(columns, [2, 8, 30], 100, 1) == [2, 8, 30]
    assert fit(columns, [2, 8, 30], 30, 1) == [2, 8, 14]  # the name is cut to make room
    assert fit(columns, [2, 8, 30], 16, 1) == [2, None, 10]  # then `when` goes, and the name gets its room back


def test_a_list_of_names_is_cut_between_names() -> None:
    names = ["bands.json", "grading.json", "third.json"]
    assert clip_items(names, 80).plain == "bands.json, grading.json, third.json"
    assert clip_items(names, 28).plain == "bands.json, +2 more"
    assert clip_items(names, 12, noun="set").plain == "3 sets"  # not even the first fits: counted, not cut
    assert clip_items(["grading.json"], 8).plain == "grading…"  # the only name can only be cut


def many_sets_project(root: Path):
    rows = [row("one", {"out": {"a": 1}}, {"a": 1}, ref=LONG_REF)]
    docs = {name: {"version": "1.0", "id": f"set-{name}", "name": name, "evaluatorRefs": [LONG_REF, "order"],
                   "evaluations": rows} for name in SETS}
    return write_project(root, docs, evaluators={
        LONG_REF: evaluator("*", id="long"), "order": evaluator(type_id="uipath-tool-call-order", id="order")})


async def test_the_evaluators_tab_fits_80_columns(tmp_path: Path) -> None:
    app = app_for(many_sets_project(tmp_path))
    async with app.run_test(size=SMALL) as pilot:
        await wait_idle(app, pilot)
        await pilot.press("3")
        await settled(app, pilot)
        table = app.query_one(EvaluatorsTable)
        await wait_until(pilot, lambda: fits(table), "the table was laid out to the pane's width")
        shown = cells(table)
        assert [line[0] for line in shown] == [f"{LONG_REF}.json", "order.json"]  # file names whole
        used_by = {line[-2] for line in shown}
        assert used_by == {"3 sets"}  # three long set names in a narrow column: counted, not cut


async def test_the_trace_based_evaluator_says_what_it_compares(tmp_path: Path) -> None:
    app = app_for(many_sets_project(tmp_path))
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_idle(app, pilot)
        await settled(app, pilot)
        detail = app.main.detail
        detail.evaluator_index = 1  # order
        await settled(app, pilot)
        assert detail.current_ref == "order"
        assert "compares the order of the trace's tool calls (toolCallsOrder)" in static_text(app, "#detail-meta")
        await pilot.press("3")
        await settled(app, pilot)
        table = app.query_one(EvaluatorsTable)
        column = [str(c.label) for c in table.columns.values()].index("compares")
        compares = {line[0]: line[column] for line in cells(table)}
        assert compares["order.json"].startswith("the order of the trace's tool")
        assert compares[f"{LONG_REF}.json"] == "the whole output"


async def test_the_history_tab_fits_80_columns_and_cuts_instead_of_wrapping(tmp_path: Path) -> None:
    app = app_for(write_project(tmp_path, {"a-set-file-with-a-rather-long-name": [
        row("a row whose name is longer than the pane is wide", {"out": 1}, 1)]}), FakeTarget(), record=True)
    async with app.run_test(size=SMALL) as pilot:
        await wait_idle(app, pilot)
        await pilot.press("2")
        history = app.main.history_pane
        await wait_until(pilot, lambda: not history.busy and history.infos, "history was read")
        await settled(app, pilot)
        table = app.query_one("#history-table", FittedTable)
        await wait_until(pilot, lambda: fits(table), "the table was laid out to the pane's width")
        assert [str(column.label) for column in table.columns.values()][:4] == ["#", "when", "rows ✔", "results ✔"]
        detail = app.query_one("#history-detail")
        lines = detail.content.plain.split("\n")
        assert detail.size.height == len(lines), "one screen line per line of text: nothing wrapped"
        assert any(line.startswith("✘ a row whose name") for line in lines)  # one evaluator: no [name] to tell apart


async def test_the_history_summary_at_80_columns_is_shortened_not_cut(tmp_path: Path) -> None:
    """H12 finding 4: `now 23/28 results pass · the last 1 iterati…` hid whether it said 1 iteration."""
    config = write_project(tmp_path, {"grading": [row(f"row {n}", {"out": n}, n) for n in range(12)]})
    seed_history(config, [3, 5, 12])
    app = app_for(config, FakeTarget(), record=True)
    async with app.run_test(size=SMALL) as pilot:
        await wait_idle(app, pilot)
        await pilot.press("2")
        history = app.main.history_pane
        await wait_until(pilot, lambda: not history.busy and history.infos, "history was read")
        await settled(app, pilot)
        label = app.query_one("#history-spark-label", SummaryLine)
        text = label.shown
        assert "…" not in text and len(text) <= label.size.width
        assert text == "now 0/12 results pass · last 4 iterations:", text  # not `the last 4 iterati…`
        await pilot.resize_terminal(160, 48)
        await settled(app, pilot)
        await wait_until(pilot, lambda: "the last" in label.shown, "the long wording came back")
        assert label.shown == "now 0/12 results pass · the last 4 iterations:"


async def test_a_tree_label_wider_than_the_pane_ends_in_an_ellipsis(tmp_path: Path) -> None:
    config, target = example_project(tmp_path)
    app = app_for(config, target)
    async with app.run_test(size=SMALL) as pilot:
        await wait_idle(app, pilot)
        await settled(app, pilot)
        tree = app.main.sets_tree
        lines = screen_text(app).splitlines()
        merit = next(line for line in lines if "score 72 is a merit" in line)
        assert "…" in merit and "grade-only ✔" not in merit  # cut, and marked where
        node = next(n for s in tree.root.children for n in s.children if "score 40 fails" in n.label.plain)
        assert "…" not in tree.render_label(node, Style(), Style()).plain  # one that fits is left whole


async def test_a_cut_tree_label_never_splits_an_evaluator_name(tmp_path: Path) -> None:
    """H12 finding 2 (`workbench demo` at 120x36): `grade-only ✔  score-detail` stopped at the border, a
    name split and its mark gone. A row line is cut after its last whole badge, with ` …`."""
    config, target = example_project(tmp_path)
    for size in ((120, 36), SMALL):
        async with app_for(config, target).run_test(size=size) as pilot:
            app = pilot.app
            await wait_idle(app, pilot)
            await settled(app, pilot)
            tree = app.main.sets_tree
            cut = 0
            for node in (n for s in tree.root.children for n in s.children):
                whole, shown = node.label.plain, tree.render_label(node, Style(), Style()).plain
                if shown != whole:
                    cut += 1
                    name = whole.split("  ")[0]
                    if len(shown) <= len(name):  # not even the row's own name fits: it is cut, with …
                        assert shown.endswith("…") and name.startswith(shown[:-1]), shown
                        continue
                    assert shown.endswith(" …"), shown
                    kept = shown[:-2]
                    assert whole.startswith(kept) and whole[len(kept):].startswith("  "), (shown, whole)
            assert cut, f"some row line is cut at {size}"
