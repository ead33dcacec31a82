"""The row-detail seam: the detail pane draws a row with the view registered for its set's dialect, and
falls back to the expected/actual view for dialects that registered none."""

from __future__ import annotations

from pathlib import Path

from helpers.tui import (
    FAIL,
    PASS,
    SIZE,
    app_for,
    out_row,
    selected_id,
    settle,
    static_text,
    to_first_row,
    wait_idle,
    write_project,
)
from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import Static

from workbench.dialects import added_dialect
from workbench.dialects.uipath import UiPathDialect
from workbench.tui.detail_views import DetailContext, DetailView, ExpectedActualView, view_for


class TurnsView(DetailView):
    """A stand-in for a dialect's own view: says which row and evaluator it was given."""

    def compose(self) -> ComposeResult:
        yield Static(id="turns")

    def show_row(self, context: DetailContext) -> None:
        verdict = context.result.verdict if context.result else "not run"
        self.query_one("#turns", Static).update(Text(f"turns of {context.row.id} under {context.ref}: {verdict}"))


def test_a_dialect_without_a_view_gets_the_expected_actual_view() -> None:
    assert view_for("uipath") is ExpectedActualView
    assert view_for("no-such-dialect") is ExpectedActualView


class TurnsDialect(UiPathDialect):
    """A format of its own whose rows the TurnsView shows (the test hands it a set; it loads nothing)."""

    name = "turns"
    view = f"{__name__}:TurnsView"

    def present(self, root: Path, config: object) -> bool:
        return False


async def test_the_detail_uses_the_view_its_dialect_names(tmp_path: Path) -> None:
    with added_dialect(TurnsDialect()):
        await _the_detail_uses_turns_view(tmp_path)


async def _the_detail_uses_turns_view(tmp_path: Path) -> None:
    config = write_project(tmp_path, {"plain": [out_row("p1", PASS, PASS)], "talk": [out_row("t1", FAIL, PASS)]})
    app = app_for(config)
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(app, pilot)
        await to_first_row(app, pilot)  # the app opens on the first failing row
        assert app.state.project is not None
        next(s for s in app.state.project.sets if s.file_name == "talk.json").dialect = "turns"
        await settle(pilot)
        assert selected_id(app) == "p1" and isinstance(app.main.detail.view, ExpectedActualView)
        assert "PASS" in static_text(app, "#detail-meta")
        await pilot.press("j", "j")  # past talk.json's set line to its row
        await settle(pilot)
        assert selected_id(app) == "t1"
        assert isinstance(app.main.detail.view, TurnsView)
        assert static_text(app, "#turns") == "turns of t1 under exact-match-evaluator: FAIL"
        assert not app.query("#detail-meta")  # the default body is gone, not stacked under the new one
        await pilot.press("k", "k")
        await settle(pilot)
        assert selected_id(app) == "p1" and isinstance(app.main.detail.view, ExpectedActualView)
        assert "PASS" in static_text(app, "#detail-meta")
