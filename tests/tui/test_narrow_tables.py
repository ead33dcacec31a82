"""Issue 22 points 3 and 11: at 80 columns the history and evaluators tabs keep their columns readable —
they fit the pane (no sideways scrolling), a cut cell ends in `…`, a list of file names is cut between
names and never inside one, and the history's detail cuts its lines instead of wrapping them. A
trace-based evaluator says what of the trace it compares (the detail and the evaluators tab). A row line
wider than the sets pane cuts its name, never an evaluator's mark; the evaluators tab names real files."""

from __future__ import annotations

from pathlib import Path

from helpers.named_format import named_format, write_named_project
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
from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual.widgets import DataTable

from workbench.model import RowKey, Verdict
from workbench.tui.columns import Column, FittedTable, clip_items, fit
from workbench.tui.evaluators_pane import EvaluatorsTable
from workbench.tui.history_pane import SummaryLine
from workbench.tui.labels import RowLabel, row_label, verdict_text

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


MARKS = "✔✘!○"


def badge_parts(shown: str) -> list[str]:
    """A shown row line's badges and tail (`grade-only ✔`, `✘`, `12ms`, `…`), after its glyph and name."""
    return shown.split("  ")[1:]


def assert_fitted(shown: str, label: RowLabel, room: int) -> None:
    """`shown` is `label` cut to `room` cells the way a row line may be: the row's glyph, its name whole or cut
    with `…`, then every evaluator's badge in order, whole (`grade-only ✔`) or its mark alone, and never a
    split evaluator name; at the end perhaps ` …`, standing for the parts after the badges."""
    assert cell_len(shown) <= room, (shown, room)
    assert shown.startswith(label.glyph.plain + " "), shown
    if label.tail and shown.endswith(" …"):
        shown = shown[:-2]
    name, *rest = shown[len(label.glyph.plain) + 1:].split("  ")
    whole_name = label.name.plain
    assert name == whole_name or (name.endswith("…") and whole_name.startswith(name[:-1])), (name, whole_name)
    badges = rest[:len(label.badges)]
    assert len(badges) == len(label.badges), (shown, label.badges)
    for part, (ref, verdict) in zip(badges, label.badges, strict=True):
        mark = verdict_text(verdict).plain
        assert part in (f"{ref} {mark}", mark), (part, ref, shown)


async def test_a_cut_tree_label_keeps_every_evaluators_mark(tmp_path: Path) -> None:
    """H12 finding 2 (`workbench demo` at 120x36): `grade-only ✔  score-detail` stopped at the border, a name
    split and its mark gone; and a long row name pushed a failing badge's ✘ off a 160-column screen. The row's
    name gives way instead: every badge keeps its mark, whole or as the mark alone, never split."""
    config, target = example_project(tmp_path)
    for size in ((160, 48), (120, 36), SMALL):
        async with app_for(config, target).run_test(size=size) as pilot:
            app = pilot.app
            await wait_idle(app, pilot)
            await settled(app, pilot)
            tree = app.main.sets_tree
            room = tree.size.width - tree.styles.scrollbar_size_vertical - tree.guide_depth
            cut = 0
            for node in (n for s in tree.root.children for n in s.children):
                found = app.state.find_row(RowKey(*node.data.key))
                assert found is not None
                label = row_label(app.state, *found)
                shown = tree.render_label(node, Style(), Style()).plain
                assert label.text.plain == node.label.plain
                if shown != node.label.plain:
                    cut += 1
                    assert_fitted(shown, label, room)
            assert cut or size == (160, 48), f"some row line is cut at {size}"


def test_a_row_line_gives_way_name_first_and_keeps_the_marks() -> None:
    """The order things give way in (`RowLabel.fitted`): the parts after the badges, then the row's name down
    to SHORTEST_NAME, then passing evaluators' names, then every evaluator's name, then the rest of the row's."""
    name = "the capital of Kenya is Nairobi"
    label = RowLabel(verdict_text(Verdict.FAIL), Text(name),
                     [("ExactMatch", Verdict.PASS), ("ToolCallOrder", Verdict.PASS), ("JsonSim", Verdict.FAIL)],
                     [Text("12ms"), Text("score 0.53")])
    whole = label.text.plain
    assert whole == f"✘ {name}  ExactMatch ✔  ToolCallOrder ✔  JsonSim ✘  12ms  score 0.53"
    assert label.fitted(len(whole)).plain == whole
    assert label.fitted(len(whole) - 1).plain == f"✘ {name}  ExactMatch ✔  ToolCallOrder ✔  JsonSim ✘  12ms …"
    assert label.fitted(77).plain == f"✘ {name}  ExactMatch ✔  ToolCallOrder ✔  JsonSim ✘ …"
    assert label.fitted(70).plain == "✘ the capital of Kenya is N…  ExactMatch ✔  ToolCallOrder ✔  JsonSim ✘"
    assert label.fitted(60).plain == f"✘ {name}  ✔  ✔  JsonSim ✘ …"
    assert label.fitted(40).plain == "✘ the capital of Kenya…  ✔  ✔  JsonSim ✘"
    assert label.fitted(38).plain == "✘ the capital of Kenya is Na…  ✔  ✔  ✘"
    assert label.fitted(12).plain == "✘ …  ✔  ✔  ✘"
    for room in range(12, len(whole) + 1):
        assert_fitted(label.fitted(room).plain, label, room)
    assert label.fitted(9).plain == "✘   ✔  ✔…"  # not even the marks fit: cut at the end, as any text


async def test_a_row_failing_its_third_evaluator_shows_the_mark_at_160_and_80_columns(tmp_path: Path) -> None:
    """A long row name failing only its third evaluator: the badge's ✘ is on screen, at 160 columns with every
    evaluator named, at 80 with the passing ones as their marks."""
    name = "a row whose name is long enough to push its evaluators off the sets pane of a wide screen"
    rows = [row(name, {"out": {"grade": "PASS", "band": "merit", "score": 72}}, criteria={
        "grade": {"expectedOutput": {"grade": "PASS"}}, "band": {"expectedOutput": {"band": "merit"}},
        "score": {"expectedOutput": {"score": 70}}})]
    doc = {"version": "1.0", "id": "s", "name": "Three", "evaluatorRefs": ["grade", "band", "score"],
           "evaluations": rows}
    config = write_project(tmp_path, {"bands": doc},
                           evaluators={ref: evaluator(ref, id=f"{ref}-eval") for ref in ("grade", "band", "score")})
    for size, shown in (((160, 48), "grade ✔  band ✔  score ✘"), (SMALL, "✔  ✔  ✘")):
        async with app_for(config).run_test(size=size) as pilot:
            app = pilot.app
            await wait_idle(app, pilot)
            await settled(app, pilot)
            line = next(line for line in screen_text(app).splitlines() if "└─ ✘ a row whose" in line)
            sets_pane = line.split("│")[1]
            assert sets_pane.rstrip().endswith(shown.replace("  ", "")), line  # the screenshot's text has no gaps
            tree = app.main.sets_tree
            node = next(n for s in tree.root.children for n in s.children)
            text = tree.render_label(node, Style(), Style()).plain
            assert text.endswith(shown) and text.startswith("✘ a row whose name"), text


async def test_the_evaluators_tab_names_each_evaluators_own_file(tmp_path: Path) -> None:
    """A format whose sets refer to evaluators by id: the file column names the file each was read from
    (`Grade` lives in grade-check.json, not `Grade.json`), and one the format brings without a file is its
    ref, said to be built in (not a made-up `Echo.json`)."""
    doc = {"evaluatorRefs": ["Grade", "Band"], "rows": [
        {"id": "merit", "inputs": {"out": {"grade": "PASS", "band": "merit"}},
         "criteria": {"Grade": {"expectedOutput": {"grade": "PASS"}}, "Band": {"expectedOutput": {"band": "merit"}}}}]}
    with named_format():
        config = write_named_project(tmp_path, {"grade-check": {"id": "Grade", "targetOutputKey": "grade"},
                                                "band_v2": {"id": "Band", "targetOutputKey": "band"}}, {"bands": doc})
        app = app_for(config)
        async with app.run_test(size=SMALL) as pilot:
            await wait_idle(app, pilot)
            await pilot.press("3")
            await settled(app, pilot)
            table = app.query_one(EvaluatorsTable)
            await wait_until(pilot, lambda: fits(table), "the table was laid out to the pane's width")
            assert [line[0] for line in cells(table)] == ["band_v2.json", "Echo (built in)", "grade-check.json"]
